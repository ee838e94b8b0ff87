"""Kleene three-valued evaluation of triggers over facts, and OSV-style affected version ranges.

Predicates are evaluated in their compiled form (:mod:`relialint.core.triggers`: operands, patterns and version bounds
parsed once, when the records are loaded), so the linter's hot path needs no pydantic and parses nothing twice. A
dict is still taken where a caller has one (it is compiled on the spot).

``True``/``False`` are known verdicts; ``None`` is unknown. ``all``: any false gives false, else any unknown gives
unknown, else true. ``any`` is the dual. ``not`` keeps unknown.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from relialint.base.bounds import MAX_MATCH_SUBJECT
from relialint.base.plain import Frozen
from relialint.core.facts import Fact, Value, Withheld, render, shown
from relialint.core.triggers import (
    All,
    Leaf,
    Not,
    Predicate,
    PredicateError,
    Range,
    Trigger,
    compile_predicate,
    compile_trigger,
)
from relialint.core.triggers import Any as AnyOf
from relialint.core.versions import BUILD_FAMILY, Version, VersionBound

__all__ = ["FALSE", "TRUE", "PredicateError", "Tri", "Verdict", "eval_affected", "eval_leaf", "eval_predicate",
           "eval_range", "eval_trigger", "kleene_and", "kleene_not", "kleene_or"]

Tri = bool | None


if TYPE_CHECKING:  # a Protocol class costs start-up time; only the type checker needs it

    class FactView(Protocol):
        """What the evaluator reads: a deployment's ``FactSet``, or one possible world laid over it."""

        def get(self, key: str) -> Fact | None: ...


class Verdict(Frozen):
    """A three-valued result and, when unknown, the facts whose absence made it so."""

    value: Tri
    missing: frozenset[str] = frozenset()
    notes: tuple[str, ...] = ()

    _fields = ("value", "missing", "notes")

    def __init__(self, value: Tri, missing: frozenset[str] = frozenset(), notes: tuple[str, ...] = ()) -> None:
        self.value = value
        self.missing = missing
        self.notes = notes


TRUE = Verdict(True)
FALSE = Verdict(False)


def _junction(verdicts: list[Verdict], dominant: bool) -> Verdict:
    """``all`` (dominant ``False``) or ``any`` (dominant ``True``): the dominant value decides, else any unknown
    makes the result unknown (naming every fact the unknown parts miss), else the other value."""
    if any(v.value is dominant for v in verdicts):
        return Verdict(dominant)
    unknown = [v for v in verdicts if v.value is None]
    if unknown:
        return Verdict(None, frozenset().union(*(v.missing for v in unknown)),
                       tuple(n for v in unknown for n in v.notes))
    return Verdict(not dominant)


def kleene_and(verdicts: list[Verdict]) -> Verdict:
    return _junction(verdicts, dominant=False)


def kleene_or(verdicts: list[Verdict]) -> Verdict:
    return _junction(verdicts, dominant=True)


def kleene_not(verdict: Verdict) -> Verdict:
    if verdict.value is None:
        return verdict
    return FALSE if verdict.value else TRUE


def _equal(a: Value, b: Value) -> Tri:
    if isinstance(a, VersionBound) and isinstance(b, Version):
        return False if a.order(b) is not None else None
    if isinstance(a, Version) and isinstance(b, Version):
        return a == b if a.comparable(b) else None
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b if isinstance(a, bool) and isinstance(b, bool) else False
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return render(a).lower() == render(b).lower()


def _order(a: Value, b: Value) -> int | None:
    """-1, 0, 1, or ``None`` when the two do not compare."""
    if isinstance(a, VersionBound) and isinstance(b, Version):
        return a.order(b)
    if isinstance(a, Version) and isinstance(b, Version):
        if not a.comparable(b):
            return None
        return -1 if a < b else (1 if b < a else 0)
    if isinstance(a, bool) or isinstance(b, bool):
        return None
    if isinstance(a, int | float) and isinstance(b, int | float):
        return -1 if a < b else (1 if a > b else 0)
    return None


@lru_cache(maxsize=4096)
def _unknown(key: str) -> Verdict:
    return Verdict(None, frozenset({key}))


def eval_leaf(leaf: Leaf | Mapping[str, Any], facts: FactView) -> Verdict:
    """One leaf (a compiled :class:`~relialint.core.triggers.Leaf`, or a leaf's dict, compiled here)."""
    if type(leaf) is not Leaf:
        node = compile_predicate(leaf)
        if not isinstance(node, Leaf):
            return eval_predicate(node, facts)
        leaf = node
    if leaf.error is not None:
        raise PredicateError(leaf.error)
    key, op, arg, operand = leaf.key, leaf.op, leaf.arg, leaf.operand
    fact: Fact | None = facts.get(key)
    if fact is None:
        return _unknown(key)
    value = fact.value
    if op == "present":
        return TRUE if (value is not None) == bool(arg) else FALSE
    if isinstance(value, Withheld):
        return _unknown(key)  # set, but its value is not in the files
    if value is None:
        return TRUE if op in ("ne", "not_in") else FALSE
    if op in ("eq", "ne"):
        result = _equal(value, operand)
        if result is None:
            return Verdict(None, frozenset({key}), (f"{key}={shown(key, value)} does not compare with {arg!r}",))
        return TRUE if result == (op == "eq") else FALSE
    if op in ("in", "not_in"):
        results = [_equal(value, item) for item in operand]
        if any(r is True for r in results):
            hit: Tri = True
        elif any(r is None for r in results):
            hit = None
        else:
            hit = False
        if hit is None:
            return _unknown(key)
        return TRUE if hit == (op == "in") else FALSE
    if op in ("lt", "le", "gt", "ge"):
        order = _order(value, operand)
        if order is None:
            return Verdict(None, frozenset({key}), (f"{key}={shown(key, value)} does not compare with {arg!r}",))
        return TRUE if {"lt": order < 0, "le": order <= 0, "gt": order > 0, "ge": order >= 0}[op] else FALSE
    subject = render(value)
    if len(subject) > MAX_MATCH_SUBJECT:
        return Verdict(None, frozenset({key}),
                       (f"{key} is longer than {MAX_MATCH_SUBJECT} characters; not matched",))
    return TRUE if operand.search(subject) is not None else FALSE


def _lazy(parts: tuple[Predicate, ...], facts: FactView, dominant: bool) -> Verdict:
    """``all``/``any`` evaluated in order, stopping at the first dominant verdict (the same result as
    :func:`_junction` over every part, without evaluating the parts that cannot change it)."""
    unknown: list[Verdict] = []
    for part in parts:
        verdict = eval_predicate(part, facts)
        if verdict.value is dominant:
            return TRUE if dominant else FALSE
        if verdict.value is None:
            unknown.append(verdict)
    return _junction(unknown, dominant) if unknown else (FALSE if dominant else TRUE)


def eval_predicate(pred: Predicate | Mapping[str, Any], facts: FactView) -> Verdict:
    """A compiled predicate (or a predicate's dict, compiled here: tests and one-off callers) over ``facts``."""
    kind = type(pred)
    if kind is Leaf:
        return eval_leaf(pred, facts)  # type: ignore[arg-type]
    if kind is All:
        return _lazy(pred.parts, facts, dominant=False)  # type: ignore[union-attr]
    if kind is AnyOf:
        return _lazy(pred.parts, facts, dominant=True)  # type: ignore[union-attr]
    if kind is Not:
        return kleene_not(eval_predicate(pred.part, facts))  # type: ignore[union-attr]
    if isinstance(pred, Mapping):
        return eval_predicate(compile_predicate(pred), facts)
    raise PredicateError(pred.error)  # type: ignore[union-attr]


def eval_range(rng: Range | Mapping[str, Any], facts: FactView) -> Verdict:
    """One affected range: is the deployment's engine version in it?"""
    if not isinstance(rng, Range):
        rng = Range(rng)
    engine = rng.engine
    name = facts.get("engine.name")
    if name is None or name.value is None:
        return Verdict(None, frozenset({"engine.name"}))
    if str(name.value) != engine:
        return FALSE
    fact = facts.get("engine.version")
    if fact is None or not isinstance(fact.value, Version | VersionBound):
        return Verdict(None, frozenset({"engine.version"}))
    version = fact.value
    builds = (version.edge if isinstance(version, VersionBound) else version).scheme in BUILD_FAMILY
    read = rng.read_as(builds)
    if read.error is not None:
        raise PredicateError(read.error)
    observed = read.observed
    introduced, fixed, last_affected, last_good = read.introduced, read.fixed, read.last_affected, read.last_known_good
    bounds = [b for b in (*observed, introduced, fixed, last_affected, last_good) if b is not None]
    if any(not b.comparable(version.edge if isinstance(version, VersionBound) else version) for b in bounds):
        return Verdict(None, frozenset({"engine.version"}), (f"engine.version {version} is not a {engine} version",))
    orders = {b: _order(version, b) for b in bounds}
    if any(o is None for o in orders.values()):
        return Verdict(None, frozenset({"engine.version"}))  # a version beyond the tables, on the far side

    def below(b: Version) -> bool:
        return orders[b] == -1

    weak = rng.weak
    if any(orders[o] == 0 for o in observed):
        return TRUE
    if fixed is not None and not below(fixed):
        return _clean_unless("fixed" in weak, version, f"at or after {fixed}, where no released code shows the fix")
    if last_good is not None and orders[last_good] <= 0:  # type: ignore[operator]
        return _clean_unless("last_known_good" in weak, version,
                             f"at or before {last_good}, which no released code shows unaffected")
    first_bad = introduced or (min(observed) if observed else None)
    if introduced is not None and below(introduced) and last_good is None:
        return _clean_unless("introduced" in weak or rng.older_unchecked, version,
                             f"older than {introduced}, the first version known affected; older ones were not checked")
    if first_bad is not None and below(first_bad):
        return _unknown_version(version, f"between the last version known good and {first_bad}")
    if introduced is None:
        return _unknown_version(version, "not among the versions the source measured")
    if last_affected is not None and orders[last_affected] > 0:  # type: ignore[operator]
        return _unknown_version(version, f"after {last_affected}, the last version known affected; no fix known")
    upper = "last_affected" if last_affected is not None else ("fixed" if fixed is not None else None)
    if upper is None:
        return _unknown_version(version, f"after {introduced}; no later version was checked")
    if "introduced" in weak or upper in weak:
        return _unknown_version(version, f"in {introduced}-{last_affected or fixed}, a range no released code shows")
    return TRUE


def _clean_unless(weak: bool, version: Version | VersionBound, why: str) -> Verdict:
    return _unknown_version(version, why) if weak else FALSE


def _unknown_version(version: Version | VersionBound, why: str) -> Verdict:
    return Verdict(None, frozenset(), (f"engine.version {version} is {why}",))


def eval_affected(ranges: tuple[Range, ...] | list[Mapping[str, Any]], facts: FactView) -> Verdict:
    if not ranges:
        return TRUE
    return kleene_or([eval_range(r, facts) for r in ranges])


def eval_trigger(trigger: Trigger | Mapping[str, Any], facts: FactView) -> Verdict:
    """The record fires definitely (True), possibly (None) or not at all (False)."""
    if not isinstance(trigger, Trigger):
        trigger = compile_trigger(trigger)
    when = eval_predicate(trigger.when, facts)
    if when.value is False:
        return FALSE
    return kleene_and([when, eval_affected(trigger.affected, facts)])
