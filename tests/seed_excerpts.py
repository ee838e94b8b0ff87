"""The excerpts of a seed chapter kept in ``tests/fixtures/seed`` (``tests/fixtures/seed/README.md``).

A seed chapter is the text records are written from; it lives outside the repository. The tests read only these
excerpts: one per line, ``LINE: TEXT``, where TEXT is an exact piece of the chapter's line LINE (1-based)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests.conftest import FIXTURES

SEED = FIXTURES / "seed"


@dataclass(frozen=True)
class Excerpt:
    """A piece of one line of the chapter, with that line's number."""

    line: int
    text: str


def excerpts(chapter_id: str, folder: Path = SEED) -> list[Excerpt]:
    """The excerpts kept of the chapter, in the chapter's order."""
    out = []
    for row in (folder / f"{chapter_id}.txt").read_text(encoding="utf-8").splitlines():
        line, text = row.split(": ", 1)
        out.append(Excerpt(int(line), text))
    return out
