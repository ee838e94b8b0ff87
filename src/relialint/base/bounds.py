"""The bounds that keep hostile input cheap: nesting depth, integer size, expanded values (docs/bad-input.md).

One home for each limit, so every reader and engine model applies the same one: JSON nesting (``--speculative-config``,
a Dockerfile's JSON-form ``CMD``, a baseline), integers of more digits than Python converts, and variable
expansion (env files, shell, compose interpolation, Dockerfile ``ENV``/``ARG``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, TypeVar

from relialint.base import lazyre
from relialint.base.errors import RelialintError

R = TypeVar("R")

MAX_DEPTH = 100
"""Deepest nesting of JSON (or TOML arrays and tables) read; deeper input is an error, never a RecursionError."""

MAX_INT_DIGITS = 4300
"""Python's own limit for converting a decimal string to an integer."""

MAX_EXPANDED = 65536
"""The longest value a variable reference may expand to; past it the value is unknown, never built."""

MAX_SUBSTITUTIONS = 100_000
"""The most variable references one file may substitute; past it further references are unknown."""

MAX_WORDS = 10_000
"""The most words of one command a reader turns into located words; past it the rest is unknown (a warning)."""

MAX_COMMANDS = 10_000
"""The most commands read from one file; past it a warning says the rest were not read."""

MAX_EXPANDED_TOTAL = 16 * 1024 * 1024
"""The most characters one file may substitute in all; past it further references are unknown."""

_JSON_TOKEN = lazyre.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]')
_TOML_TOKEN = lazyre.compile(r'"""[\s\S]*?(?:"""|$)|\'\'\'[\s\S]*?(?:\'\'\'|$)|"(?:[^"\\\n]|\\.)*"?|'
                             r'\'[^\'\n]*\'?|#[^\n]*|[\[\]{}]')


class BoundError(RelialintError, ValueError):
    """Input past one of the bounds; the message says which, in words a user can act on."""


def depth(text: str, toml: bool = False) -> int:
    """The deepest bracket nesting of JSON or TOML text, strings and comments skipped (linear time)."""
    deepest = level = 0
    for match in (_TOML_TOKEN if toml else _JSON_TOKEN).finditer(text):
        token = match.group(0)
        if token in "[{":
            level += 1
            deepest = max(deepest, level)
        elif token in "]}":
            level -= 1
    return deepest


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise BoundError(f"integer of more than {MAX_INT_DIGITS} digits")
    return int(text)


_DIGITS = lazyre.compile(r"\d+")


def long_integer_at(text: str) -> tuple[int, int] | None:
    """The 1-based line and column where the first run of more than ``MAX_INT_DIGITS`` digits starts (each run
    is looked at once: linear time)."""
    for found in _DIGITS.finditer(text):
        if found.end() - found.start() > MAX_INT_DIGITS:
            start = found.start()
            return text.count("\n", 0, start) + 1, start - text.rfind("\n", 0, start)
    return None


def json_loads(text: str) -> Any:
    """``json.loads`` that cannot recurse without bound or convert a huge integer (``BoundError``, a ``ValueError``)."""
    if depth(text) > MAX_DEPTH:
        raise BoundError(f"JSON nested deeper than {MAX_DEPTH} levels")
    return json.loads(text, parse_int=_json_int)


def int_value(text: str) -> int:
    """A decimal integer, or ``BoundError`` past ``MAX_INT_DIGITS`` digits (``ValueError`` if not a number)."""
    if len(text.strip().lstrip("+-").lstrip("0")) > MAX_INT_DIGITS:
        raise BoundError(f"integer of more than {MAX_INT_DIGITS} digits")
    return int(text)


def finite_int(value: float) -> int:
    """A float as an integer; infinity and NaN are a ``BoundError``."""
    if not math.isfinite(value):
        raise BoundError("not a finite number")
    return int(value)


class _Over(RelialintError):
    """A substitution past the budget: the value being built is unknown."""


def sub(pattern: re.Pattern[str], replace: Callable[[re.Match[str]], str], text: str) -> str | None:
    """The one bounded substitution: ``pattern.sub(replace, text)`` with each replacement charged to the file's
    budget (``charge``); ``None`` (the value is unknown) when a replacement or the result would pass a bound."""

    def one(match: re.Match[str]) -> str:
        out = replace(match)
        if not charge(len(out)):
            raise _Over
        return out

    try:
        result = pattern.sub(one, text)
    except _Over:
        return None
    return result if within(len(result)) else None


def within(length: int) -> bool:
    """Whether a value built from substitutions may be kept (``MAX_EXPANDED``); past it the value is unknown."""
    if length <= MAX_EXPANDED:
        return True
    budget = _BUDGET.get()
    if budget is not None:
        budget.exceeded = True
    return False


class Budget:
    """The expansion budget of one file (and the files it reads: a ``.env``, a built Dockerfile)."""

    def __init__(self) -> None:
        self.substitutions = 0
        self.characters = 0
        self.exceeded = False


_BUDGET: ContextVar[Budget | None] = ContextVar("relialint_expansion_budget", default=None)


def charge(length: int) -> bool:
    """Count one substitution of a value of ``length`` characters; ``False`` when it must not be made (the value it
    would give is then unknown): the value is longer than ``MAX_EXPANDED``, or the file has spent its budget of
    ``MAX_SUBSTITUTIONS`` substitutions or ``MAX_EXPANDED_TOTAL`` substituted characters."""
    budget = _BUDGET.get()
    if budget is None:
        return length <= MAX_EXPANDED
    budget.substitutions += 1
    budget.characters += length
    if length > MAX_EXPANDED or budget.substitutions > MAX_SUBSTITUTIONS or budget.characters > MAX_EXPANDED_TOTAL:
        budget.exceeded = True
        return False
    return True


EXPANSION_WARNING = (f"variable expansion past its bound (values over {MAX_EXPANDED} characters, more than "
                     f"{MAX_SUBSTITUTIONS} substitutions or {MAX_EXPANDED_TOTAL} characters in all); the values "
                     "involved are unknown")


def run_budgeted(read: Callable[..., R], *args: Any, **kwargs: Any) -> tuple[R, bool]:
    """``read(*args, **kwargs)`` with a fresh expansion budget (unless one is already running: a file read by another
    shares its budget), and whether that budget was exceeded (``readers.bounded.budgeted`` reports it)."""
    if _BUDGET.get() is not None:
        return read(*args, **kwargs), False
    budget = Budget()
    token = _BUDGET.set(budget)
    try:
        result = read(*args, **kwargs)
    finally:
        _BUDGET.reset(token)
    return result, budget.exceeded


MAX_MATCH_SUBJECT = 4096
"""The longest value a record's ``matches:`` pattern is run against; a longer value leaves the test unknown."""


def regex_problem(pattern: str) -> str | None:
    """Why a record's ``matches:`` pattern is not in the safe subset (``None``: it is), checked without running it.

    The safe subset has no backreference and no repeated group (``*``, ``+``, ``{n,}``, ``{n,m}`` with m > 1) that
    itself holds a repetition or an alternation (``(a+)+``, ``(a|aa)*``): those are what make a backtracking
    engine take exponential time. Everything else (classes, anchors, lookarounds, lazy quantifiers) is kept."""
    groups: list[bool] = [False]  # per open group: whether it holds a repetition or an alternation
    last_group: bool | None = None  # the group just closed: whether it was risky (None: last atom not a group)
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        atom_group: bool | None = None
        if char == "\\":
            if i + 1 < n and (pattern[i + 1] in "123456789" or pattern[i + 1] == "g"):
                return "a backreference"
            i += 2
        elif char == "[":
            i += 1
            if i < n and pattern[i] == "^":
                i += 1
            if i < n and pattern[i] == "]":
                i += 1
            while i < n and pattern[i] != "]":
                i += 2 if pattern[i] == "\\" else 1
            i += 1
        elif char == "(":
            if pattern.startswith("(?P=", i):
                return "a backreference"
            groups.append(False)
            i += 1
        elif char == ")":
            if len(groups) == 1:
                return "an unbalanced parenthesis"
            atom_group = groups.pop()
            groups[-1] = groups[-1] or atom_group
            i += 1
        elif char == "|":
            groups[-1] = True
            i += 1
        elif char in "*+?{":
            repeats = char in "*+"
            if char == "{":
                close = pattern.find("}", i)
                body = pattern[i + 1 : close] if close > 0 else ""
                if close < 0 or not re.fullmatch(r"\d*(,\d*)?", body):
                    i += 1
                    last_group = None
                    continue
                low, _, high = body.partition(",")
                most = (high or "2") if "," in body else (low or "0")
                repeats = len(most) > 1 or int(most) > 1
                i = close + 1
            else:
                i += 1
            if i < n and pattern[i] in "?+":
                i += 1
            if repeats and last_group:
                return "a repeated group that itself repeats or alternates (catastrophic backtracking)"
            groups[-1] = True
            last_group = None
            continue
        else:
            i += 1
        last_group = atom_group
    if len(groups) != 1:
        return "an unbalanced parenthesis"
    return None
