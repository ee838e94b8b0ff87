"""A deployment: one engine invocation found in the inputs, with its facts."""

from __future__ import annotations

from dataclasses import dataclass, field

from relialint.facts import FactSet
from relialint.readers.located import Branch, Span
from relialint.readers.located import exclusive as _arms_exclusive


@dataclass(repr=False, eq=False)
class Deployment:
    """One engine launch (or one benchmark run) and what is known about it."""

    engine: str
    kind: str
    span: Span
    facts: FactSet = field(default_factory=FactSet)
    name: str | None = None
    notes: list[str] = field(default_factory=list)
    unfinished: FactSet | None = None
    """The facts before the engine's checks and defaults ran: the possible worlds recompute defaults from them."""
    branch: Branch = ()
    """The ``if`` / ``case`` arms the launch sits in (``readers.located.Branch``)."""

    @property
    def path(self) -> str:
        return self.span.path


def exclusive(a: Deployment, b: Deployment) -> bool:
    """True when two deployments of one file sit in different arms of one ``if`` / ``case``: they never run
    together (a leader and a worker command, one per pod)."""
    return a.path == b.path and _arms_exclusive(a.branch, b.branch)
