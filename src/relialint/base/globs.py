"""Path globs of the configuration (``exclude``, ``overrides.paths``, ``suppress.paths``), matched in linear time.

A glob translated to a backtracking regular expression (``**/`` as ``(?:.*/)?``, ``*`` as ``[^/]*``) takes time
exponential in the number of stars on a path that almost matches (``**/**/**/**/x`` or ``*a*a*a*a*b`` against a
long name): a configuration file could stall every run. Here the glob is a sequence of steps run as a
nondeterministic automaton over the path, all live states advanced together, one character at a time: the work
is at most the path's length times the glob's, whatever both hold.

The language: a glob without ``/`` matches a name at any depth (``*.sh``); one with ``/`` matches from the
configuration's folder (``deploy/b200/**``); ``**`` spans folders, ``**/`` any number of leading folders (none
included); ``*`` and ``?`` stay inside one name; a glob ending in ``/`` names a folder; and a glob that matches a
folder matches everything under it.
"""

from __future__ import annotations

from collections.abc import Set
from functools import lru_cache

_LITERAL, _ONE, _STAR, _ANY, _FOLDERS = range(5)
"""Steps: a character; ``?`` (one character but ``/``); ``*`` (any run without ``/``); ``**`` (any run);
``**/`` (nothing, or any run that ends in ``/``)."""

Step = tuple[int, str]


@lru_cache(maxsize=512)
def compile_glob(pattern: str) -> tuple[Step, ...]:
    """The steps of a glob (an unanchored glob starts with ``**/``)."""
    pattern = pattern.strip().removeprefix("./")
    anchored = "/" in pattern.rstrip("/")
    if pattern.endswith("/"):
        pattern += "**"
    steps: list[Step] = [] if anchored else [(_FOLDERS, "")]
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            steps.append((_FOLDERS, ""))
            i += 3
        elif pattern.startswith("**", i):
            steps.append((_ANY, ""))
            i += 2
        elif pattern[i] == "*":
            steps.append((_STAR, ""))
            i += 1
        elif pattern[i] == "?":
            steps.append((_ONE, ""))
            i += 1
        else:
            steps.append((_LITERAL, pattern[i]))
            i += 1
    return tuple(steps)


def _closure(states: Set[int], steps: tuple[Step, ...]) -> set[int]:
    """``states`` with every state reached without reading a character: the star steps may match nothing.

    A state is ``2 * i`` (about to take step ``i``) or ``2 * i + 1`` (inside a ``**/`` step: it ends only at a
    ``/``)."""
    out = set(states)
    todo = [s for s in states if s % 2 == 0]
    while todo:
        state = todo.pop()
        index = state // 2
        if index < len(steps) and steps[index][0] in (_STAR, _ANY, _FOLDERS):
            after = state + 2
            if after not in out:
                out.add(after)
                todo.append(after)
    return out


def _step(states: Set[int], char: str, steps: tuple[Step, ...]) -> set[int]:
    out: set[int] = set()
    for state in states:
        index = state // 2
        if index >= len(steps):
            continue
        kind, literal = steps[index]
        if kind == _LITERAL:
            if char == literal:
                out.add(state + 2)
        elif kind == _ONE:
            if char != "/":
                out.add(state + 2)
        elif kind == _STAR:
            if char != "/":
                out.add(state)
        elif kind == _ANY:
            out.add(state)
        else:  # `**/`: inside it until a `/`, which may end it
            out.add(2 * index + 1)
            if char == "/":
                out.add(2 * index + 2)
    return _closure(out, steps)


class Glob:
    """One glob, matched against many paths: the sets of live states met are numbered as they come, and each
    step from a set on a character is worked out once (a lazy deterministic automaton), so that a path costs a
    lookup per character. At most ``MAX_STEPS`` steps are kept; past them the table starts again (each step is
    still at most the glob's length of work)."""

    MAX_STEPS = 4096

    def __init__(self, pattern: str) -> None:
        self.steps = compile_glob(pattern)
        self.accept = 2 * len(self.steps)
        self.start = frozenset(_closure({0}, self.steps))
        self._next: dict[tuple[frozenset[int], str], frozenset[int]] = {}

    def match(self, rel: str) -> bool:
        """Whether ``rel`` (a POSIX path relative to the configuration's folder) matches, or lies in a folder that
        does; linear in ``len(rel) * len(pattern)`` at worst, one lookup per character once the steps are known."""
        states = self.start
        for char in rel:
            if char == "/" and self.accept in states:
                return True  # the folder so far matches: everything under it does
            key = (states, char)
            after = self._next.get(key)
            if after is None:
                if len(self._next) >= self.MAX_STEPS:
                    self._next.clear()
                after = self._next[key] = frozenset(_step(states, char, self.steps))
            if not after:
                return False
            states = after
        return self.accept in states


def glob_match(pattern: str, rel: str) -> bool:
    """Whether a POSIX path relative to the configuration's folder matches ``pattern``, or lies in a folder that
    does (see the module's docstring); linear in ``len(rel) * len(pattern)``."""
    return Glob(pattern).match(rel)
