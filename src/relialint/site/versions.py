"""Which engine versions a record affects, said as honestly as the record allows.

A record's ``trigger.affected`` ranges (OSV-style: introduced, fixed, last_affected, last_known_good, observed,
with ``bound_sources`` saying where each bound comes from) give one of these statuses:

* ``known``: where it starts and where it is fixed are both given;
* ``bounded``: some bounds are given, not both ends;
* ``unknown``: only versions it was seen on, or no range at all;
* ``per-version``: no range, but the trigger itself decides by the deployment's version (an ``engine.version``
  test, or a fact relialint derives from its per-version option tables);
* ``every``: the record says every version (a range introduced at ``0``, or llama.cpp build ``b0``, with no end);
* ``not-applicable``: an engine-independent record.

A record with no range is never shown as affecting "every version": the linter checks it on any version, but
which versions really have the failure is not established.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from relialint.site.markup import cell, code, md

BOUND_WORDS = {
    "introduced": "introduced (first affected)",
    "last_known_good": "last known good",
    "last_affected": "last known affected",
    "fixed": "fixed (first good)",
}
STATUS_WORDS = {
    "known": "known",
    "bounded": "bounded",
    "unknown": "not established",
    "per-version": "decided per deployment",
    "every": "every version",
    "not-applicable": "not an engine matter",
}
EVERY_VERSION = ("0", "b0")
"""``introduced`` values that mean the first release there is: OSV's ``0``; llama.cpp's build ``b0``."""
# Facts whose value the linter derives from its per-version tables of an engine's options and variables.
@dataclass
class Versions:
    status: str
    text: list[str] = field(default_factory=list)  # Markdown lines

    @property
    def label(self) -> str:
        return STATUS_WORDS[self.status]


def range_status(rng: dict[str, Any]) -> str:
    if rng.get("introduced") in EVERY_VERSION and not (rng.get("fixed") or rng.get("last_affected")):
        return "every"
    if rng.get("introduced") and rng.get("fixed"):
        return "known"
    if any(rng.get(k) for k in BOUND_WORDS):
        return "bounded"
    return "unknown"


def engine_label(name: str) -> str:
    """An engine's name in prose (``vLLM``), from the engines relialint ships; an unknown one as it is."""
    from relialint.engines.registry import default_registry

    return default_registry().label(name)


def _range_sentence(rng: dict[str, Any]) -> str:
    name = engine_label(str(rng["engine"]))
    status = range_status(rng)
    if status == "every":
        return f"**{name}: every version.** The record says every release has it; no fix is known."
    parts: list[str] = []
    if rng.get("introduced"):
        parts.append(f"affected from {code(rng['introduced'])}")
    elif rng.get("last_known_good"):
        parts.append(f"affected after {code(rng['last_known_good'])} at the earliest; the first affected version "
                     "is not established")
    else:
        parts.append("the first affected version is not established")
    if rng.get("fixed"):
        parts.append(f"fixed in {code(rng['fixed'])}")
    elif rng.get("last_affected"):
        parts.append(f"still affected in {code(rng['last_affected'])}, and no fixed version is known")
    else:
        parts.append("no fixed version is known")
    if rng.get("observed"):
        parts.append("seen on " + ", ".join(code(v) for v in rng["observed"]))
    sentence = "; ".join(parts)
    return f"**{name}: {STATUS_WORDS[status]}.** " + sentence[0].upper() + sentence[1:] + "."


def _bounds_table(rng: dict[str, Any], repo: str | None = None) -> list[str]:
    sources = rng.get("bound_sources") or {}
    rows = [(BOUND_WORDS[k], rng[k], sources.get(k)) for k in BOUND_WORDS if rng.get(k)]
    if not rows:
        return []
    show_sources = any(src for _, _, src in rows)
    head = "| bound | version | where the bound comes from |" if show_sources else "| bound | version |"
    out = [head, "| --- | --- | --- |" if show_sources else "| --- | --- |"]
    for word, version, src in rows:
        row = f"| {word} | {code(version)} |"
        if show_sources:
            row += f" {cell(src, repo=repo) if src else 'not stated'} |"
        out.append(row)
    return out


def versions(data: dict[str, Any]) -> Versions:
    """The affected-versions status of a record and its Markdown text."""
    from relialint.kb.describe import english, leaves, per_version_facts
    from relialint.site.cite import record_repository

    trigger = data.get("trigger")
    engines = [engine_label(e) for e in data.get("engines") or []]
    ranges = (trigger or {}).get("affected") or []
    if ranges:
        statuses = [range_status(r) for r in ranges]
        if all(s == "every" for s in statuses):
            status = "every"
        elif all(s == "known" for s in statuses):
            status = "known"
        elif all(s == "unknown" for s in statuses):
            status = "unknown"
        else:
            status = "bounded"
        text: list[str] = []
        for rng in ranges:
            text += [_range_sentence(rng), ""]
            table = _bounds_table(rng, record_repository(data))
            if table:
                text += [*table, ""]
        if any(r.get("last_known_good") for r in ranges):
            text += ["relialint treats a version between the last known good one and the first affected one (or "
                     "after the last known affected one, when no fix is known) as *unknown*: a finding there is "
                     "*possible*, not definite.", ""]
        version_leaves = [leaf for leaf in leaves(trigger["when"]) if leaf.key == "engine.version"] \
            if trigger else []
        if version_leaves:
            text += ["The trigger also tests the version itself: "
                     + "; ".join(md(english(leaf), start=False) for leaf in version_leaves) + ".", ""]
        return Versions(status, text)
    if not engines:
        return Versions("not-applicable", [
            "This record does not depend on an engine or its version: it is about the hardware, the host or how "
            "a figure is measured.", ""])
    which = " and ".join(engines)
    if trigger:
        facts = per_version_facts(trigger)
        if facts:
            return Versions("per-version", [
                f"The record gives no single range: whether a {which} deployment is affected depends on its "
                f"version, which the trigger tests through {', '.join(code(f) for f in facts)}. relialint works "
                "it out for each deployment from the version it detects (or is given with `--engine-version`); "
                "with no version known the finding is *possible*.", ""])
        return Versions("unknown", [
            f"**Not established.** The record gives no version range, so which {which} versions have this failure "
            "is not known. relialint checks it whatever the deployment's version.", ""])
    return Versions("unknown", [
        f"**Not established.** The record gives no version range for {which}.", ""])


# -- the aliases box -----------------------------------------------------------------------------------------------


def release_page(engine: str, version: object) -> str | None:
    """The site's page of that release (``releases/vllm-0.30.0.md``, relative to ``docs/``) where relialint tables
    it, else ``None``."""
    from relialint.engines.registry import default_registry
    from relialint.engines.releases import releases
    from relialint.site.releases import page_path

    found = default_registry().get(engine)
    if found is None or not found.takes_version:
        return None
    for tabled in releases(found):
        if str(tabled) == str(version):
            return page_path(engine, tabled)
    return None


def version_link(engine: str, version: object) -> str:
    """A version as code, linked to its release page where the site has one (from a record page)."""
    page = release_page(engine, version)
    return f"[{code(version)}](../{page})" if page else code(version)


def alias_versions(data: dict[str, Any]) -> list[str]:
    """Affected and fixed versions for the aliases box, one Markdown list item per range. Versions the record does
    not establish read "not checked", never as unaffected."""
    trigger = data.get("trigger") or {}
    ranges = trigger.get("affected") or []
    out: list[str] = []
    for rng in ranges:
        engine = str(rng["engine"])

        def link(key: str, rng: dict[str, Any] = rng, engine: str = engine) -> str:
            return version_link(engine, rng[key])

        name = engine_label(engine)
        if range_status(rng) == "every":
            out.append(f"- **{name}**: affected: every version; fixed: none known")
            continue
        parts: list[str] = []
        if rng.get("introduced") in EVERY_VERSION:
            first = "every version"
        elif rng.get("introduced"):
            first = f"from {link('introduced')}"
        else:
            first = "first affected version not checked"
        if rng.get("last_affected"):
            parts.append(f"affected: {first} to {link('last_affected')} (the newest checked)")
        else:
            parts.append(f"affected: {first}")
        if rng.get("observed"):
            parts.append("seen on " + ", ".join(version_link(engine, v) for v in rng["observed"]))
        if rng.get("fixed"):
            parts.append(f"fixed: {link('fixed')}")
            if rng.get("last_affected"):
                parts.append(f"between {code(rng['last_affected'])} and {code(rng['fixed'])}: not checked")
        else:
            parts.append("fixed: none known")
            if rng.get("last_affected"):
                parts.append(f"after {code(rng['last_affected'])}: not checked")
        if rng.get("last_known_good"):
            parts.append(f"last known good: {link('last_known_good')}")
        if rng.get("introduced") not in EVERY_VERSION:
            parts.append("older versions: not checked")
        out.append(f"- **{name}**: " + "; ".join(parts))
    if out:
        return out
    status = versions(data)
    if status.status == "per-version":
        return [f"- versions: {status.label} ([how](#affected-versions))"]
    if status.status == "not-applicable":
        return []
    return ["- versions: not checked (the record gives no range)"]
