"""Triggers compiled at load (``relialint.core.triggers``) and the memo of one run (``relialint.core.evaluator``): the
compiled evaluation gives what a plain reading of the dict form gives, two evaluators share nothing, and no module of
``src/`` keeps mutable state at module level."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relialint.core.evaluate import PredicateError, Verdict, eval_predicate, eval_trigger
from relialint.core.evaluator import Evaluator
from relialint.core.facts import Fact, FactSet
from relialint.core.findings import evaluate
from relialint.core.triggers import CompiledRecord, Leaf, Trigger, compile_predicate, compile_trigger, leaves
from relialint.core.worlds import Worlds, judge
from relialint.kb.loader import compiled, shipped_dir

SRC = Path(__file__).resolve().parents[1] / "src" / "relialint"

# -- the compiled evaluation against a reference reading of the dict ------------------------------------------------

Ref = tuple[bool | None, frozenset[str], tuple[str, ...]]
"""A verdict as the reference evaluator gives it: value, missing facts, notes."""

STRINGS = ["cuda", "CUDA", "hip", "rocm", "a+b"]
KEYS = {"env.VLLM_X": "string", "model.name": "string", "gpu.count": "int", "gpu.native_fp8": "bool"}


def _same(key: str, a: Any, b: Any) -> bool:
    if KEYS[key] == "string":
        return str(a).lower() == str(b).lower()
    if KEYS[key] == "bool":
        return a is b
    return bool(a == b)


def _ref_leaf(leaf: dict[str, Any], facts: dict[str, Any]) -> Ref:
    key = leaf["fact"]
    (op,) = [k for k in leaf if k != "fact"]
    arg = leaf[op]
    if key not in facts:
        return None, frozenset({key}), ()
    value = facts[key]
    if op == "present":
        return (value is not None) == arg, frozenset(), ()
    if value is None:
        return op in ("ne", "not_in"), frozenset(), ()
    if op == "eq":
        return _same(key, value, arg), frozenset(), ()
    if op == "ne":
        return not _same(key, value, arg), frozenset(), ()
    if op == "in":
        return any(_same(key, value, a) for a in arg), frozenset(), ()
    if op == "not_in":
        return not any(_same(key, value, a) for a in arg), frozenset(), ()
    if op == "lt":
        return value < arg, frozenset(), ()
    if op == "ge":
        return value >= arg, frozenset(), ()
    return re.search(arg, str(value)) is not None, frozenset(), ()  # matches


def reference(pred: dict[str, Any], facts: dict[str, Any]) -> Ref:
    """Kleene logic read off the dict, every part evaluated (no short cut): the definition, not the engine."""
    for junction, dominant in (("all", False), ("any", True)):
        if junction in pred:
            parts = [reference(p, facts) for p in pred[junction]]
            if any(v is dominant for v, _, _ in parts):
                return dominant, frozenset(), ()
            unknown = [p for p in parts if p[0] is None]
            if unknown:
                return None, frozenset().union(*(m for _, m, _ in unknown)), tuple(n for _, _, ns in unknown
                                                                                    for n in ns)
            return not dominant, frozenset(), ()
    if "not" in pred:
        value, missing, notes = reference(pred["not"], facts)
        return (None, missing, notes) if value is None else (not value, frozenset(), ())
    return _ref_leaf(pred, facts)


def _leaf_strategy() -> st.SearchStrategy[dict[str, Any]]:
    string = st.sampled_from(STRINGS)
    count = st.integers(0, 4)
    return st.one_of(
        st.builds(lambda k, op, v: {"fact": k, op: v}, st.sampled_from(["env.VLLM_X", "model.name"]),
                  st.sampled_from(["eq", "ne"]), string),
        st.builds(lambda k, op, v: {"fact": k, op: v}, st.sampled_from(["env.VLLM_X", "model.name"]),
                  st.sampled_from(["in", "not_in"]), st.lists(string, min_size=1, max_size=3)),
        st.builds(lambda k, v: {"fact": k, "matches": v}, st.sampled_from(["env.VLLM_X", "model.name"]),
                  st.sampled_from(["^cu", "o", "HIP", r"a\+b"])),
        st.builds(lambda op, v: {"fact": "gpu.count", op: v}, st.sampled_from(["eq", "ne", "lt", "ge"]), count),
        st.builds(lambda op, v: {"fact": "gpu.count", op: v}, st.sampled_from(["in", "not_in"]),
                  st.lists(count, min_size=1, max_size=3)),
        st.builds(lambda op, v: {"fact": "gpu.native_fp8", op: v}, st.sampled_from(["eq", "ne"]), st.booleans()),
        st.builds(lambda k, v: {"fact": k, "present": v}, st.sampled_from(sorted(KEYS)), st.booleans()),
    )


PREDICATES = st.recursive(
    _leaf_strategy(),
    lambda inner: st.one_of(st.builds(lambda ps: {"all": ps}, st.lists(inner, min_size=1, max_size=4)),
                            st.builds(lambda ps: {"any": ps}, st.lists(inner, min_size=1, max_size=4)),
                            st.builds(lambda p: {"not": p}, inner)),
    max_leaves=12,
)
ABSENT = object()
FACTS = st.fixed_dictionaries({
    "env.VLLM_X": st.one_of(st.just(ABSENT), st.none(), st.sampled_from(STRINGS)),
    "model.name": st.one_of(st.just(ABSENT), st.none(), st.sampled_from(STRINGS)),
    "gpu.count": st.one_of(st.just(ABSENT), st.none(), st.integers(0, 4)),
    "gpu.native_fp8": st.one_of(st.just(ABSENT), st.none(), st.booleans()),
})


@settings(max_examples=400, deadline=None)
@given(PREDICATES, FACTS)
def test_compiled_evaluation_equals_the_reference(pred: dict[str, Any], drawn: dict[str, Any]) -> None:
    known = {k: v for k, v in drawn.items() if v is not ABSENT}
    facts = FactSet()
    for key, value in known.items():
        facts.set(key, Fact(value, "cli"))
    node = compile_predicate(pred)
    got = eval_predicate(node, facts)
    assert (got.value, got.missing, got.notes) == reference(pred, known)
    # the trigger (no ranges) says the same, and its shape is the dict's
    trigger = compile_trigger({"when": pred})
    assert eval_trigger(trigger, facts).value is got.value
    assert trigger.keys == frozenset(_dict_keys(pred))
    assert [(leaf.key, leaf.op, leaf.arg) for leaf in trigger.leaves] == [
        (d["fact"], *next((op, v) for op, v in d.items() if op != "fact")) for d in _dict_leaves(pred)]


def _dict_leaves(pred: dict[str, Any]) -> list[dict[str, Any]]:
    for junction in ("all", "any"):
        if junction in pred:
            return [leaf for p in pred[junction] for leaf in _dict_leaves(p)]
    if "not" in pred:
        return _dict_leaves(pred["not"])
    return [pred]


def _dict_keys(pred: dict[str, Any]) -> set[str]:
    return {leaf["fact"] for leaf in _dict_leaves(pred)}


# -- compiling ------------------------------------------------------------------------------------------------------


def test_a_leaf_that_does_not_compile_raises_only_where_it_is_evaluated() -> None:
    bad = {"fact": "no.such_fact", "eq": 1}
    node = compile_predicate({"all": [{"fact": "gpu.count", "eq": 1}, bad]}, checked=True)
    facts = FactSet()
    facts.set("gpu.count", Fact(2, "cli"))
    assert eval_predicate(node, facts).value is False  # the first part decides: the bad leaf is never read
    facts.set("gpu.count", Fact(1, "cli"))
    with pytest.raises(PredicateError, match=r"unknown fact 'no\.such_fact'"):
        eval_predicate(node, facts)
    (_, leaf) = [leaf for leaf, _ in leaves(node)]
    assert leaf.loc == ("all", 1)
    assert leaf.problems == ((("fact",), "KB006", "fact 'no.such_fact' is not in the vocabulary"),)


def test_compile_errors_are_located_as_validate_reports_them() -> None:
    trigger = compile_trigger({"when": {"any": [{"fact": "env.VLLM_X", "matches": "("},
                                                {"not": {"fact": "gpu.sm", "ge": "nine"}}]},
                               "affected": [{"engine": "vllm", "introduced": "0.8.0", "fixed": "x.y"}]},
                              checked=True)
    assert [(leaf.loc, leaf.problems) for leaf in trigger.leaves] == [
        (("any", 0), ((("matches",), "KB012", "invalid regular expression: missing ), unterminated subpattern "
                                              "at position 0"),)),
        (("any", 1, "not"), ((("ge",), "KB007", trigger.leaves[1].problems[0][2]),)),
    ]
    assert [leaf.error is not None for leaf in trigger.leaves] == [True, True]
    # a bound is read in each family of schemes; its engine's own scheme is checked by validate (KB007)
    assert trigger.affected[0].read_as(False).error is not None and trigger.affected[0].read_as(True).error is not None
    assert [(positive, leaf.key) for leaf, positive in leaves(trigger.when)] == [
        (True, "env.VLLM_X"), (False, "gpu.sm")]


def test_compiled_nodes_are_immutable() -> None:
    trigger = compile_trigger({"when": {"fact": "gpu.count", "eq": 1}})
    with pytest.raises(AttributeError):
        trigger.keys = frozenset()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        trigger.leaves[0].op = "ne"  # type: ignore[misc]


def test_loaded_records_carry_their_compiled_triggers_and_stay_plain_data() -> None:
    import json

    records, problems = compiled([shipped_dir()])
    assert problems == []
    with_trigger = [r for r in records if r.get("trigger")]
    assert with_trigger and all(isinstance(r, CompiledRecord) and isinstance(r.triggers["trigger"], Trigger)
                                for r in with_trigger)
    assert json.loads(json.dumps(records[0])) == dict(records[0])  # still JSON, nothing added to the fields
    assert "triggers" not in records[0]


# -- the memo belongs to an evaluator ---------------------------------------------------------------------------------


def _no_gpu() -> Worlds:
    facts = FactSet()
    facts.set("engine.name", Fact("vllm", "cli"))
    return Worlds(None, facts, None, [])  # GPU worlds only: no engine, no version worlds


def test_two_evaluators_share_no_memo() -> None:
    trigger = compile_trigger({"when": {"fact": "gpu.native_fp8", "eq": True}})
    first, second = Evaluator(), Evaluator()
    verdict = judge(trigger, _no_gpu(), first)
    assert verdict.value is None and verdict.notes[0].startswith("holds on ")
    assert first.judged and first.gpu_classes
    assert not second.judged and not second.gpu_classes and not second.orders and not second.defaults_seen


def test_a_trigger_changed_between_two_runs_gives_the_new_result() -> None:
    """The same record dict, changed in place between two runs of one process: the second run (its own evaluator)
    judges the new trigger. (Module-level memos keyed by ``id()`` of the dict answered with the old one.)"""
    from relialint.core.deployment import Deployment
    from relialint.readers.located import Span

    record: dict[str, Any] = {
        "id": "RL999", "slug": "toy", "title": "toy", "severity": "warning", "fix": "none", "engines": ["vllm"],
        "trigger": {"when": {"fact": "gpu.native_fp8", "eq": True}, "message": "toy"}}
    facts = FactSet()
    facts.set("engine.name", Fact("vllm", "cli"))
    deployment = Deployment(engine="vllm", kind="shell", span=Span("serve.sh", 1, 1, 1, 1), facts=facts)
    (before,) = evaluate(deployment, [record], None, Evaluator())
    record["trigger"]["when"]["eq"] = False
    (after,) = evaluate(deployment, [record], None, Evaluator())
    held = re.search(r"holds on (\d+) of .*\((.*)\)", before.message)
    now = re.search(r"holds on (\d+) of .*\((.*)\)", after.message)
    assert held is not None and now is not None
    # FP8 GPUs first, then the others: the second run read the changed trigger
    assert (held.group(1), now.group(1)) == ("55", "46")  # the Jetson AGX Xavier row has no FP8
    assert held.group(2).startswith("L4, ") and now.group(2).startswith("V100, Jetson AGX Xavier, T4, ")


def test_the_memo_of_an_evaluator_is_bounded() -> None:
    evaluator = Evaluator(limit=16)
    worlds = _no_gpu()
    for n in range(200):
        judge(compile_trigger({"when": {"all": [{"fact": "gpu.native_fp8", "eq": True},
                                                {"fact": "model.name", "ne": f"x{n}"}]}}), worlds, evaluator)
    assert 0 < len(evaluator.judged) <= 16
    assert len(evaluator.gpu_classes) <= evaluator.small()


def test_a_verdict_from_a_dict_is_the_compiled_one() -> None:
    pred = {"any": [{"fact": "gpu.count", "ge": 2}, {"fact": "model.name", "matches": "^Qwen"}]}
    facts = FactSet()
    facts.set("gpu.count", Fact(1, "cli"))
    assert eval_predicate(pred, facts) == eval_predicate(compile_predicate(pred), facts) == \
        Verdict(None, frozenset({"model.name"}))
    assert isinstance(compile_predicate(pred).parts[0], Leaf)  # type: ignore[union-attr]


# -- no module-level mutable state in src/ --------------------------------------------------------------------------

_MUTATORS = frozenset({"append", "extend", "insert", "remove", "pop", "popitem", "clear", "update", "setdefault",
                       "add", "discard", "sort", "reverse"})
_CONTAINERS = (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)
_CONSTRUCTORS = frozenset({"dict", "list", "set", "defaultdict", "OrderedDict", "deque", "Counter"})
KNOWN_STATE = {
    # engines/model_name.py: the names read in this process, written to the on-disk cache once at exit (the list
    # only says whether the exit hook is registered yet). Not in this change's scope (the engines' helpers).
    ("engines/model_name.py", "_DIRTY"),
}


def _mutable(value: ast.expr | None) -> bool:
    return isinstance(value, _CONTAINERS) or (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _CONSTRUCTORS)


def module_state(path: Path) -> list[str]:
    """A module's mutable state: a module-level name bound to a mutable container that a function changes (a
    table filled while the module is imported and read after is a constant), one bound to an empty container (only
    a memo starts empty), and any ``global`` statement."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: dict[str, int] = {}
    found: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and _mutable(node.value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    names[target.id] = node.lineno
                    value = node.value
                    empty = (isinstance(value, ast.Dict) and not value.keys) or \
                        (isinstance(value, ast.List | ast.Set) and not value.elts) or \
                        (isinstance(value, ast.Call) and not value.args and not value.keywords)
                    if empty:
                        found.append(f"{target.id} (line {node.lineno}): an empty container at module level")
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Global):
                found.append(f"global {', '.join(node.names)} (line {node.lineno})")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    isinstance(node.func.value, ast.Name) and node.func.value.id in names and \
                    node.func.attr in _MUTATORS:
                found.append(f"{node.func.value.id} (line {names[node.func.value.id]}): .{node.func.attr}() at "
                             f"line {node.lineno}")
            elif isinstance(node, ast.Assign | ast.AugAssign | ast.Delete):
                targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
                found.extend(f"{t.value.id} (line {names[t.value.id]}): item set at line {node.lineno}"
                             for t in targets if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)
                             and t.value.id in names)
    return found


def test_no_module_level_mutable_state_in_src() -> None:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        found += [f"{rel}: {what}" for what in module_state(path)
                  if (rel, what.split(" ", 1)[0]) not in KNOWN_STATE]
    assert found == []


def test_the_scan_finds_a_module_level_memo(tmp_path: Path) -> None:
    source = tmp_path / "memo.py"
    source.write_text("_SEEN: dict[int, int] = {}\nTABLE = {'a': 1}\nTABLE['b'] = 2\n\n\n"
                      "def f(x: int) -> int:\n    _SEEN[x] = x\n    return TABLE['a']\n\n\n"
                      "def g() -> None:\n    global COUNT\n    _SEEN.clear()\n", encoding="utf-8")
    assert module_state(source) == [
        "_SEEN (line 1): an empty container at module level", "_SEEN (line 1): item set at line 7",
        "global COUNT (line 12)", "_SEEN (line 1): .clear() at line 13"]
