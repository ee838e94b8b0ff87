"""A deployment: one engine invocation found in the inputs, with its facts."""

from __future__ import annotations

from relialint.core.facts import FactSet
from relialint.readers.located import Branch, Span
from relialint.readers.located import exclusive as _arms_exclusive


class Deployment:
    """One engine launch (or one benchmark run) and what is known about it."""

    engine: str
    kind: str
    span: Span
    facts: FactSet
    name: str | None = None
    notes: list[str]
    unfinished: FactSet | None = None
    """The facts before the engine's checks and defaults ran: the possible worlds recompute defaults from them."""
    branch: Branch = ()
    """The ``if`` / ``case`` arms the launch sits in (``readers.located.Branch``)."""
    unseen: str | None = None
    """Why the launch itself is not in the inputs (a container that runs its image's own command, the image built
    or published elsewhere), or ``None`` when it is. Every option of an unseen launch is unknown, never absent."""

    def __init__(self, engine: str, kind: str, span: Span, facts: FactSet | None = None, name: str | None = None,
                 notes: list[str] | None = None, unfinished: FactSet | None = None, branch: Branch = ()) -> None:
        self.engine = engine
        self.kind = kind
        self.span = span
        self.facts = FactSet() if facts is None else facts
        self.name = name
        self.notes = [] if notes is None else notes
        self.unfinished = unfinished
        self.branch = branch

    @property
    def path(self) -> str:
        return self.span.path


def exclusive(a: Deployment, b: Deployment) -> bool:
    """True when two deployments of one file sit in different arms of one ``if`` / ``case``: they never run
    together (a leader and a worker command, one per pod)."""
    return a.path == b.path and _arms_exclusive(a.branch, b.branch)
