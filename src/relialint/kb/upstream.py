"""Where a record comes from, and where its defect stands upstream, derived from the record's own data.

A record names its sources in ``references`` (the seed chapter, a section of the engine reference, an issue or pull
request of an engine's tracker) and the versions it affects in its triggers' ``affected`` ranges. This module reads
both, for ``relialint records``, the site's catalogue page and ``relialint validate``'s quality gates; it works on
the compiled form of a record (plain data, ``kb.loader.compile_record``) and on the YAML data alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

TRACKER_URL = re.compile(
    r"^https?://(?:www\.)?(?:github\.com|gitlab\.com)/(?P<repo>[\w.-]+/[\w.-]+)/(?:-/)?"
    r"(?P<kind>issues|pull|pulls|discussions|merge_requests)/(?P<number>\d+)(?:[/?#].*)?$")
"""An issue, pull request, merge request or discussion thread on GitHub or GitLab."""

_MENTION = re.compile(
    r"(?<![\w./-])(?P<repo>[A-Za-z0-9][\w.-]*/[\w.-]*\w)"
    r"(?:\s*#|\s+(?:issues?|PRs?|pull requests?|discussions?)\s+#?)(?P<rnum>\d+)\b"
    r"|(?<![\w&#/-])(?:issues?|PRs?|pull requests?|discussions?)\s+#?(?P<word>\d+)\b"
    r"|(?<![\w&#])#(?P<hash>\d+)\b",
    re.IGNORECASE)
"""An issue or PR number in prose: ``#1234``, ``owner/repo #1234``, ``issue 1234``, ``PR 1234``,
``pull request 1234``. An ``owner/repo`` right before it names the repository the link must be in."""

BOUNDS = ("introduced", "fixed", "last_affected", "last_known_good")
"""The bounds of an affected range, each of which needs an entry in its ``bound_sources``."""


@dataclass(frozen=True)
class Thread:
    """An issue or pull request that a reference's URL links."""

    repo: str
    number: int
    url: str


@dataclass(frozen=True)
class Mention:
    """An issue or PR number named in a record's text; ``repo`` when the text names the repository too."""

    number: int
    repo: str | None
    text: str
    start: int


@dataclass(frozen=True)
class Source:
    """Where a record comes from: ``seed`` (the reliability chapter), ``engine-facts`` (the engine reference),
    ``tracker`` (an issue or PR it is drawn from) or ``upstream`` (the engine's own source or documentation)."""

    kind: Literal["seed", "engine-facts", "tracker", "upstream"]
    label: str
    url: str | None = None

    def as_json(self) -> dict[str, str]:
        out = {"kind": self.kind, "label": self.label}
        if self.url:
            out["url"] = self.url
        return out


@dataclass(frozen=True)
class Status:
    """Where the defect stands upstream: ``fixed`` (every affected range names the release with the fix),
    ``open`` (a range is affected from a version on with no fix or last affected version known) or ``unknown``."""

    state: Literal["fixed", "open", "unknown"]
    text: str

    def as_json(self) -> dict[str, str]:
        return {"state": self.state, "text": self.text}


def thread(url: str | None) -> Thread | None:
    """The issue or PR a URL links, or ``None`` when it links something else (a file, a page)."""
    match = TRACKER_URL.match(url or "")
    if match is None:
        return None
    return Thread(match["repo"], int(match["number"]), str(url))


def mentions(text: str) -> list[Mention]:
    """Every issue or PR number the text names."""
    out = []
    for match in _MENTION.finditer(text):
        number = match["rnum"] or match["word"] or match["hash"]
        out.append(Mention(int(number), match["repo"], match.group(0), match.start()))
    return out


def links(mention: Mention, threads: list[Thread]) -> bool:
    """Whether one of the threads is the issue or PR the mention names (in its repository, when it names one)."""
    return any(t.number == mention.number and (mention.repo is None or t.repo.lower() == mention.repo.lower())
               for t in threads)


def threads(record: dict[str, Any]) -> list[Thread]:
    """The issues and PRs the record's references link, in reference order."""
    return [t for ref in record.get("references") or [] if (t := thread(ref.get("url"))) is not None]


Loc = tuple[str | int, ...]


def texts(record: dict[str, Any]) -> Iterator[tuple[Loc, str]]:
    """Every piece of prose in a record with its key path: the fields people read, evidence, reference titles and
    locators, trigger messages and the sources of version bounds."""
    for key in ("title", "summary", "symptom", "cause", "fix", "fix_cost", "detect"):
        if isinstance(record.get(key), str):
            yield (key,), record[key]
    for index, item in enumerate(record.get("evidence") or []):
        for key in ("measured", "setup"):
            if isinstance(item.get(key), str):
                yield ("evidence", index, key), item[key]
    for index, ref in enumerate(record.get("references") or []):
        for key in ("title", "locator"):
            if isinstance(ref.get(key), str):
                yield ("references", index, key), ref[key]
    for name in ("trigger", "runtime_trigger"):
        trigger = record.get(name) or {}
        if isinstance(trigger.get("message"), str):
            yield (name, "message"), trigger["message"]
        for index, rng in enumerate(trigger.get("affected") or []):
            for bound, text in (rng.get("bound_sources") or {}).items():
                yield (name, "affected", index, "bound_sources", bound), str(text)


def drawn_from_tracker(record: dict[str, Any]) -> bool:
    """A record is drawn from a tracker when one of its ``report``, ``fix`` or ``upstream`` references points at
    an issue tracker: it links an issue or PR, or its title or locator names one."""
    return any(ref.get("kind") in ("report", "fix", "upstream")
               and (thread(ref.get("url")) is not None
                    or any(mentions(str(ref.get(key) or "")) for key in ("title", "locator")))
               for ref in record.get("references") or [])


def ranges(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The affected ranges of the record's trigger and runtime trigger."""
    return [rng for name in ("trigger", "runtime_trigger") for rng in (record.get(name) or {}).get("affected") or []]


_SECTIONS = re.compile(r"§\s*([0-9][0-9.]*[0-9]|[0-9])")
_ENGINE_FACTS = re.compile(r"engine-facts\.md\s+((?:§\s*[0-9][0-9.]*(?:\s*(?:,|and|-|–)\s*)?)+)")


def sources(record: dict[str, Any]) -> list[Source]:
    """Where the record comes from, most specific first: the issues and PRs of its ``report`` and ``fix``
    references, the seed chapter's sections, the engine reference's sections; the engine's own source or
    documentation only when none of these is named."""
    out: list[Source] = []
    refs = record.get("references") or []
    for kind in ("report", "fix"):
        for ref in refs:
            found = thread(ref.get("url")) if ref.get("kind") == kind else None
            if found is not None:
                out.append(Source("tracker", f"{found.repo}#{found.number}", found.url))
    seed: list[str] = []
    facts: list[str] = []
    for ref in refs:
        locator = str(ref.get("locator") or "")
        if ref.get("kind") == "source" and locator.startswith("seed"):
            seed.extend(s for s in _SECTIONS.findall(locator) if s not in seed)
        for group in _ENGINE_FACTS.findall(locator):
            facts.extend(s for s in _SECTIONS.findall(group) if s not in facts)
    if seed:
        out.append(Source("seed", "seed chapter " + ", ".join(f"§{s}" for s in seed)))
    if facts:
        out.append(Source("engine-facts", "engine facts " + ", ".join(f"§{s}" for s in facts)))
    if not out:
        urls = [ref["url"] for ref in refs if ref.get("kind") in ("upstream", "fix") and ref.get("url")]
        engines = " and ".join(record.get("engines") or []) or "upstream"
        if urls or any(ref.get("kind") == "upstream" for ref in refs):
            out.append(Source("upstream", f"{engines} source", urls[0] if urls else None))
    return out


def _range_status(rng: dict[str, Any]) -> Status:
    engine = rng.get("engine", "")
    if rng.get("fixed"):
        return Status("fixed", f"fixed in {engine} {rng['fixed']}")
    if rng.get("last_affected"):
        return Status("unknown", f"no fix known; last known affected {engine} {rng['last_affected']}")
    if rng.get("introduced"):
        return Status("open", f"open: {engine} {rng['introduced']} and newer affected, no fix known")
    observed = ", ".join(rng.get("observed") or [])
    return Status("unknown", f"unknown: observed on {engine} {observed}" if observed else "unknown")


def status(record: dict[str, Any]) -> Status:
    """Where the defect stands upstream, from the affected ranges. A ``fix`` reference that links a pull request
    says the defect is fixed even where no range names the first release with the fix (the record then does not
    know which release that is, and says so)."""
    fixes = [t for ref in record.get("references") or [] if ref.get("kind") == "fix"
             and (t := thread(ref.get("url"))) is not None]
    fix_text = "fixed by " + ", ".join(f"{t.repo}#{t.number}" for t in fixes) + " (first release with it not known)"
    parts = []
    for rng in ranges(record):
        part = _range_status(rng)
        if fixes and part.state != "fixed":
            known = f"; last known affected {rng['engine']} {rng['last_affected']}" if rng.get("last_affected") else ""
            part = Status("fixed", fix_text + known)
        parts.append(part)
    if not parts:
        return Status("fixed", fix_text) if fixes else Status("unknown", "unknown")
    states = {p.state for p in parts}
    state: Literal["fixed", "open", "unknown"] = (
        "fixed" if states == {"fixed"} else ("open" if "open" in states else "unknown"))
    return Status(state, "; ".join(dict.fromkeys(p.text for p in parts)))
