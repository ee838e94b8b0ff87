"""The extract loop both engines share (``engines.common.extract_launches``) and vLLM's option table
(``engines.vllm.OPTION_RULES``): each option's facts read from one entry, exact value, origin and location."""

from __future__ import annotations

from typing import NamedTuple

import pytest

from relialint.core.deployment import Deployment
from relialint.engines import vllm
from relialint.engines.common import extract_launches, launch_deployment, program
from relialint.engines.inference import Inferred
from relialint.readers.located import Command, Span, Word
from relialint.run.files import read_file


class ToyLaunch(NamedTuple):
    command: Command
    start: Word
    inferred: Inferred | None = None


def _toy(command: Command) -> ToyLaunch | None:
    words = command.argv
    return ToyLaunch(command, words[0]) if words and program(words[0]) == "toy" else None


SCRIPT = """\
pin 1
toy serve a
echo hello
pin 2
toy serve b
toy serve c
"""


def test_the_loop_observes_recognises_and_locates_each_launch() -> None:
    result = read_file(SCRIPT, "serve.sh", "shell")
    pins: list[str] = []
    applied: list[tuple[str, int, str]] = []

    def observe(command: Command) -> bool:
        if command.argv and command.argv[0].text == "pin":
            pins.append(command.argv[1].text or "")
            return True
        return False

    def apply(deployment: Deployment, command: Command, launch: ToyLaunch) -> None:
        applied.append((launch.command.argv[2].text or "", command.span.line, pins[-1]))

    found = extract_launches(result, "toy", None, _toy, apply, observe)
    assert [(d.engine, d.kind, d.span.line, d.span.column, d.span.end_column) for d in found] == [
        ("toy", "shell", 2, 1, 4), ("toy", "shell", 5, 1, 4), ("toy", "shell", 6, 1, 4)]
    # what an earlier command told (the pin) is there when a later launch's facts are applied
    assert applied == [("a", 2, "1"), ("b", 5, "2"), ("c", 6, "2")]
    name = found[0].facts.get("engine.name")
    assert name is not None
    assert (name.value, name.origin, name.line, name.column, name.note) == ("toy", "inferred", 2, 1, None)


def test_the_loop_stops_at_the_limit_and_skips_what_observe_takes() -> None:
    result = read_file(SCRIPT, "serve.sh", "shell")
    seen: list[int] = []

    def recognise(command: Command) -> ToyLaunch | None:
        seen.append(command.span.line)
        return _toy(command)

    def taken(command: Command) -> bool:
        return bool(command.argv) and command.argv[0].text == "pin"

    found = extract_launches(result, "toy", 2, recognise, lambda d, c, launch: None, taken)
    assert [d.span.line for d in found] == [2, 5]
    assert seen == [2, 3, 5]  # the pins never reach `recognise`; nothing after the second launch is read


def test_an_inferred_engine_is_located_where_the_inference_says() -> None:
    start = Word("img", Span("compose.yaml", 3, 12, 3, 15))
    why = Inferred("toy", "--toy-option", Span("compose.yaml", 5, 7, 5, 19))
    deployment = launch_deployment("toy", "compose", start, why, ((1, 0, 2),))
    name = deployment.facts.get("engine.name")
    assert name is not None
    assert (name.value, name.origin, name.line, name.column, name.note) == ("toy", "inferred", 5, 7, why.note)
    assert (deployment.span.line, deployment.span.column, deployment.branch) == (3, 12, ((1, 0, 2),))


# -- vLLM's option table --------------------------------------------------------------------------------------------

# option as written -> (fact, value), for every option whose fact is read from its last value: the table's entries
VALUE_OPTIONS = {
    "dtype": ("--dtype half", "serve.dtype", "float16"),
    "kv-cache-dtype": ("--kv-cache-dtype FP8_E4M3", "kv_cache.dtype", "fp8_e4m3"),
    "enforce-eager": ("--enforce-eager", "cuda_graphs.enabled", False),
    "enable-prefix-caching": ("--no-enable-prefix-caching", "prefix_caching.enabled", False),
    "attention-backend": ("--attention-backend flashinfer", "attention.backend", "FLASHINFER"),
    "moe-backend": ("--moe-backend FlashInfer-Cutlass", "moe.backend", "flashinfer_cutlass"),
    "tensor-parallel-size": ("-tp 2", "parallel.tensor", 2),
    "pipeline-parallel-size": ("--pipeline-parallel-size 4", "parallel.pipeline", 4),
    "gpu-memory-utilization": ("--gpu-memory-utilization 0.85", "memory.gpu_utilization", 0.85),
    "max-model-len": ("--max-model-len 32k", "limits.max_model_len", 32000),
    "max-num-batched-tokens": ("--max-num-batched-tokens 8K", "limits.max_num_batched_tokens", 8192),
    "max-num-seqs": ("--max-num-seqs 4", "limits.max_num_seqs", 4),
}


def _deployment(script: str) -> Deployment:
    [deployment] = vllm.extract(read_file(script, "serve.sh", "shell"), None)
    return deployment


def test_every_value_option_of_the_table_is_pinned_here() -> None:
    read_by_value = {name for name, rule in vllm.OPTION_RULES.items() if rule.value is not None}
    assert read_by_value == set(VALUE_OPTIONS)
    for name, rule in vllm.OPTION_RULES.items():
        assert (rule.value is None) or (rule.step is None), name  # one way per option
        assert vllm.OPTION_FACTS[name] == rule.keys


@pytest.mark.parametrize("name", sorted(VALUE_OPTIONS))
def test_a_value_option_sets_its_fact_at_its_flag(name: str) -> None:
    written, key, value = VALUE_OPTIONS[name]
    script = f"vllm serve org/model {written} --port 8000\n"
    fact = _deployment(script).facts.get(key)
    assert fact is not None
    column = script.index(written.split()[0]) + 1
    assert (fact.value, fact.origin, fact.line, fact.column, fact.end_column) == (
        value, "flag", 1, column, column + len(written.split()[0]))


@pytest.mark.parametrize("name", sorted(n for n in VALUE_OPTIONS if len(VALUE_OPTIONS[n][0].split()) == 2))
def test_a_value_not_seen_leaves_every_fact_of_the_option_unknown(name: str) -> None:
    flag = VALUE_OPTIONS[name][0].split()[0]
    facts = _deployment(f"vllm serve org/model {flag} $VALUE\n").facts
    for key in vllm.OPTION_FACTS[name]:
        assert facts.get(key) is None and key in facts.blocked, key


def test_a_config_file_option_is_located_in_the_file_with_its_origin() -> None:
    script = "cat > cfg.yaml <<EOF\ndtype: half\ntensor-parallel-size: 2\nEOF\nvllm serve m --config cfg.yaml -tp 4\n"
    facts = _deployment(script).facts
    dtype, tensor = facts.get("serve.dtype"), facts.get("parallel.tensor")
    assert dtype is not None and tensor is not None
    assert (dtype.value, dtype.origin, dtype.path, dtype.line, dtype.column) == (
        "float16", "config-file", "serve.sh", 2, 1)
    assert (tensor.value, tensor.origin, tensor.line, tensor.column) == (4, "flag", 5, 32)  # the command line wins


def test_the_steps_run_in_the_tables_order() -> None:
    # --compilation-config comes after --enforce-eager: cudagraph_mode NONE wins over --no-enforce-eager; the
    # attention config's backend over --attention-backend; --quantization over what the model's name suggests
    script = ("vllm serve org/m-AWQ --no-enforce-eager --attention-backend FLASH_ATTN --quantization fp8 "
              "-cc.cudagraph_mode=none --attention-config.backend=triton_attn\n")
    facts = _deployment(script).facts
    got = {key: (f.value, f.column) if (f := facts.get(key)) is not None else None
           for key in ("cuda_graphs.enabled", "cuda_graphs.mode", "attention.backend", "model.quantization",
                       "model.weight_only")}
    cc, ac, quant = (script.index(w) + 1 for w in ("-cc.", "--attention-config", "--quantization"))
    assert got == {"cuda_graphs.enabled": (False, cc), "cuda_graphs.mode": ("NONE", cc),
                   "attention.backend": ("TRITON_ATTN", ac), "model.quantization": ("fp8", quant),
                   "model.weight_only": None}
    assert "model.weight_only" in facts.blocked
