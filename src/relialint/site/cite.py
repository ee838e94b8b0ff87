"""References as readers see them: a link where the record has a URL, the seed chapter by its title and section.

Records written from the reliability chapter locate it with a machine locator, ``seed <file id>, §2.2`` (kept in
the record and in the JSON export, so tools can follow it); a page shows the chapter's number, title and the
sections' titles instead. The chapter is not published online, so those references have no link.

A reference with no URL whose title or locator names one issue or PR (``ggml-org/llama.cpp #28604``; ``issue 123``
in a record of one engine) links to it; issue and PR numbers in the record's prose link the same way
(:func:`relialint.site.markup.issue_links`), to the repository named beside the number or else the record's
engine's (:func:`record_repository`), never a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from relialint.base.errors import RelialintError
from relialint.site.markup import code, issue_links, md, md_link


@dataclass(frozen=True)
class Chapter:
    number: str
    title: str
    sections: dict[str, str]


SEED_CHAPTERS: dict[str, Chapter] = {
    "000_92ee87cbb4f51a37": Chapter(
        number="18",
        title="Reliability: what actually goes wrong in production serving",
        sections={
            "1": "The one-paragraph version",
            "2": "Silent wrong output: the failures throughput monitoring cannot catch",
            "2.1": "The pattern",
            "2.2": "The records, grouped by trigger",
            "2.3": "What to monitor",
            "3": "Silent performance degradation: the failures health checks cannot catch",
            "3.1": "Thermal and power-delivery",
            "3.2": "Clock state",
            "3.3": "Engine and framework regressions",
            "4": "Measurement traps: the numbers that lie",
            "4.1": "Power measurement boundary",
            "4.2": "Idle power",
            "4.3": "Carbon intensity",
            "5": "The reliability checklist",
            "6": "What the records cannot answer",
        },
    ),
}
"""The seed chapters records are written from, by the id in their locators (``seed <id>, §N``)."""

KIND_WORDS = {"source": "Source", "report": "Report", "fix": "Fix", "upstream": "Upstream"}

GITHUB_ISSUE = re.compile(r"^https://github\.com/(?P<repo>[^/]+/[^/]+)/(?P<kind>issues|pull)/(?P<number>[0-9]+)/?(?:[#?].*)?$")
"""A GitHub issue or pull request page."""
_SEED = re.compile(r"^(?P<cited>cited in )?seed (?P<id>[0-9A-Za-z_]+)(?P<rest>.*)$")
_SECTION = re.compile(r"§\s*([0-9]+(?:\.[0-9]+)*)")


@dataclass(frozen=True)
class SeedCitation:
    chapter: Chapter
    sections: list[str]
    cited: bool  # the reference is a work the chapter cites, not the chapter itself

    def text(self) -> str:
        """``Chapter 18, “Reliability: …”, §2.2 The records, grouped by trigger`` (Markdown, no link)."""
        parts = [f"§{s} {self.chapter.sections[s]}" for s in self.sections]
        where = f"Chapter {self.chapter.number}, *{self.chapter.title}*"
        return where + (", " + "; ".join(parts) if parts else "")


class CitationError(RelialintError, ValueError):
    """A seed locator that names an unknown chapter or section."""


def seed_citation(locator: str | None) -> SeedCitation | None:
    """The seed chapter a locator names, or ``None`` when it is not a seed locator."""
    if not locator:
        return None
    match = _SEED.match(locator.strip())
    if match is None:
        return None
    chapter = SEED_CHAPTERS.get(match.group("id"))
    if chapter is None:
        raise CitationError(f"unknown seed chapter {match.group('id')!r} in locator {locator!r}")
    sections = _SECTION.findall(match.group("rest"))
    unknown = [s for s in sections if s not in chapter.sections]
    if unknown:
        raise CitationError(f"chapter {chapter.number} has no section {', '.join(unknown)} (locator {locator!r})")
    return SeedCitation(chapter, sections, bool(match.group("cited")))


def record_repository(data: dict[str, Any]) -> str | None:
    """The GitHub repository (``owner/name``) an unqualified issue number in a record points at: its engine's,
    when the record is about exactly one engine that has one; otherwise ``None``."""
    from relialint.engines.registry import default_registry

    engines = data.get("engines") or []
    return default_registry().repository(str(engines[0])) if len(engines) == 1 else None


def reference_url(ref: dict[str, Any], repo: str | None) -> str | None:
    """The reference's URL; for one without, the issue or PR its locator (else its title) names, when it names
    exactly one; else ``None``."""
    if ref.get("url"):
        return str(ref["url"])
    for text in (ref.get("locator"), ref.get("title")):
        if not text or str(text).strip().startswith(("seed ", "cited in seed ")):
            continue
        urls = {link.url for link in issue_links(str(text), repo)}
        if len(urls) == 1:
            return urls.pop()
        if urls:
            return None
    return None


def reference_markdown(ref: dict[str, Any], repo: str | None = None) -> str:
    """One reference as a Markdown list item: kind, the title as a link where there is a URL (or an issue or PR
    it names, :func:`reference_url`), where to find it. ``repo``: the record's engine's repository."""
    kind = KIND_WORDS.get(str(ref["kind"]), md(ref["kind"]))
    seed = seed_citation(ref.get("locator"))
    url = reference_url(ref, repo)
    if seed is not None and not seed.cited and not url:
        return f"- **{kind}**: {seed.text()} (a chapter not published online)"
    line = f"- **{kind}**: " + (md_link(md(ref["title"], start=False), url) if url
                                 else md(ref["title"], start=False, repo=repo))
    if seed is not None:
        line += f", as cited in {seed.text()}"
    elif ref.get("locator"):
        line += f" ({code(ref['locator'])})"
    return line
