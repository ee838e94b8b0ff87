"""vLLM's defaults by version as a table (issue 24, point 4): every tabled version gets the defaults of its class,
every threshold of the classes is one some default needs, and rows pinned on both sides of their thresholds."""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import pytest

from relialint.core.facts import Fact, FactSet
from relialint.core.versions import Version, parse_sm
from relialint.engines import flagcheck
from relialint.engines.versioning import parse_engine_version
from relialint.engines.vllm_defaults import (
    ROWS,
    THRESHOLDS,
    Closed,
    CudaBelow,
    Either,
    FromEnv,
    version_class,
    version_defaults,
)

LOCATED = ("serve.sh", 2, 8)

# The facts the rows' conditions read, each unset, set to values the rows read differently, and absent; the two
# closed prefixes on and off. A context sets every key to one of its values.
_Context = tuple[tuple[str, object], ...]


def _condition_keys() -> list[str]:
    keys: list[str] = []

    def walk(condition: object) -> None:
        if isinstance(condition, Either):
            walk(condition.first)
            walk(condition.second)
        elif isinstance(condition, CudaBelow):
            keys.append("gpu.sm")  # (a GPU of another vendor or backend is "not below": gpu.sm decides the rest)
        elif not isinstance(condition, Closed):
            keys.append(condition.key)  # type: ignore[attr-defined]

    for row in ROWS:
        for condition in row.when:
            walk(condition)
        if isinstance(row.value, FromEnv):
            keys.append(row.value.key)
    return list(dict.fromkeys(keys))


_ENV_SETTINGS: tuple[Mapping[str, object], ...] = (
    {},  # nothing set
    {"*": None},  # every variable known unset
    {"*": "1"},
    {"*": "0"},
    {"*": "flash_attn"},  # no boolean, no number
    {"*": "300"},
    {"env.VLLM_USE_V1": "1", "env.VLLM_USE_V2_MODEL_RUNNER": "0", "env.VLLM_ATTENTION_BACKEND": "FLASHINFER",
     "env.VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION": None},
    {"env.VLLM_USE_V1": "0", "env.VLLM_ENGINE_READY_TIMEOUT_S": "abc", "cuda_graphs.enabled": False,
     "engine.v1": False},
    {"gpu.sm": parse_sm("7.5")},  # a GPU V1 does not support before 0.10.2 (the V0 fallback)
    {"gpu.sm": parse_sm("9.0"), "*": None},
)


def _contexts() -> list[tuple[bool, bool, Mapping[str, object]]]:
    return [(flags, env, setting) for flags, env in itertools.product((True, False), repeat=2)
            for setting in _ENV_SETTINGS]


def _facts(flags: bool, env: bool, setting: Mapping[str, object], version: Version | None) -> FactSet:
    facts = FactSet()
    if flags:
        facts.closed.add("flag.vllm.")
    if env:
        facts.closed.add("env.")
    for key in _condition_keys():
        value = setting.get(key, setting.get("*", "absent")) if key.startswith("env.") else setting.get(key, "absent")
        if isinstance(value, str) and value == "absent":
            continue
        origin = "env" if key.startswith("env.") else "cli" if key == "gpu.sm" else "flag"
        facts.set(key, Fact(value, origin, *LOCATED))  # type: ignore[arg-type]
    if version is not None:
        facts.set("engine.version", Fact(version, "flag"))
    return facts


def _defaults(flags: bool, env: bool, setting: Mapping[str, object], version: Version | None) -> object:
    """What the defaults set and made unknown (everything but the version itself)."""
    facts = _facts(flags, env, setting, version)
    version_defaults(facts)
    return ({k: (f.value, f.origin, f.path, f.line, f.column, f.note) for k, f in facts.facts.items()
             if k != "engine.version"}, sorted(facts.blocked))


def test_the_condition_keys_are_the_ones_the_contexts_vary() -> None:
    assert _condition_keys() == [
        "cuda_graphs.enabled", "env.VLLM_USE_V1", "gpu.sm", "engine.v1", "env.VLLM_USE_V2_MODEL_RUNNER",
        "env.VLLM_ENGINE_READY_TIMEOUT_S", "env.VLLM_ATTENTION_BACKEND", "env.VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION"]


def test_every_tabled_version_gets_the_defaults_of_its_class_representative() -> None:
    table = flagcheck.vllm_table().parsed
    first: dict[tuple[object, ...], Version] = {}
    for version in table:
        first.setdefault(version_class(version), version)
    assert len(first) == len(THRESHOLDS) + 1  # a class on each side of every threshold has tabled versions
    compared = 0
    for version in table:
        representative = first[version_class(version)]
        for context in _contexts():
            assert _defaults(*context, version) == _defaults(*context, representative), (version.text, context)
            compared += 1
    assert compared == len(table) * len(_contexts())


def test_every_threshold_is_one_a_default_needs() -> None:
    """Neighbouring classes differ in some context: no threshold splits versions whose defaults agree."""
    table = flagcheck.vllm_table().parsed
    first: dict[tuple[object, ...], Version] = {}
    for version in table:
        first.setdefault(version_class(version), version)
    representatives = list(first.values())
    for lower, upper in itertools.pairwise(representatives):
        assert any(_defaults(*context, lower) != _defaults(*context, upper) for context in _contexts()), (
            lower.text, upper.text)


def test_the_thresholds_are_the_rows_bounds() -> None:
    assert [str(v) for v in THRESHOLDS] == ["0.8.0", "0.10.1", "0.10.2", "0.11.0", "0.11.1", "0.12.0", "0.14.0",
                                            "0.15.0", "0.20.0", "0.22.0", "0.29.0"]
    v = parse_engine_version
    assert version_class(v("vllm", "0.7.3")) == (0,)
    assert version_class(v("vllm", "0.8.0")) == (1,)
    assert version_class(v("vllm", "0.28.0")) == version_class(v("vllm", "0.22.0")) == (10,)
    assert version_class(v("vllm", "0.40.0")) == (11,)


# -- rows pinned at their thresholds: the version just below and at it ------------------------------------------------


def _one(version: str | None, key: str, closed: tuple[str, ...] = ("flag.vllm.", "env."), sm: str | None = None,
         **env: str | None) -> tuple[object, ...] | str | None:
    """The fact ``key`` after the defaults: (value, origin, line, note), ``"unknown"`` when made unknown, None when
    nothing set it. ``sm``: the GPU's compute capability, where the file names the GPU."""
    facts = FactSet(closed=set(closed))
    if sm is not None:
        facts.set("gpu.sm", Fact(parse_sm(sm), "cli"))
    for name, value in env.items():
        facts.set(f"env.{name}", Fact(value, "env", *LOCATED))
    if version is not None:
        facts.set("engine.version", Fact(parse_engine_version("vllm", version), "flag"))
    version_defaults(facts)
    if key in facts.blocked:
        return "unknown"
    fact = facts.facts.get(key)
    return None if fact is None else (fact.value, fact.origin, fact.line, fact.note)


@pytest.mark.parametrize(("version", "expected"), [
    ("0.10.0", None), ("0.10.1", ("PIECEWISE", "default", None, None)),
    ("0.10.2", ("PIECEWISE", "default", None, None)), ("0.11.0", ("FULL_AND_PIECEWISE", "default", None, None)),
    (None, None)])
def test_cudagraph_mode_at_0_10_1_and_0_11_0(version: str | None, expected: object) -> None:
    assert _one(version, "cuda_graphs.mode") == expected


def test_cudagraph_mode_is_none_with_graphs_off_on_any_version() -> None:
    for version in (None, "0.7.0", "0.11.0"):
        facts = FactSet({"cuda_graphs.enabled": Fact(False, "flag", *LOCATED)}, closed={"flag.vllm."})
        if version is not None:
            facts.set("engine.version", Fact(parse_engine_version("vllm", version), "flag"))
        version_defaults(facts)
        mode = facts.facts["cuda_graphs.mode"]
        assert (mode.value, mode.origin, mode.note) == ("NONE", "default", "CUDA graphs are off")


@pytest.mark.parametrize(("version", "env", "expected"), [
    ("0.7.3", {}, (False, "default", None, None)),
    ("0.8.0", {}, "unknown"),  # V1 on a GPU of compute capability 8.0 or more, V0 below it: the GPU decides
    ("0.11.0", {"VLLM_USE_V1": "0"}, (False, "env", 2, None)),
    ("0.11.1", {"VLLM_USE_V1": "0"}, (True, "default", None, "V1 is the only engine from 0.11.1")),
    (None, {"VLLM_USE_V1": "yes"}, (True, "env", 2, None)),
    (None, {}, None),
])
def test_engine_v1_at_0_8_0_and_0_11_1(version: str | None, env: dict[str, str], expected: object) -> None:
    assert _one(version, "engine.v1", **env) == expected


@pytest.mark.parametrize(("version", "sm", "expected"), [
    ("0.8.0", "9.0", True), ("0.10.1.1", "8.0", True), ("0.8.0", "7.5", False), ("0.10.1.1", "7.0", False),
    ("0.10.2", "7.5", True),  # V0 is gone: V1 on every GPU
])
def test_engine_v1_falls_back_to_v0_below_compute_capability_8(version: str, sm: str, expected: bool) -> None:
    got = _one(version, "engine.v1", sm=sm)
    assert isinstance(got, tuple) and (got[0], got[1]) == (expected, "default")


def test_engine_v1_with_the_environment_open_needs_the_variable() -> None:
    assert _one("0.9.0", "engine.v1", closed=("flag.vllm.",)) is None
    assert _one("0.9.0", "engine.v1", closed=("flag.vllm.",), sm="9.0", VLLM_USE_V1=None) == (
        True, "default", None, None)
    assert _one("0.9.0", "prefix_caching.enabled", closed=("flag.vllm.",), sm="9.0", VLLM_USE_V1=None) == (
        True, "default", None, "the engine's default for this version")
    assert _one("0.7.3", "prefix_caching.enabled") == (False, "default", None,
                                                        "the engine's default for this version")


@pytest.mark.parametrize(("version", "env", "expected"), [
    ("0.11.2", {"VLLM_USE_V2_MODEL_RUNNER": "1"}, (False, "default", None, "no V2 model runner before 0.12.0")),
    ("0.12.0", {"VLLM_USE_V2_MODEL_RUNNER": "1"}, (True, "env", 2, None)),
    ("0.12.0", {}, (False, "default", None, None)),
    ("0.21.0", {}, (False, "default", None, None)),
    ("0.22.0", {}, None),
    ("0.28.0", {}, None),
    ("0.29.0", {}, (True, "default", None, "from 0.29.0 the V2 runner is used where supported")),
    ("0.29.0", {"VLLM_USE_V2_MODEL_RUNNER": "0"}, (False, "env", 2, None)),
    (None, {}, None),
])
def test_v2_model_runner_at_0_12_0_0_22_0_and_0_29_0(version: str | None, env: dict[str, str],
                                                     expected: object) -> None:
    assert _one(version, "engine.v2_model_runner", **env) == expected


@pytest.mark.parametrize(("version", "expected"), [("0.19.1", 0.9), ("0.20.0", 0.92), (None, None)])
def test_gpu_memory_utilization_at_0_20_0(version: str | None, expected: float | None) -> None:
    found = _one(version, "memory.gpu_utilization")
    assert found == (None if expected is None else (expected, "default", None, None))


@pytest.mark.parametrize(("version", "env", "expected"), [
    ("0.13.0", {}, None),
    ("0.14.0", {}, (600, "default", None, None)),
    ("0.13.0", {"VLLM_ENGINE_READY_TIMEOUT_S": "1k"}, (1000, "env", 2, None)),
    ("0.14.0", {"VLLM_ENGINE_READY_TIMEOUT_S": "abc"}, None),  # no number: no default either
])
def test_ready_timeout_at_0_14_0(version: str, env: dict[str, str], expected: object) -> None:
    assert _one(version, "engine.ready_timeout_s", **env) == expected


@pytest.mark.parametrize(("version", "expected"), [
    ("0.14.1", ("FLASH_ATTN", "env", 2, None)),
    ("0.15.0", ("auto", "default", None, "VLLM_ATTENTION_BACKEND is ignored")),
    (None, "unknown"),
])
def test_attention_backend_variable_at_0_15_0(version: str | None, expected: object) -> None:
    assert _one(version, "attention.backend", VLLM_ATTENTION_BACKEND="flash_attn") == expected


@pytest.mark.parametrize(("version", "env", "expected"), [
    ("0.10.1", {}, None),
    ("0.10.2", {}, (True, "default", None, "Q is quantized to FP8 with an FP8 KV cache unless disabled")),
    ("0.14.1", {"VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION": "1"}, (False, "env", 2, None)),
    ("0.15.0", {"VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION": "1"},
     (True, "default", None, "Q is quantized to FP8 with an FP8 KV cache unless disabled")),
    (None, {"VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION": "1"}, None),
])
def test_flashinfer_q_quant_at_0_10_2_and_0_15_0(version: str | None, env: dict[str, str], expected: object) -> None:
    assert _one(version, "attention.flashinfer_q_quant", **env) == expected


def test_the_variable_is_read_only_with_the_environment_complete_inside_0_10_2_to_0_14() -> None:
    assert _one("0.14.1", "attention.flashinfer_q_quant", closed=("flag.vllm.",)) is None
    assert _one("0.15.0", "attention.flashinfer_q_quant", closed=("flag.vllm.",)) == (
        True, "default", None, "Q is quantized to FP8 with an FP8 KV cache unless disabled")


def test_a_build_number_is_no_vllm_version() -> None:
    facts = FactSet(closed={"flag.vllm.", "env."})
    facts.set("engine.version", Fact(parse_engine_version("llama.cpp", "b4000"), "flag"))
    version_defaults(facts)
    assert "memory.gpu_utilization" not in facts.facts
    assert facts.facts["serve.dtype"].value == "auto"
