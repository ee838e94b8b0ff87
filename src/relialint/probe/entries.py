"""A facts file as read: entries ``key = raw value`` with their positions, before typing."""

from __future__ import annotations

from dataclasses import dataclass, field

from relialint.readers.located import ReadError


@dataclass(frozen=True)
class Entry:
    key: str
    """A fact key, or ``gpu``: a GPU name resolved through the hardware catalogue, as ``--gpu`` does."""
    raw: str
    line: int
    column: int


@dataclass(repr=False, eq=False)
class FactsFile:
    path: str
    kind: str
    entries: list[Entry] = field(default_factory=list)
    errors: list[ReadError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
