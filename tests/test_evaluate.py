"""Kleene three-valued logic and OSV-style version ranges: truth tables and properties."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relialint.core.evaluate import (
    FALSE,
    TRUE,
    Verdict,
    eval_affected,
    eval_predicate,
    eval_trigger,
    kleene_and,
    kleene_not,
    kleene_or,
)
from relialint.core.facts import Fact, FactSet
from relialint.core.versions import parse_version

UNKNOWN = Verdict(None, frozenset({"x"}))
VALUES = {True: TRUE, False: FALSE, None: UNKNOWN}

AND_TABLE = {
    (True, True): True, (True, False): False, (True, None): None,
    (False, True): False, (False, False): False, (False, None): False,
    (None, True): None, (None, False): False, (None, None): None,
}
OR_TABLE = {
    (True, True): True, (True, False): True, (True, None): True,
    (False, True): True, (False, False): False, (False, None): None,
    (None, True): True, (None, False): None, (None, None): None,
}


@pytest.mark.parametrize(("a", "b"), list(itertools.product([True, False, None], repeat=2)))
def test_and_or_truth_tables(a: bool | None, b: bool | None) -> None:
    assert kleene_and([VALUES[a], VALUES[b]]).value is AND_TABLE[(a, b)]
    assert kleene_or([VALUES[a], VALUES[b]]).value is OR_TABLE[(a, b)]


@pytest.mark.parametrize("a", [True, False, None])
def test_not_truth_table(a: bool | None) -> None:
    assert kleene_not(VALUES[a]).value is {True: False, False: True, None: None}[a]


def _facts(values: dict[str, Any]) -> FactSet:
    facts = FactSet()
    for key, value in values.items():
        if value != "?":
            facts.set(key, Fact(value, "cli"))
    return facts


def test_leaf_on_unknown_fact_names_it() -> None:
    verdict = eval_predicate({"fact": "gpu.native_fp4", "eq": False}, FactSet())
    assert verdict.value is None
    assert verdict.missing == frozenset({"gpu.native_fp4"})


def test_leaf_on_known_unset_fact() -> None:
    facts = FactSet(closed={"env."})
    assert eval_predicate({"fact": "env.VLLM_X", "eq": "1"}, facts).value is False
    assert eval_predicate({"fact": "env.VLLM_X", "ne": "1"}, facts).value is True
    assert eval_predicate({"fact": "env.VLLM_X", "present": False}, facts).value is True
    assert eval_predicate({"fact": "env.VLLM_X", "not_in": ["1"]}, facts).value is True


@pytest.mark.parametrize(("op", "arg", "value", "expected"), [
    ("eq", "bfloat16", "BFloat16", True),
    ("ne", "bfloat16", "float16", True),
    ("in", ["fp8", "fp8_e5m2"], "fp8_e5m2", True),
    ("not_in", ["fp8"], "auto", True),
    ("matches", "^fp8", "fp8_e4m3", True),
    ("matches", "^fp8", "auto", False),
    ("lt", 600, 1800, False),
    ("ge", 600, 600, True),
])
def test_string_and_number_operators(op: str, arg: Any, value: Any, expected: bool) -> None:
    key = "engine.ready_timeout_s" if isinstance(value, int) else "kv_cache.dtype"
    assert eval_predicate({"fact": key, op: arg}, _facts({key: value})).value is expected


def test_sm_comparison_is_by_version() -> None:
    facts = _facts({"gpu.sm": parse_version("12.1")})
    assert eval_predicate({"fact": "gpu.sm", "ge": "10.0"}, facts).value is True
    assert eval_predicate({"fact": "gpu.sm", "lt": "9.0"}, facts).value is False


LEAVES = [
    {"fact": "gpu.native_fp4", "eq": False},
    {"fact": "serve.dtype", "eq": "bfloat16"},
    {"fact": "spec_decode.enabled", "eq": True},
]
STATES = st.fixed_dictionaries({
    "gpu.native_fp4": st.sampled_from([True, False, "?"]),
    "serve.dtype": st.sampled_from(["bfloat16", "float16", "?"]),
    "spec_decode.enabled": st.sampled_from([True, False, "?"]),
})


@given(STATES)
def test_de_morgan(state: dict[str, Any]) -> None:
    facts = _facts(state)
    a, b = ({"fact": k, **{"eq": v}} for k, v in (("gpu.native_fp4", False), ("serve.dtype", "bfloat16")))
    lhs = eval_predicate({"not": {"all": [a, b]}}, facts).value
    rhs = eval_predicate({"any": [{"not": a}, {"not": b}]}, facts).value
    assert lhs is rhs
    lhs = eval_predicate({"not": {"any": [a, b]}}, facts).value
    rhs = eval_predicate({"all": [{"not": a}, {"not": b}]}, facts).value
    assert lhs is rhs


@given(STATES, st.lists(st.sampled_from(LEAVES), min_size=1, max_size=3), st.sampled_from(["all", "any"]))
def test_never_definite_when_a_needed_fact_is_unknown(state: dict[str, Any], leaves: list[dict[str, Any]],
                                                      combinator: str) -> None:
    facts = _facts(state)
    verdict = eval_trigger({"when": {combinator: leaves}}, facts)
    if verdict.value is True:
        # every leaf that decided the outcome was known
        if combinator == "all":
            assert all(state[leaf["fact"]] != "?" for leaf in leaves)
    if verdict.value is None:
        assert verdict.missing
        assert all(state[key] == "?" for key in verdict.missing)


@given(STATES)
def test_filling_unknowns_never_flips_a_known_verdict(state: dict[str, Any]) -> None:
    pred = {"all": [LEAVES[0], {"any": [LEAVES[1], {"not": LEAVES[2]}]}]}
    partial = eval_predicate(pred, _facts(state)).value
    if partial is None:
        return
    full = dict(state)
    for key, value in state.items():
        if value == "?":
            full[key] = {"gpu.native_fp4": True, "serve.dtype": "float16", "spec_decode.enabled": False}[key]
    assert eval_predicate(pred, _facts(full)).value is partial


def _vllm(version: str | None) -> FactSet:
    facts = _facts({"engine.name": "vllm"})
    if version:
        facts.set("engine.version", Fact(parse_version(version), "cli"))
    return facts


CODE = {"code": [{"path": "vllm/x.py", "present": "bug"}]}
"""A witness whose code checks show every bound of the range (the committed result is validate's business)."""


@pytest.mark.parametrize(("version", "expected"), [
    ("0.27.0", False),       # at or before last known good
    ("0.28.0", False),
    ("0.28.5", None),        # between last known good and first observed bad
    ("0.29.0rc1", None),
    ("0.29.0", True),        # introduced
    ("0.30.0", True),
    ("0.31.0", False),       # fixed
    (None, None),
])
def test_affected_range_with_gap(version: str | None, expected: bool | None) -> None:
    ranges = [{"engine": "vllm", "introduced": "0.29.0", "fixed": "0.31.0", "last_known_good": "0.28.0",
               "witness": CODE}]
    assert eval_affected(ranges, _vllm(version)).value is expected


@pytest.mark.parametrize(("version", "expected"), [
    ("0.23.1rc1", True), ("0.23.1", None), ("0.22.0", None), ("0.26.0", None)])
def test_observed_only_range(version: str, expected: bool | None) -> None:
    assert eval_affected([{"engine": "vllm", "observed": ["0.23.1rc1"]}], _vllm(version)).value is expected


def test_last_affected_without_fix_is_unknown_after() -> None:
    ranges = [{"engine": "vllm", "introduced": "0.12.0", "last_affected": "0.14.0", "witness": CODE}]
    assert eval_affected(ranges, _vllm("0.13.0")).value is True
    assert eval_affected(ranges, _vllm("0.15.0")).value is None
    assert eval_affected(ranges, _vllm("0.11.0")).value is False


@pytest.mark.parametrize(("version", "expected"), [
    ("0.11.2", False), ("0.12.0", True), ("0.28.0", True), ("0.29.0", False), ("0.33.0", False)])
def test_a_witnessed_fix_decides_both_sides(version: str, expected: bool) -> None:
    ranges = [{"engine": "vllm", "introduced": "0.12.0", "fixed": "0.29.0", "witness": CODE}]
    assert eval_affected(ranges, _vllm(version)).value is expected


@pytest.mark.parametrize(("version", "expected"), [
    ("0.18.0", None),   # older than the first version anyone tested: not clean
    ("0.20.0", True),   # observed
    ("0.21.0", None),   # past the report: not affected
    ("0.24.0", None)])
def test_an_unconfirmed_report_is_definite_only_where_it_was_seen(version: str, expected: bool | None) -> None:
    ranges = [{"engine": "vllm", "introduced": "0.20.0", "last_affected": "0.20.0", "observed": ["0.20.0"],
               "witness": {"unwitnessed": {"introduced": "a measured slowdown; no code change found",
                                           "last_affected": "the only version the reporter ran"}}}]
    assert eval_affected(ranges, _vllm(version)).value is expected


@pytest.mark.parametrize(("version", "expected"), [
    ("0.9.0", None),    # older than the first tested release: possible, never clean
    ("0.10.1", None),   # the range rests on an introduction no code shows: possible
    ("0.12.0", False),  # the witnessed fix
])
def test_an_untested_older_range_is_possible_not_clean(version: str, expected: bool | None) -> None:
    ranges = [{"engine": "vllm", "introduced": "0.10.1", "fixed": "0.12.0",
               "witness": {"code": CODE["code"], "unwitnessed": {"introduced": "the first release tested"}}}]
    verdict = eval_affected(ranges, _vllm(version))
    assert verdict.value is expected
    if version == "0.9.0":
        assert verdict.notes == ("engine.version 0.9.0 is older than 0.10.1, the first version known affected; "
                                 "older ones were not checked",)


def test_code_already_in_the_oldest_release_checked_leaves_older_ones_unknown() -> None:
    ranges = [{"engine": "vllm", "introduced": "0.6.0", "last_affected": "0.33.0",
               "witness": {**CODE, "older_unchecked": True}}]
    assert [eval_affected(ranges, _vllm(v)).value for v in ("0.5.4", "0.6.0", "0.20.0")] == [None, True, True]


def test_only_a_fix_leaves_older_versions_unknown() -> None:
    ranges = [{"engine": "vllm", "fixed": "0.11.1", "observed": ["0.11.0"], "witness": CODE}]
    assert eval_affected(ranges, _vllm("0.11.0")).value is True
    assert eval_affected(ranges, _vllm("0.10.0")).value is None
    assert eval_affected(ranges, _vllm("0.11.1")).value is False


def test_a_range_without_witness_never_decides() -> None:
    ranges = [{"engine": "vllm", "introduced": "0.12.0", "fixed": "0.29.0"}]
    assert [eval_affected(ranges, _vllm(v)).value for v in ("0.11.0", "0.20.0", "0.29.0")] == [None, None, None]


def test_pep440_prerelease_sorts_first() -> None:
    assert parse_version("0.23.1rc1") < parse_version("0.23.1")
    assert parse_version("b6327") < parse_version("b6500")


def test_build_range_and_cross_scheme() -> None:
    facts = _facts({"engine.name": "llama.cpp"})
    facts.set("engine.version", Fact(parse_version("b6500"), "image"))
    ranges = [{"engine": "llama.cpp", "introduced": "b6327", "last_affected": "b6600", "witness": CODE}]
    assert eval_affected(ranges, facts).value is True
    assert eval_affected([{"engine": "vllm", "introduced": "0.1.0", "witness": CODE}], facts).value is False
