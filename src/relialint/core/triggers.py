"""Triggers compiled once, when records are loaded, into a small typed tree.

A record's ``trigger`` is YAML: ``when`` (a predicate of ``all``/``any``/``not`` over leaves ``{fact: KEY, OP: ARG}``),
``affected`` (OSV-style version ranges) and ``locate``. :func:`compile_trigger` turns it into immutable nodes
(:class:`Leaf`, :class:`All`, :class:`Any`, :class:`Not`, :class:`Range`, held by a :class:`Trigger`) whose operands,
regular expressions and version bounds are parsed once, and which carry what the linter used to recompute with a
walker of its own each time: the keys a trigger reads, its leaves, the versions it names.

A leaf that does not compile keeps its error: evaluating it raises :class:`PredicateError`, exactly where evaluating
the dict raised before (an ``all`` that stops at an earlier false part never reaches it), and its :attr:`problems`
are what ``relialint validate`` reports, located. Nodes compare and hash by identity: two compilations of one dict
are two triggers, so a memo keyed by a node can never answer for a record that changed.

:func:`leaves` is the one walk of the tree (each leaf with its location and polarity); every reader of triggers
(worlds, findings, kb validate and describe, the site) goes through it or through what a :class:`Trigger` holds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any as AnyType
from typing import NamedTuple

from relialint.base.bounds import regex_problem
from relialint.base.errors import RelialintError
from relialint.core.facts import FactValueError, Value, parse_value, spec_for
from relialint.core.versions import Version, VersionError, parse_in_family, parse_version

Loc = tuple[str | int, ...]
"""A place inside a trigger's ``when`` (``("all", 0, "not")``), as ``relialint validate`` locates problems."""

LocatedProblem = tuple[Loc, str, str]
"""``(location under the node, KB code, message)``."""

COMPARISONS = frozenset({"eq", "ne", "lt", "le", "gt", "ge"})
RANGE_BOUNDS = ("introduced", "fixed", "last_affected", "last_known_good")


class PredicateError(RelialintError, ValueError):
    """A predicate that is not well formed (caught by ``relialint validate`` before it reaches a user)."""


_setattr = object.__setattr__


class _Node:
    """Immutable after ``__init__``; equality and hashing by identity (a memo key that stays this node's)."""

    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _set(self, **fields: object) -> None:
        for name, value in fields.items():
            _setattr(self, name, value)


class Leaf(_Node):
    """``{fact: key, op: arg}``: ``operand`` is ``arg`` parsed for the fact's type (a tuple for ``in``/``not_in``,
    a compiled pattern for ``matches``). ``error``: why the leaf does not compile (raised when it is evaluated);
    ``problems``: what ``validate`` reports about it, under ``loc`` (found when compiled ``checked``)."""

    __slots__ = ("arg", "error", "key", "loc", "op", "operand", "problems")
    key: str
    op: str
    arg: AnyType
    operand: AnyType
    error: str | None
    loc: Loc
    problems: tuple[LocatedProblem, ...]

    def __init__(self, key: str, op: str, arg: AnyType, operand: AnyType, error: str | None, loc: Loc,
                 problems: tuple[LocatedProblem, ...]) -> None:
        _setattr(self, "key", key)  # (one call a field: a leaf is made for every leaf of every record loaded)
        _setattr(self, "op", op)
        _setattr(self, "arg", arg)
        _setattr(self, "operand", operand)
        _setattr(self, "error", error)
        _setattr(self, "loc", loc)
        _setattr(self, "problems", problems)

    def __repr__(self) -> str:
        return f"Leaf({self.key!r} {self.op} {self.arg!r})"


class All(_Node):
    __slots__ = ("parts",)
    parts: tuple[Predicate, ...]

    def __init__(self, parts: tuple[Predicate, ...]) -> None:
        self._set(parts=parts)


class Any(_Node):
    __slots__ = ("parts",)
    parts: tuple[Predicate, ...]

    def __init__(self, parts: tuple[Predicate, ...]) -> None:
        self._set(parts=parts)


class Not(_Node):
    __slots__ = ("part",)
    part: Predicate

    def __init__(self, part: Predicate) -> None:
        self._set(part=part)


class Invalid(_Node):
    """Something that is no predicate (no ``all``/``any``/``not``/``fact``): evaluating it raises."""

    __slots__ = ("error",)
    error: str

    def __init__(self, error: str) -> None:
        self._set(error=error)


Predicate = Leaf | All | Any | Not | Invalid


class Bounds(NamedTuple):
    """A range's bounds read in one family of version schemes (PEP 440, or builds and releases): ``error``, the first
    bound that does not parse in it (raised when the range is evaluated against a version of that family)."""

    observed: tuple[Version, ...]
    introduced: Version | None
    fixed: Version | None
    last_affected: Version | None
    last_known_good: Version | None
    error: str | None


def _bounds(raw: Mapping[str, AnyType], builds: bool) -> Bounds:
    parsed: dict[str, Version | None] = {}
    errors: list[str] = []
    for name in RANGE_BOUNDS:
        parsed[name] = None
        if raw.get(name):
            try:
                parsed[name] = _in_family(builds, str(raw[name]))
            except VersionError as exc:
                errors.append(str(exc))
    observed: list[Version] = []
    observed_error: str | None = None
    for text in raw.get("observed") or []:
        try:
            observed.append(_in_family(builds, str(text)))
        except VersionError as exc:
            if text and observed_error is None:  # an empty one is no bound to evaluation
                observed_error = str(exc)
    # the error evaluation raises: the first bound that does not parse, observed ones first (as read before)
    return Bounds(tuple(observed), parsed["introduced"], parsed["fixed"], parsed["last_affected"],
                  parsed["last_known_good"], observed_error or next(iter(errors), None))


class Range(_Node):
    """One affected range of an engine's versions, its bounds parsed once in each family of schemes (the core knows
    schemes, not which engine writes which: a range is read in the family of the deployment's version, and
    ``relialint validate`` checks each bound in its engine's own scheme). ``weak``: the bounds no released code
    shows; ``older_unchecked``: the code already holds on the oldest release the witness read."""

    __slots__ = ("builds", "engine", "older_unchecked", "pep440", "weak")
    engine: str
    pep440: Bounds
    builds: Bounds
    weak: frozenset[str]
    older_unchecked: bool

    def __init__(self, raw: Mapping[str, AnyType]) -> None:
        witness = raw.get("witness")
        weak = frozenset(RANGE_BOUNDS) if not witness else frozenset(witness.get("unwitnessed") or ())
        self._set(engine=str(raw["engine"]), pep440=_bounds(raw, False), builds=_bounds(raw, True), weak=weak,
                  older_unchecked=bool((witness or {}).get("older_unchecked")))

    def read_as(self, builds: bool) -> Bounds:
        """The bounds in the family of a deployment's version (``builds``: a build or a release)."""
        return self.builds if builds else self.pep440


class Trigger(_Node):
    """A record's trigger, compiled: the predicate, the ranges, the ``locate`` keys, and what the worlds and the
    findings read of it, computed once: ``keys`` (every fact it reads; ``engine.name`` and ``engine.version`` too
    where it has ranges), ``ordered_keys`` (sorted), ``leaves`` (in order) and ``literals`` (every version it
    compares ``engine.version`` with)."""

    __slots__ = ("affected", "keys", "leaves", "literals", "locate", "ordered_keys", "when")
    when: Predicate
    affected: tuple[Range, ...]
    locate: tuple[str, ...]
    keys: frozenset[str]
    ordered_keys: tuple[str, ...]
    leaves: tuple[Leaf, ...]
    literals: tuple[Version, ...]

    def __init__(self, when: Predicate, affected: tuple[Range, ...], locate: tuple[str, ...],
                 literals: tuple[Version, ...]) -> None:
        found = tuple(leaf for leaf, _ in leaves(when))
        keys = {leaf.key for leaf in found if leaf.key}
        if affected:
            keys.update(("engine.name", "engine.version"))
        self._set(when=when, affected=affected, locate=locate, leaves=found, literals=literals,
                  keys=frozenset(keys), ordered_keys=tuple(sorted(keys)))


# -- the one walk ---------------------------------------------------------------------------------------------------


def leaves(node: Predicate, positive: bool = True) -> Iterator[tuple[Leaf, bool]]:
    """Every leaf under ``node`` in order, with its polarity (``False`` under an odd number of ``not``). Each leaf
    knows its own location (:attr:`Leaf.loc`)."""
    if isinstance(node, Leaf):
        yield node, positive
    elif isinstance(node, All | Any):
        for part in node.parts:
            yield from leaves(part, positive)
    elif isinstance(node, Not):
        yield from leaves(node.part, not positive)


# -- compiling ------------------------------------------------------------------------------------------------------


def compile_trigger(raw: Mapping[str, AnyType], checked: bool = False) -> Trigger:
    """A record's ``trigger`` (or ``runtime_trigger``) as a :class:`Trigger`. Never raises for a malformed
    predicate or range: the error stays on the node (see the module's docstring). ``checked``: also find every
    problem ``relialint validate`` reports (:attr:`Leaf.problems`; a run needs only the errors)."""
    when = compile_predicate(raw.get("when") or {}, (), checked)
    affected = tuple(Range(r) for r in raw.get("affected") or [])
    return Trigger(when, affected, tuple(str(k) for k in raw.get("locate") or []), _literals(raw))


def compile_predicate(raw: AnyType, loc: Loc = (), checked: bool = False) -> Predicate:
    if isinstance(raw, Mapping):
        for junction, cls in (("all", All), ("any", Any)):
            if junction in raw:
                return cls(tuple(compile_predicate(p, (*loc, junction, i), checked)
                                 for i, p in enumerate(raw[junction])))
        if "not" in raw:
            return Not(compile_predicate(raw["not"], (*loc, "not"), checked))
        return _leaf(raw, loc, checked)
    return Invalid(f"not a predicate: {raw!r}")


def _leaf(raw: Mapping[str, AnyType], loc: Loc, checked: bool) -> Leaf:
    ops = [op for op in raw if op != "fact"]
    op = ops[0] if ops else ""
    arg = raw.get(op)
    if "fact" not in raw:
        return Leaf("", op, arg, None, f"not a predicate: {sorted(raw)}", loc,
                    ((("fact",), "KB006", "fact '' is not in the vocabulary"),))
    key = raw["fact"]
    operand: AnyType = None
    error: str | None = None
    try:
        operand = _operand_of(key, ops, op, arg)
    except PredicateError as exc:
        error = str(exc)
    return Leaf(str(key), op, arg, operand, error, loc, _problems(raw) if checked else ())


def _operand_of(key: str, ops: list[str], op: str, arg: AnyType) -> AnyType:
    if len(ops) != 1:
        raise PredicateError(f"leaf on {key!r} needs exactly one operator, got {ops}")
    if op in COMPARISONS:
        return _operand(key, arg)
    if op in ("in", "not_in"):
        if not isinstance(arg, list):
            raise PredicateError(f"{op} on {key!r} takes a list")
        return tuple(_operand(key, item) for item in arg)
    if op == "matches":
        return regex(str(arg))
    if op != "present":
        raise PredicateError(f"unknown operator {op!r}")
    return None


def _problems(raw: Mapping[str, AnyType]) -> tuple[LocatedProblem, ...]:
    """What ``relialint validate`` says of one leaf: an unknown fact (KB006), an operand its type does not take
    (KB006, KB007 for versions and compute capabilities), a pattern that does not compile (KB012)."""
    key = raw.get("fact", "")
    spec = spec_for(key)
    if spec is None:
        return ((("fact",), "KB006", f"fact {key!r} is not in the vocabulary"),)
    problems: list[LocatedProblem] = []
    for op, value in raw.items():
        if op in ("fact", "present"):
            continue
        if op == "matches":
            try:
                re.compile(str(value))
            except re.error as exc:
                problems.append(((op,), "KB012", f"invalid regular expression: {exc}"))
            continue
        for item in value if isinstance(value, list) else [value]:
            try:
                parse_value(spec, item)
            except FactValueError as exc:
                problems.append(((op,), "KB007" if spec.type in ("version", "sm") else "KB006", str(exc)))
    return tuple(problems)


@lru_cache(maxsize=4096)
def _parse_operand(key: str, raw: AnyType) -> Value:
    spec = spec_for(key)
    if spec is None:
        raise PredicateError(f"unknown fact {key!r}")
    return parse_value(spec, raw)


def _operand(key: str, raw: AnyType) -> Value:
    try:
        return _parse_operand(key, raw)
    except FactValueError as exc:
        raise PredicateError(str(exc)) from exc


@lru_cache(maxsize=1024)
def regex(pattern: str) -> re.Pattern[str]:
    """A ``matches`` pattern, compiled once; one that could take super-linear time is refused."""
    problem = regex_problem(pattern)
    if problem is not None:
        raise PredicateError(f"regular expression {pattern!r} has {problem}")
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise PredicateError(f"invalid regular expression {pattern!r}: {exc}") from exc


@lru_cache(maxsize=1024)
def _in_family(builds: bool, text: str) -> Version:
    return parse_in_family(builds, text)


def _literals(raw: Mapping[str, AnyType]) -> tuple[Version, ...]:
    """Every version the trigger compares ``engine.version`` with, in its leaves and its affected ranges, parsed
    without an engine's scheme (what the version worlds are split by)."""
    texts: list[str] = []

    def walk(pred: AnyType) -> None:
        if isinstance(pred, dict):
            if pred.get("fact") == "engine.version":
                for op, value in pred.items():
                    if op != "fact":
                        texts.extend(str(v) for v in (value if isinstance(value, list) else [value]))
            for value in pred.values():
                walk(value)
        elif isinstance(pred, list):
            for item in pred:
                walk(item)

    walk(raw.get("when"))
    for rng in raw.get("affected") or []:
        texts.extend(str(rng[k]) for k in RANGE_BOUNDS if rng.get(k))
        texts.extend(str(o) for o in rng.get("observed") or [])
    return tuple(v for v in map(_plain_version, dict.fromkeys(texts)) if v is not None)


@lru_cache(maxsize=1024)
def _plain_version(text: str) -> Version | None:
    try:
        return parse_version(text)
    except VersionError:
        return None


# -- records --------------------------------------------------------------------------------------------------------

TRIGGER_FIELDS = ("trigger", "runtime_trigger")


class CompiledRecord(dict[str, AnyType]):
    """A loaded record: its plain data (the fields, as before: prose, fix, examples; still JSON, still a dict) and,
    beside them, its triggers compiled (``triggers``, by field name). A copy made with ``{**record}`` or ``dict()``
    is a plain dict again, without them: a record changed by hand is compiled again where it is evaluated."""

    __slots__ = ("triggers",)

    def __init__(self, data: Mapping[str, AnyType], triggers: Mapping[str, Trigger]) -> None:
        super().__init__(data)
        self.triggers = triggers


def attach(records: list[dict[str, AnyType]], text: str | None = None) -> list[dict[str, AnyType]]:
    """The records with their triggers compiled when they are loaded (:class:`CompiledRecord`). ``text``: the
    records' JSON (the loader's cache entry), when ``records`` is what it reads: their triggers are then compiled
    once per process for that text. Every run of a process (the corpus report, the language server, one run per
    buffer) loads the records again, and compiled nodes are immutable, so the runs share them; records whose
    files changed are another text, compiled anew."""
    if text is None:
        compiled = [_compile_record(record) for record in records]
    else:
        compiled = list(_compiled_text(text))
        if len(compiled) != len(records):  # (never: the text is what was read) compile these records instead
            compiled = [_compile_record(record) for record in records]
    return [CompiledRecord(record, dict(triggers)) for record, triggers in zip(records, compiled, strict=True)]


def _compile_record(record: Mapping[str, AnyType]) -> tuple[tuple[str, Trigger], ...]:
    return tuple((name, compile_trigger(record[name])) for name in TRIGGER_FIELDS if record.get(name))


@lru_cache(maxsize=4)
def _compiled_text(text: str) -> tuple[tuple[tuple[str, Trigger], ...], ...]:
    """The triggers of the records a JSON text holds, compiled (a pure function of the text: caching it keeps no
    state). Each record's own dicts are parsed here, apart from the caller's: nothing it changes reaches them."""
    records = json.loads(text)
    return tuple(_compile_record(record) for record in records) if isinstance(records, list) else ()


def of(record: Mapping[str, AnyType], name: str = "trigger") -> Trigger | None:
    """A record's compiled trigger: the one it was loaded with, else compiled now (the site, a record built by
    hand); ``None`` when it has none."""
    found = attached(record, name)
    if found is not None:
        return found
    raw = record.get(name)
    return compile_trigger(raw) if raw else None


def attached(record: Mapping[str, AnyType], name: str = "trigger") -> Trigger | None:
    """The compiled trigger a loaded record carries (:func:`attach`); ``None`` for a record built by hand."""
    return record.triggers.get(name) if isinstance(record, CompiledRecord) else None
