"""Issue 25, "the model dates the engine" and "the model states its own facts": data/model_families.yaml, its
witnessed floors (records/witnesses/model_support.json, tools/model_support.py), the facts a family gives and the
version worlds it removes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from relialint.core.facts import Fact, FactSet
from relialint.core.versions import parse_version
from relialint.engines import model_families
from relialint.engines.llamacpp_engine import LlamaCppEngine
from relialint.engines.vllm_engine import VllmEngine
from relialint.run.lint import Options, lint_text

ROOT = Path(__file__).resolve().parent.parent
WITNESSED = json.loads((ROOT / "records" / "witnesses" / "model_support.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("family", model_families.families(), ids=lambda f: f.family)
def test_each_floor_is_the_witnessed_one(family: model_families.Family) -> None:
    seen = WITNESSED["families"][family.family]
    assert seen["vllm"]["architecture"] == list(family.architecture)
    assert family.vllm_since == seen["vllm"]["since"]
    assert family.vllm_until == seen["vllm"]["until"]
    assert family.llamacpp_since == (seen["llama.cpp"]["since"] if family.gguf else None)


def test_each_drafter_needle_is_witnessed() -> None:
    rows = model_families.drafters()
    assert [(r.vllm_since, r.method) for r in rows] == [("0.21.0", "mtp"), ("0.10.2", None), ("0.8.2", "eagle")]
    assert [WITNESSED["drafters"][r.pattern.pattern]["since"] for r in rows] == [r.vllm_since for r in rows]


@pytest.mark.parametrize("family", model_families.families(), ids=lambda f: f.family)
def test_the_source_hub_id_names_its_own_family_and_no_other(family: model_families.Family) -> None:
    hub_id = re.search(r"huggingface\.co/([^/]+/[^/]+)/", family.source)
    assert hub_id is not None
    assert model_families.find(hub_id.group(1)) is family
    assert [f.family for f in model_families.families() if f.pattern.search(hub_id.group(1).split("/")[1])] \
        == [family.family]


@pytest.mark.parametrize(("name", "gguf", "expected"), [
    ("openai/gpt-oss-20b", False, "gpt-oss"),
    ("unsloth/gpt-oss-20b-GGUF:F16", True, "gpt-oss"),
    ("/models/gpt-oss-20b-mxfp4.gguf", False, "gpt-oss"),  # a GGUF file's own name
    ("/models/gpt-oss-20b", False, None),  # a folder someone named
    ("gpt-oss-20b", False, None),  # not a hub id
    ("Qwen/Qwen3-VL-32B-Instruct", False, "qwen3-vl"),  # another architecture of the same maker: its own row
    ("Qwen/Qwen3-Omni-30B-A3B-Instruct", False, None),  # one the data does not list: not taken for Qwen3-MoE
    ("Qwen/Qwen3-32B-AWQ", False, "qwen3"),
    ("Qwen/Qwen3-30B-A3B-Instruct-2507", False, "qwen3-moe"),
    ("Qwen/Qwen3.5-27B", False, "qwen3.5"),
    ("deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", False, None),  # a dense Qwen distillation
    ("zai-org/GLM-4.7-Flash", False, "glm-4.7-flash"),
    ("zai-org/GLM-4.7", False, "glm-4.5"),
    ("QuantTrio/GLM-4.6-AWQ", False, "glm-4.5"),
    ("zai-org/GLM-4.5V", False, None),  # the vision model (Glm4vMoeForConditionalGeneration)
    ("microsoft/Phi-4-mini-instruct", False, "phi-4-mini"),
    ("microsoft/phi-4", False, "phi-4"),
    ("microsoft/Phi-3.5-mini-instruct", False, "phi-3.5-mini"),
    ("Phi-3.5-mini-instruct-Q4_K_M.gguf", True, "phi-3.5-mini"),
    ("microsoft/Phi-4-multimodal-instruct", False, None),  # Phi4MMForCausalLM
    ("microsoft/Phi-4-mini-flash-reasoning", False, None),  # Phi4FlashForCausalLM
    ("google/gemma-4-31B-it-assistant", False, None),  # a drafter, not the model
    ("meta-llama/Llama-3.1-8B-Instruct", False, "llama-3"),
    ("meta-llama/Meta-Llama-3-70B-Instruct", False, "llama-3"),
    ("nvidia/Llama-3.3-70B-Instruct-FP4", False, "llama-3"),  # a quantized upload keeps the architecture
    ("Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", True, "llama-3"),
    ("meta-llama/Llama-3.2-11B-Vision-Instruct", False, None),  # Mllama, another architecture
    ("meta-llama/Llama-4-Scout-17B-16E-Instruct", False, "llama4"),
    ("Qwen/Qwen2.5-32B-Instruct-AWQ", False, "qwen2.5"),
    ("Qwen/Qwen2.5-Coder-7B-Instruct", False, "qwen2.5"),
    ("Qwen/Qwen2.5-VL-7B-Instruct", False, None),  # Qwen2_5_VL, another architecture
    ("Qwen/Qwen2.5-1.5B-Instruct", False, "qwen2.5"),
])
def test_identification(name: str, gguf: bool, expected: str | None) -> None:
    found = model_families.find(name, gguf)
    assert (found.family if found else None) == expected


def test_drafters() -> None:
    gemma = model_families.drafter("google/gemma-4-31B-it-assistant")
    assert gemma is not None and (gemma.method, gemma.floor) == ("mtp", True)
    assert model_families.drafter("/ckpt/gemma-4-31B-it-assistant") is None  # its config decides: a hub id only
    eagle = model_families.drafter("/ckpt/EAGLE-llama3-8b")  # vLLM tests the written name itself
    assert eagle is not None and eagle.method == "eagle"
    eagle3 = model_families.drafter("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B")
    assert eagle3 is not None and eagle3.method is None
    assert model_families.drafter("meta-llama/Llama-3.2-1B-Instruct") is None


def _facts(**values: object) -> FactSet:
    return FactSet({k.replace("__", "."): Fact(v, "inferred") for k, v in values.items()})  # type: ignore[arg-type]


def test_vllm_worlds_start_at_the_model_floor() -> None:
    engine = VllmEngine()
    allowed = engine.allowed_versions(_facts(model__family="gpt-oss"), [], None)
    assert allowed[0] == parse_version("0.10.1")
    assert allowed[-1] == engine.tabled_versions()[-1]
    assert engine.allowed_versions(_facts(), [], None)[0] == engine.tabled_versions()[0]
    # a drafter older releases cannot load raises the floor above the target's own
    both = _facts(model__family="gemma4", spec_decode__draft_model="google/gemma-4-31B-it-assistant")
    assert engine.allowed_versions(both, [], None)[0] == parse_version("0.21.0")
    # options that exist only before the floor: the constraints contradict, nothing is narrowed by the model
    old = engine.allowed_versions(_facts(model__family="qwen3.5"), ["--tokenizer-pool-size=4"], None)
    assert old[-1] == parse_version("0.9.2")
    # a family vLLM removed: releases after the last that registers it are no worlds, nor is "newer than the tables"
    removed = engine.allowed_versions(_facts(model__family="minimax-m1"), [], None)
    assert (removed[0], removed[-1]) == (parse_version("0.9.2"), parse_version("0.23.0"))


def test_llamacpp_tables_below_the_floor_are_no_worlds() -> None:
    engine = LlamaCppEngine()
    every = list(engine.tabled_versions())
    allowed = engine.allowed_versions(_facts(model__family="qwen3-next"), [], None)
    # the floor b6112 removes every table whose build is certainly older; the bracket b6111-b8501 straddles it
    assert [v.text for v in every if v not in allowed] == ["b4579", "b4875", "b5308", "b5763", "b5833", "b5904"]
    assert engine.allowed_versions(_facts(model__family="phi-4"), [], None) == every  # no floor: older than b2438


def _codes(text: str, name: str = "serve.sh", kind: str = "shell") -> dict[str, str]:
    found = lint_text(text, name, kind, Options())
    return {f.code: f.certainty for f in found.findings}


def test_an_old_range_record_disappears_for_a_new_model() -> None:
    # RL512 (0.6.4-0.11.0) on a Qwen3.5, which no release before 0.17.0 runs; a local folder proves nothing
    launch = "vllm serve {} --no-enable-chunked-prefill\n"
    assert "RL512" not in _codes(launch.format("Qwen/Qwen3.5-35B-A3B"))
    assert _codes(launch.format("/models/Qwen3.5-35B-A3B"))["RL512"] == "possible"


def test_moe_only_records_leave_a_dense_family() -> None:
    unit = ("spec:\n  nodeSelector:\n    nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3\n  containers:\n"
            "  - name: vllm\n    image: registry.example.com/llm:gpu\n    command: [vllm, serve, {}]\n")
    pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n" + unit
    assert "RL218" not in _codes(pod.format("mistralai/Mistral-Small-3.2-24B-Instruct-2506"), "pod.yaml", "kubernetes")
    assert "RL218" in _codes(pod.format("mistralai/Mixtral-8x7B-Instruct-v0.1"), "pod.yaml", "kubernetes")


def test_family_facts_with_the_floor_in_the_note() -> None:
    (deployment,) = lint_text("vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct\n", "serve.sh", "shell",
                              Options()).deployments
    got = {k: (f.value, f.origin, f.line, f.column) for k, f in deployment.facts.items()
           if k in ("model.family", "model.hybrid", "model.moe")}
    assert got == {"model.family": ("qwen3-next", "inferred", 1, 12), "model.hybrid": (True, "inferred", 1, 12),
                   "model.moe": (True, "inferred", 1, 12)}
    family = deployment.facts.get("model.family")
    assert family is not None and family.note == (
        "from the model name: Qwen3-Next-80B-A3B-Instruct: qwen3-next (Qwen3NextForCausalLM; vLLM >= 0.10.2, "
        "llama.cpp >= b6112 (witnessed in the released code))")


@pytest.mark.parametrize(("drafter", "method"), [
    ("google/gemma-4-31B-it-assistant", "mtp"),
    ("yuhuili/EAGLE-LLaMA3.1-Instruct-8B", "eagle"),
    ("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", None),  # the release decides between eagle and eagle3
    ("meta-llama/Llama-3.2-1B-Instruct", "draft_model"),
])
def test_a_drafter_without_a_method_takes_vllms_detected_one(drafter: str, method: str | None) -> None:
    text = f"""vllm serve google/gemma-4-31B-it --speculative-config '{{"model": "{drafter}"}}'\n"""
    (deployment,) = lint_text(text, "serve.sh", "shell", Options()).deployments
    fact = deployment.facts.get("spec_decode.method")
    assert (fact.value if fact is not None else None) == method
    assert deployment.facts.get("spec_decode.enabled") is not None


def _name_patterns(code: str) -> list[re.Pattern[str]]:
    """The ``model.name matches`` patterns of a record's trigger."""
    from ruamel.yaml import YAML

    (path,) = (ROOT / "records").glob(f"{code}-*.yaml")
    found: list[re.Pattern[str]] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if node.get("fact") == "model.name" and "matches" in node:
                found.append(re.compile(str(node["matches"])))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(YAML(typ="safe").load(path.read_text(encoding="utf-8"))["trigger"]["when"])
    return found


@pytest.mark.parametrize(("code", "families"), [
    # hybrid models (Mamba and Gated DeltaNet): exactly the families whose data says hybrid
    # MiniMax-M1 (lightning attention, removed after vLLM 0.23.0) is hybrid too, but RL212's source does not
    # establish that its prefix caching can be turned on at all: the record leaves it out
    ("RL212", {f.family for f in model_families.families() if f.hybrid} - {"minimax-m1"}),
    ("RL213", {"qwen3-next", "qwen3.5", "qwen3.5-moe"}),  # the Gated DeltaNet hybrids (align mode)
    ("RL121", {"qwen3-next", "qwen3.5-moe"}),  # Qwen3-Next-family MoE
    ("RL118", {"gemma3"}),  # the gemma3 model type (the 1B is gemma3_text: its hub id below is the 27B)
    ("RL119", {"glm-4.7-flash"}),  # not GLM-4.5/4.6/4.7
    ("RL125", {"glm-4-0414"}),  # the dense GLM-4-0414, not the GLM-4.5 MoE line
])
def test_records_that_name_models_agree_with_the_family_data(code: str, families: set[str]) -> None:
    """A record that nominates models by name must name exactly the families its source means, as the family data
    identifies them from each family's own hub id: a GLM-specific record never matches another GLM family."""
    patterns = _name_patterns(code)
    matched = set()
    for family in model_families.families():
        hub_id = re.search(r"huggingface\.co/([^/]+/[^/]+)/", family.source)
        assert hub_id is not None
        if any(p.search(hub_id.group(1)) for p in patterns):
            matched.add(family.family)
    assert matched == families
