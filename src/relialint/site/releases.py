"""The catalogue's release pages: what silently changes in each tabled release of an engine, and their index.

One page per release that an engine's tables describe exactly (:func:`relialint.engines.releases.releases`: every
vLLM release of the option tables, every llama.cpp build a table is exactly), written ``docs/releases/<engine>-<V>.md``
(URL ``/releases/vllm-0.23.0/``), says what changes from the tabled release before it: the records whose affected
ranges it enters or leaves (:func:`relialint.run.upgrade.record_changes`), the options it refuses and newly accepts,
the options whose kind or values change, the environment variables it stops and starts reading, and the defaults
that change with the options that pin the old value (:func:`relialint.engines.releases.release_delta`). The page
computes nothing itself: every item is the shared upgrade delta's, so the page, ``relialint upgrade`` and the
"upgrade" view agree.

What the tables cannot say is said as such, never as "no change": the oldest tabled release has nothing before it to
compare with; a record whose range leaves a release undecided (a bound no released code shows) is listed as *not
checked*; versions outside the tables (pre-releases, llama.cpp builds between two tables, releases newer than the
newest table) have no page and the index says they are not checked.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from relialint.core.facts import Value, render
from relialint.core.versions import Version
from relialint.site.common import BANNER
from relialint.site.markup import code, fold, html_attr, md, yaml_html

if TYPE_CHECKING:
    from relialint.engines.protocol import Engine
    from relialint.engines.releases import ReleaseDelta
    from relialint.run.upgrade import RecordChange

RELEASES_DIR = "releases"
RELEASES_INDEX = "releases/index.md"
NAV_BEGIN = "# BEGIN generated releases nav (python -m relialint.site)"
NAV_END = "# END generated releases nav"
PAGE_NAME = re.compile(r"^[a-z0-9]+-[A-Za-z0-9.+]+\.md$")
"""The file name of a generated release page (anything else in ``docs/releases/`` is left alone)."""

KINDS = {"v": "takes a value", "o": "takes an optional value", "f": "a flag", "n": "a negative flag",
         "?": "kind not known"}

def engine_slug(name: str) -> str:
    """An engine's name in a file name (``llama.cpp`` -> ``llamacpp``)."""
    return re.sub(r"[^a-z0-9]+", "", name.lower())


def page_path(engine: str, version: Version) -> str:
    """The page of one release, relative to ``docs/`` (``releases/vllm-0.23.0.md``)."""
    return f"{RELEASES_DIR}/{engine_slug(engine)}-{version}.md"


# -- the data of the pages ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReleaseStep:
    """One tabled release and what changes from the tabled release before it (``previous``: ``None`` for the oldest,
    which has nothing to compare with; ``delta`` and ``records`` are then ``None`` and empty)."""

    engine: str
    label: str
    version: Version
    previous: Version | None
    following: Version | None
    delta: ReleaseDelta | None
    records: tuple[RecordChange, ...]
    defaults_tabled: bool = False
    """Whether the engine's tables change a default between some two of its releases (then a release that changes
    none has "none", not a gap of the tables)."""

    @property
    def name(self) -> str:
        return f"{self.label} {self.version}"

    def counts(self) -> dict[str, int]:
        """How many items of each kind the page lists."""
        from relialint.engines.releases import (
            ENTERED,
            ENV_READ,
            ENV_UNREAD,
            LEFT,
            OPTION_ACCEPTED,
            OPTION_CHANGED,
            OPTION_REFUSED,
        )

        delta = self.delta
        options = delta.options if delta is not None else ()
        env = delta.env if delta is not None else ()
        return {
            "entered": sum(1 for r in self.records if r.change == ENTERED),
            "left": sum(1 for r in self.records if r.change == LEFT),
            "refused": sum(1 for o in options if o.change == OPTION_REFUSED),
            "accepted": sum(1 for o in options if o.change == OPTION_ACCEPTED),
            "changed": sum(1 for o in options if o.change == OPTION_CHANGED),
            "values": len(delta.values) if delta is not None else 0,
            "unread": sum(1 for e in env if e.change == ENV_UNREAD),
            "read": sum(1 for e in env if e.change == ENV_READ),
            "defaults": len(delta.defaults) if delta is not None else 0,
        }


def release_engines() -> list[Engine]:
    """The engines with release tables, in the registry's order."""
    from relialint.engines.registry import default_registry
    from relialint.engines.releases import releases

    return [engine for engine in default_registry().versioned() if releases(engine)]


def release_steps(records: Sequence[Mapping[str, Any]]) -> list[ReleaseStep]:
    """Every tabled release of every engine with release tables, each with its delta from the one before."""
    from relialint.core.triggers import attach
    from relialint.engines.releases import release_delta, releases
    from relialint.run.upgrade import record_changes

    records = attach([dict(r) for r in records])  # each trigger compiled once, not once per release
    out: list[ReleaseStep] = []
    for engine in release_engines():
        versions = releases(engine)
        steps: list[ReleaseStep] = []
        for i, version in enumerate(versions):
            previous = versions[i - 1] if i else None
            following = versions[i + 1] if i + 1 < len(versions) else None
            delta = release_delta(engine, previous, version) if previous is not None else None
            changes = tuple(record_changes(records, engine.name, previous, version)) if previous is not None else ()
            steps.append(ReleaseStep(engine.name, engine.label, version, previous, following, delta, changes))
        tabled = any(s.delta is not None and s.delta.defaults for s in steps)
        out += [replace(s, defaults_tabled=tabled) for s in steps]
    return out


def _engine(name: str) -> Engine | None:
    from relialint.engines.registry import default_registry

    return default_registry().get(name)


def option_source(engine: str, version: Version) -> str | None:
    """The upstream file that declares a release's options (the file its table was read from), where the engine
    says (:class:`relialint.engines.releases.ReleaseSources`)."""
    from relialint.engines import releases

    return releases.option_source(_engine(engine), version)


def env_source(engine: str, name: str, version: Version) -> str | None:
    """The upstream file in which a release reads ``name``, where the engine's tables know it."""
    from relialint.engines import releases

    return releases.env_source(_engine(engine), name, version)


# -- one page ----------------------------------------------------------------------------------------------------------


def _kind(kind: str | None, values: tuple[str, ...]) -> str:
    text = KINDS.get(kind or "", "accepted")
    return f"{text} ({', '.join(code(v) for v in values)})" if values else text


def _linked(text: str, url: str | None) -> str:
    return f"[{text}]({url})" if url else text


def _value(value: Value | None, known: bool) -> str:
    if not known:
        return "not set by the tables (no default, or one the GPU or the model decides)"
    return "no value" if value is None else code(render(value))


def _record_line(change: RecordChange) -> str:
    data = change.record
    rid = str(data["id"])
    sev = str(data["severity"])
    sure = "" if change.certain else (" — *not checked*: its range leaves one of the two releases undecided "
                                      "(a bound no released code shows)")
    return (f'- <span class="rl-sev rl-sev-{sev}">{sev}</span> [{rid}: {md(fold(data["title"]), start=False)}]'
            f"(../records/{rid}.md){sure}")


def _n(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _section(title: str, anchor: str, lines: list[str], empty: str) -> list[str]:
    return [f"## {title} ({len(lines)}) {{ #{anchor} }}", "", *(lines or [empty]), ""]


def _between_builds(step: ReleaseStep) -> list[str]:
    """For an engine numbered by builds: the range of builds the page stands for (the change lies somewhere in it),
    and the tables inside it that are known only within a bracket of builds (not compared here)."""
    if step.previous is None or step.version.scheme != "build" or step.previous.scheme != "build":
        return []
    low, high = int(str(step.previous.key[0])) + 1, int(str(step.version.key[0]))
    text = (f"This page stands for builds {code(f'b{low}')} to {code(f'b{high}')}: relialint's tables describe no "
            "build between the two exactly, so whatever is listed changed in one of them.")
    engine = _engine(step.engine)
    tabled = [str(v) for v in (engine.tabled_versions() if engine is not None else ())]
    ends = (str(step.previous), str(step.version))
    inside = tabled[tabled.index(ends[0]) + 1 : tabled.index(ends[1])] if set(ends) <= set(tabled) else []
    if inside:
        text += (" The tables also read " + ", ".join(code(v) for v in inside) + ", commits known only within "
                 "a range of builds; they are not compared here.")
    return [text, ""]


def release_page(step: ReleaseStep) -> str:
    """``docs/releases/<engine>-<V>.md``: the release's delta from the tabled release before it."""
    from relialint.engines.releases import (
        ENTERED,
        ENV_READ,
        ENV_UNREAD,
        LEFT,
        OPTION_ACCEPTED,
        OPTION_CHANGED,
        OPTION_REFUSED,
    )

    name = step.name
    description = (f"Records, options, environment variables and defaults that change in {name}, by relialint's "
                   "tables and records.")
    out = ["---", f"title: {json.dumps('What silently changes in ' + name)}",
           f"description: {json.dumps(description)}", "---", "", BANNER, "", f"# What silently changes in {name}", ""]
    nav: list[str] = []
    if step.previous is not None:
        nav.append(f"[previous: {step.label} {step.previous}]({_file(page_path(step.engine, step.previous))})")
    if step.following is not None:
        nav.append(f"[next: {step.label} {step.following}]({_file(page_path(step.engine, step.following))})")
    nav.append("[every release](index.md)")
    out += [" · ".join(nav), "{ .rl-release-nav }", ""]
    if step.previous is None or step.delta is None:
        out += ["**Not checked.** This is the oldest release relialint's tables describe: there is no tabled release "
                "before it to compare with, so what changed in it is not known (not \"nothing\").", ""]
        return "\n".join(out)
    old, new = f"{step.label} {step.previous}", name
    upgrade = html_attr(f"../../upgrade/?engine={step.engine}&from={step.previous}&to={step.version}")
    out += [f"From {md(old, start=False)}, the tabled release before it, to {md(new, start=False)}, by relialint's "
            "per-release option and variable tables, its defaults rows and the records' affected ranges (not by "
            f'release notes). See it for your GPU in the <a href="{upgrade}">upgrade view</a>; check a deployment with '
            f"`relialint upgrade FILE --from {step.previous} --to {step.version}`.", ""]
    out += _between_builds(step)
    if not step.delta.checked:
        out += [f"**Not checked.** {md(step.delta.unchecked or '')}", ""]
        return "\n".join(out)
    counts = step.counts()
    out += [f"{_n(counts['entered'], 'record starts', 'records start')} to apply, {counts['left']} "
            f"{'stops' if counts['left'] == 1 else 'stop'}; {_n(counts['refused'], 'option', 'options')} removed, "
            f"{counts['accepted']} added, {counts['changed']} changed, "
            f"{_n(counts['values'], 'option value', 'option values')} accepted or refused; "
            f"{_n(counts['unread'], 'environment variable', 'environment variables')} no longer read, "
            f"{counts['read']} newly read; {_n(counts['defaults'], 'default changes', 'defaults change')}.",
            "{ .rl-release-summary }", ""]
    entered = [_record_line(c) for c in step.records if c.change == ENTERED]
    left = [_record_line(c) for c in step.records if c.change == LEFT]
    out += _section("Records that start to apply", "records-entered", entered,
                    f"No record's affected range starts at {md(new, start=False)}.")
    out += _section("Records that stop applying", "records-left", left,
                    f"No record's affected range ends before {md(new, start=False)}.")
    old_src, new_src = option_source(step.engine, step.previous), option_source(step.engine, step.version)
    refused = [f"- {code(o.name)}: {_kind(o.old_kind, o.old_values)} in {_linked(md(old, start=False), old_src)}"
               + (f"; use {code(o.replacement)} instead" if o.replacement else "")
               + "; a launch that writes it no longer starts"
               for o in step.delta.options if o.change == OPTION_REFUSED]
    accepted = [f"- {code(o.name)}: {_kind(o.new_kind, o.new_values)} in {_linked(md(new, start=False), new_src)}"
                for o in step.delta.options if o.change == OPTION_ACCEPTED]
    changed = [f"- {code(o.name)}: {_kind(o.old_kind, o.old_values)} in {_linked(md(old, start=False), old_src)}, "
               f"{_kind(o.new_kind, o.new_values)} in {_linked(md(new, start=False), new_src)}"
               for o in step.delta.options if o.change == OPTION_CHANGED]
    values = [f"- {code(v.option)} {code(v.value)}: "
              + (f"accepted from {md(new, start=False)}" if v.change == OPTION_ACCEPTED else
                 f"accepted by {md(old, start=False)}, refused by {md(new, start=False)}: a launch that writes it "
                 "no longer starts")
              + f" (the first release that accepts it: {code(v.since)})"
              for v in step.delta.values]
    none = "None: the option tables of both releases agree."
    out += _section("Options removed", "options-removed", refused, none)
    out += _section("Options added", "options-added", accepted, none)
    out += _section("Options whose kind or values change", "options-changed", changed, none)
    out += _section("Option values accepted or refused", "option-values", values,
                    "None: the values relialint tables for options are accepted alike by both releases.")
    unread = [f"- {code(e.name)}"
              + (f" (sets {code(e.option)})" if e.option else "")
              + f": read by {_linked(md(old, start=False), env_source(step.engine, e.name, step.previous))}, "
              "not any more: setting it does nothing"
              + (f"; use {code(e.replacement)} instead" if e.replacement else "")
              for e in step.delta.env if e.change == ENV_UNREAD]
    read = [f"- {code(e.name)}" + (f" (sets {code(e.option)})" if e.option else "")
            + f": newly read by {_linked(md(new, start=False), env_source(step.engine, e.name, step.version))}"
            for e in step.delta.env if e.change == ENV_READ]
    none = "None: the variable tables of both releases agree."
    out += _section("Environment variables no longer read", "env-unread", unread, none)
    out += _section("Environment variables newly read", "env-read", read, none)
    defaults = []
    for d in step.delta.defaults:
        pins = (" Keep the old value by writing " + " or ".join(code(p) for p in d.pins) + ".") if d.pins else ""
        note = f" ({md(d.note, start=False)})" if d.note else ""
        defaults.append(f"- [{code(d.fact)}](../reference/facts.md): {_value(d.old, d.old_known)} in "
                        f"{md(old, start=False)}, {_value(d.new, d.new_known)} in {md(new, start=False)}{note}."
                        f"{pins}")
    tabled = step.defaults_tabled or step.delta.defaults
    out += _section("Defaults that change", "defaults", defaults,
                    "None: the defaults rows give both releases the same values." if tabled else
                    f"None in the tables: relialint tables no per-release defaults for {step.label}.")
    return "\n".join(out)


def _file(path: str) -> str:
    """A page's link from another page of ``docs/releases/``."""
    return path.split("/", 1)[1]


# -- the index ---------------------------------------------------------------------------------------------------------

COLUMNS = (("records", "records in / out"), ("options", "options removed / added / changed (kind or values)"),
           ("env", "variables dropped / newly read"), ("defaults", "defaults changed"))


def _not_tabled(engine: Engine) -> str:
    """What the index says of the versions an engine's pages do not cover (Markdown)."""
    from relialint.engines.releases import releases

    listed = releases(engine)
    others = [v for v in engine.tabled_versions() if v not in listed]
    between = "builds between two tabled builds" if engine.scheme == "build" else "pre-releases"
    text = (f"Versions without a page are **not checked**: {between}, versions newer than {code(str(listed[-1]))} "
            f"({engine.label}'s tables end there), and anything older than {code(str(listed[0]))}.")
    if others:
        text += (" The tables also describe " + ", ".join(code(str(v)) for v in others) + ", commits known only "
                 "within a range of builds: no page compares them.")
    return text


def releases_index(steps: Sequence[ReleaseStep]) -> str:
    """``docs/releases/index.md``: every release with its counts, newest first, per engine."""
    out = ["---", "title: Releases",
           "description: What silently changes in each engine release relialint's tables describe, with counts.",
           "---", "", BANNER, "", "# Releases", "",
           "A page per engine release that relialint's tables describe: the records whose affected versions it "
           "enters or leaves, the options it removes or adds, the environment variables it stops or starts "
           "reading, and the defaults it changes, each compared with the tabled release before it. Everything "
           "comes from the committed option tables, defaults rows and records, never from release notes. To see "
           "an upgrade across several releases on your GPU, use the [upgrade view](../upgrade.md); to check a "
           "deployment file, `relialint upgrade FILE --to VERSION`.", ""]
    for engine in release_engines():
        mine = [s for s in steps if s.engine == engine.name]
        out += [f"## {engine.label} ({len(mine)} releases)", "", _not_tabled(engine), "",
                f'<table class="rl-releases" id="rl-releases-{engine_slug(engine.name)}">',
                f'<caption class="rl-visually-hidden">{html.escape(engine.label)} releases and what changes in '
                "each</caption>",
                "<thead><tr><th scope=\"col\">release</th>"
                + "".join(f'<th scope="col">{html.escape(label)}</th>' for _, label in COLUMNS) + "</tr></thead>",
                "<tbody>"]
        for step in reversed(mine):
            link = f'<a href="{html_attr(_file(page_path(step.engine, step.version))[:-3])}/">' \
                   f"{html.escape(str(step.version))}</a>"
            if step.previous is None or step.delta is None:
                cells = ['<td colspan="4">not checked: the oldest tabled release</td>']
            else:
                c = step.counts()
                values = {"records": f"{c['entered']} / {c['left']}",
                          "options": f"{c['refused']} / {c['accepted']} / {c['changed'] + c['values']}",
                          "env": f"{c['unread']} / {c['read']}", "defaults": str(c["defaults"])}
                cells = [f'<td data-label="{html_attr(label)}">{values[key]}</td>' for key, label in COLUMNS]
            out.append(f'<tr data-version="{html_attr(str(step.version))}"><th scope="row">{link}</th>'
                       + "".join(cells) + "</tr>")
        out += ["</tbody>", "</table>", ""]
    return "\n".join(out)


def render_pages(records: Sequence[Mapping[str, Any]]) -> tuple[dict[str, str], list[ReleaseStep]]:
    """Every release page and the index, by path relative to ``docs/``, and the steps they were made from."""
    steps = release_steps(records)
    pages = {page_path(s.engine, s.version): release_page(s) for s in steps}
    pages[RELEASES_INDEX] = releases_index(steps)
    return pages, steps


def nav_block(steps: Sequence[ReleaseStep], indent: str) -> list[str]:
    """The releases' navigation, between :data:`NAV_BEGIN` and :data:`NAV_END` in ``mkdocs.yml``."""
    lines = [f"{indent}{NAV_BEGIN}", f"{indent}- {RELEASES_INDEX}"]
    for engine in dict.fromkeys(s.engine for s in steps):
        mine = [s for s in steps if s.engine == engine]
        lines.append(f"{indent}- {json.dumps(mine[0].label)}:")
        lines += [f"{indent}    - {yaml_html(s.name)}: {page_path(s.engine, s.version)}" for s in reversed(mine)]
    lines.append(f"{indent}{NAV_END}")
    return lines


__all__ = ["RELEASES_INDEX", "ReleaseStep", "nav_block", "page_path", "release_page", "release_steps",
           "releases_index", "render_pages"]
