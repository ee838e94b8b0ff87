"""References as readers see them: a link where the record has a URL, the seed chapter by its title and section.

Records written from the reliability chapter locate it with a machine locator, ``seed <file id>, §2.2`` (kept in
the record and in the JSON export, so tools can follow it); a page shows the chapter's number, title and the
sections' titles instead. The chapter is not published online, so those references have no link.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from relialint.base.errors import RelialintError
from relialint.site.markup import code, md, md_link


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


def reference_markdown(ref: dict[str, Any]) -> str:
    """One reference as a Markdown list item: kind, the title as a link where there is a URL, where to find it."""
    kind = KIND_WORDS.get(str(ref["kind"]), md(ref["kind"]))
    title = md(ref["title"], start=False)
    seed = seed_citation(ref.get("locator"))
    if seed is not None and not seed.cited and not ref.get("url"):
        return f"- **{kind}**: {seed.text()} (a chapter not published online)"
    line = f"- **{kind}**: " + (md_link(title, ref["url"]) if ref.get("url") else title)
    if seed is not None:
        line += f", as cited in {seed.text()}"
    elif ref.get("locator"):
        line += f" ({code(ref['locator'])})"
    return line
