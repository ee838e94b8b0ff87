"""The hardware a file states (issue 25): GPU names from node labels, MIG resources and Jetson L4T releases, the
rows they allow (``gpu.candidates``), the backends a stated vendor rules out, and whose version an image tag is."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relialint.core import hardware
from relialint.core.facts import Fact, FactSet
from relialint.core.triggers import compile_trigger
from relialint.core.worlds import OTHER_BACKEND, Worlds, backend_ruled_out, gpu_worlds, judge
from relialint.engines.evidence import GPU_KEYS, l4t_clues
from relialint.readers.located import Span, Word
from relialint.run.lint import Finding, Options, Target, lint_text
from tests.cli_run import invoke


def _facts(tmp_path: Path, name: str, text: str) -> dict[str, Any]:
    (tmp_path / name).write_text(text)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = invoke(["facts", name, "--format", "json"])
    finally:
        os.chdir(cwd)
    (dep,) = json.loads(result.output)["deployments"]
    return dep["facts"]  # type: ignore[no-any-return]


def _lint(text: str, name: str, kind: str) -> list[Finding]:
    return lint_text(text, name, kind, Options(target=Target(None, None, None, {}))).findings


def _rows(findings: list[Finding], code: str) -> list[tuple[str, str, int, int, bool]]:
    return [(f.code, f.certainty, f.line, f.column, f.shown) for f in findings if f.code == code]


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: m
spec:
  template:
    spec:
{placement}      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.2
          args: ["meta-llama/Llama-3.1-8B-Instruct"]
          resources:
            limits:
              {resource}: 1
"""


# -- the data -------------------------------------------------------------------------------------------------------


def test_every_row_of_the_gpu_evidence_names_catalogue_gpus_and_has_a_source() -> None:
    data = hardware.load_data("gpu_evidence.yaml")
    for row in data["mig_profiles"] + data["l4t_releases"] + data["instance_types"]:
        assert row["source"]
        for name in row["gpus"]:
            assert hardware.resolve(name).name in {g.name for g in hardware.catalogue()}
    assert all(source for source in hardware.product_labels().values())
    profiles = [p for row in data["mig_profiles"] for p in row["profiles"]]
    assert len(profiles) == len(set(profiles)), "a MIG profile listed twice"
    assert all(row["source"] for row in hardware.load_data("hardware.yaml")["backend_vendors"])


def test_labeller_and_feature_discovery_values_resolve() -> None:
    assert hardware.resolve("AMD_Radeon_8060S_Graphics").arch == "gfx1151"
    assert hardware.resolve("AMD_Instinct_MI300X_OAM").name == "MI300X"
    assert hardware.resolve("NVIDIA-A10G").name == "A10"
    assert hardware.resolve("A100-SXM4-40GB").name == "A100"  # GFD without the vendor prefix


def test_a_single_strategy_mig_product_label_names_the_gpu(tmp_path: Path) -> None:
    placement = "      nodeSelector:\n        nvidia.com/gpu.product: A100-SXM4-40GB-MIG-1g.5gb\n"
    facts = _facts(tmp_path, "d.yaml", DEPLOYMENT.format(placement=placement, resource="nvidia.com/gpu"))
    assert (facts["gpu.model"]["value"], facts["gpu.model"]["line"], facts["gpu.model"]["column"]) == ("A100", 9, 9)
    assert "nvidia.com/gpu.machine" not in hardware.product_labels()  # the node's system name, not a GPU
    assert "accelerator" not in hardware.product_labels()  # a cluster's own label: a hint only


# -- MIG resources and node affinity --------------------------------------------------------------------------------


def test_a_mig_profile_of_one_gpu_names_it(tmp_path: Path) -> None:
    facts = _facts(tmp_path, "d.yaml", DEPLOYMENT.format(placement="", resource="nvidia.com/mig-2g.12gb"))
    assert {k: (facts[k]["value"], facts[k]["origin"], facts[k]["line"], facts[k]["column"])
            for k in ("gpu.model", "gpu.sm", "gpu.vendor")} == {
        "gpu.model": ("A30", "manifest", 14, 15), "gpu.sm": ("8.0", "manifest", 14, 15),
        "gpu.vendor": ("nvidia", "manifest", 14, 15)}
    assert "profile 2g.12gb exists only on A30" in facts["gpu.model"]["note"]
    assert "Supported MIG Profiles" in facts["gpu.model"]["note"] or "MIG user guide" in facts["gpu.model"]["note"]


def test_a_mig_profile_of_several_gpus_gives_the_rows(tmp_path: Path) -> None:
    facts = _facts(tmp_path, "d.yaml", DEPLOYMENT.format(placement="", resource="nvidia.com/mig-3g.40gb"))
    assert facts["gpu.candidates"]["value"] == "A100|A800|H100|H800"
    assert "gpu.sm" not in facts and "gpu.model" not in facts
    # an unknown profile: NVIDIA only, and a note
    facts = _facts(tmp_path, "d.yaml", DEPLOYMENT.format(placement="", resource="nvidia.com/mig-9g.999gb"))
    assert facts["gpu.vendor"]["value"] == "nvidia" and "gpu.candidates" not in facts


AFFINITY = """\
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              - matchExpressions:
                  - key: nvidia.com/gpu.product
                    operator: In
                    values: [NVIDIA-L4, NVIDIA-A10G]
"""


def test_node_affinity_alternatives_narrow_the_worlds_to_those_rows(tmp_path: Path) -> None:
    facts = _facts(tmp_path, "d.yaml", DEPLOYMENT.format(placement=AFFINITY, resource="nvidia.com/gpu"))
    assert facts["gpu.candidates"]["value"] == "L4|A10"
    assert facts["gpu.memory_gb"]["value"] == 24
    view = FactSet({"gpu.vendor": Fact("nvidia", "manifest"), "gpu.candidates": Fact("L4|A10", "manifest")})
    assert [w.name for w in gpu_worlds(view) or []] == ["A10", "L4"]  # catalogue order, no unknown GPU
    # RL117 (SM 8.0-9.0) holds on both: definite; on main the "GPU the catalogue does not know" kept it possible
    text = DEPLOYMENT.format(placement=AFFINITY, resource="nvidia.com/gpu")
    assert _rows(_lint(text, "d.yaml", "kubernetes"), "RL117") == [("RL117", "definite", 18, 18, True)]


# -- Jetson images --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("tag", "sm", "candidates"), [
    ("r36.4.0", "8.7", "Jetson Orin|Jetson Orin Nano"),
    ("b5283-r36.4-cu128-24.04", "8.7", "Jetson Orin|Jetson Orin Nano"),
    ("r35.2.1", None, "Jetson Orin|Jetson Orin Nano|Jetson AGX Xavier"),
    ("r38.2.arm64-sbsa", None, None),  # not in the table: nothing narrowed
    ("latest", None, None),
])
def test_an_l4t_release_names_the_jetson_modules(tmp_path: Path, tag: str, sm: str | None,
                                                 candidates: str | None) -> None:
    facts = _facts(tmp_path, "compose.yaml", "services:\n  l:\n    image: dustynv/llama_cpp:" + tag
                   + "\n    command: [\"llama-server\", \"-m\", \"/m/q.gguf\"]\n")
    assert facts.get("gpu.sm", {}).get("value") == sm
    assert facts.get("gpu.candidates", {}).get("value") == candidates
    if candidates:
        assert facts["gpu.candidates"]["origin"] == "image"
        assert "JetPack" in facts["gpu.candidates"]["note"]


def test_jetson_containers_on_ghcr_are_jetson_images(tmp_path: Path) -> None:
    facts = _facts(tmp_path, "compose.yaml", "services:\n  l:\n    image: ghcr.io/nvidia-ai-iot/llama_cpp:r36.4.0\n"
                   "    command: [\"llama-server\", \"-m\", \"/m/q.gguf\"]\n")
    assert (facts["engine.backend"]["value"], facts["gpu.sm"]["value"]) == ("cuda", "8.7")


def test_jetson_orin_rules_out_a_record_of_old_gpus() -> None:
    text = ("services:\n  l:\n    image: dustynv/llama_cpp:r36.4.0\n    runtime: nvidia\n"
            "    command: [\"llama-server\", \"-m\", \"/m/q.gguf\", \"-fa\", \"on\", \"-np\", \"4\"]\n")
    assert _rows(_lint(text, "compose.yaml", "compose"), "RL130") == []  # SM 6.1 or below 6.0: not an Orin
    assert _rows(_lint(text.replace("r36.4.0", "latest"), "compose.yaml", "compose"), "RL130") == [
        ("RL130", "possible", 5, 63, True)]


# -- backends a vendor rules out ------------------------------------------------------------------------------------


def _judge(trigger: dict[str, Any], facts: dict[str, Fact]) -> bool | None:
    base = FactSet(dict(facts))
    return judge(compile_trigger({"when": trigger}), Worlds(None, base, None, ())).value


CUDA = {"all": [{"fact": "engine.backend", "eq": "cuda"}, {"fact": "flag.x", "present": True}]}


def test_a_stated_vendor_rules_out_backends_of_other_vendors() -> None:
    flag = {"flag.x": Fact("1", "flag")}
    assert _judge(CUDA, {**flag, "gpu.vendor": Fact("amd", "env")}) is False
    assert _judge(CUDA, {**flag, "gpu.vendor": Fact("nvidia", "env")}) is None
    assert _judge(CUDA, flag) is None  # no vendor: every backend stays
    hip_or_vulkan = {"fact": "engine.backend", "in": ["hip", "vulkan"]}
    assert _judge(hip_or_vulkan, {"gpu.vendor": Fact("nvidia", "env")}) is None  # Vulkan runs on NVIDIA too
    not_cuda = {"fact": "engine.backend", "ne": "cuda"}
    assert _judge(not_cuda, {"gpu.vendor": Fact("intel", "env")}) is True
    view = backend_ruled_out(compile_trigger({"when": CUDA}), FactSet({"gpu.vendor": Fact("amd", "env", "a", 1, 1)}))
    assert view is not None
    fact = view.get("engine.backend")
    assert fact is not None and fact.value == OTHER_BACKEND and fact.note == "gpu.vendor=amd runs no cuda build"


def test_rl133_is_absent_on_an_amd_host() -> None:
    text = ("ROCR_VISIBLE_DEVICES=0\nLLAMA_ARG_MODEL=/m/q.gguf\nLLAMA_ARG_N_GPU_LAYERS=99\nLLAMA_ARG_FLASH_ATTN=on\n"
            "LLAMA_ARG_CACHE_TYPE_K=q8_0\nLLAMA_ARG_CACHE_TYPE_V=q8_0\n")
    assert _rows(_lint(text, "llama.env", "env"), "RL133") == []
    cuda_host = text.replace("ROCR_VISIBLE_DEVICES=0", "NVIDIA_VISIBLE_DEVICES=0")
    assert _rows(_lint(cuda_host, "llama.env", "env"), "RL133") == [("RL133", "possible", 6, 1, True)]


# -- a Linux container ----------------------------------------------------------------------------------------------


def test_a_windows_only_record_does_not_show_in_a_linux_container() -> None:
    argv = "llama-server -m /m/qwen3-30b-a3b-Q4_K_M.gguf -ot .ffn_.*_exps.=CPU -ngl 99"
    # a bare script: the OS is open, RL231 (Windows releases) possible
    assert _rows(_lint(argv + "\n", "serve.sh", "shell"), "RL231") == [("RL231", "possible", 1, 46, True)]  # at -ot
    compose = f"services:\n  l:\n    image: ghcr.io/ggml-org/llama.cpp:server-cuda\n    command: {argv[13:]}\n"
    assert _rows(_lint(compose, "compose.yaml", "compose"), "RL231") == []
    docker = f"docker run --gpus all ghcr.io/ggml-org/llama.cpp:server-cuda {argv[13:]}\n"
    assert _rows(_lint(docker, "run.sh", "shell"), "RL231") == []


def test_a_gpu_outside_the_files_candidates_is_not_used() -> None:
    text = DEPLOYMENT.format(placement=AFFINITY, resource="nvidia.com/gpu")
    result = lint_text(text, "d.yaml", "kubernetes", Options(target=Target("H100", None, None, {})))
    assert _rows(result.findings, "RL117") == [("RL117", "definite", 18, 18, True)]  # the file's L4 or A10G
    assert "d.yaml:13: the file allows only L4, A10; the cli GPU H100 is not used" in result.notes
    inside = lint_text(text, "d.yaml", "kubernetes", Options(target=Target("L4", None, None, {})))
    assert _rows(inside.findings, "RL117") == [("RL117", "definite", 18, 18, True)]


# -- cloud instance types -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("placement", "expected"), [
    ("      nodeSelector:\n        node.kubernetes.io/instance-type: g5.2xlarge\n", {"gpu.model": "A10"}),
    ("      nodeSelector:\n        node.kubernetes.io/instance-type: a3-highgpu-8g\n", {"gpu.model": "H100"}),
    ("      nodeSelector:\n        node.kubernetes.io/instance-type: Standard_NC24ads_A100_v4\n",
     {"gpu.model": "A100"}),
    ("      nodeSelector:\n        karpenter.k8s.aws/instance-family: p5e\n", {"gpu.model": "H200"}),
    ("      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n"
     "            nodeSelectorTerms:\n              - matchExpressions:\n"
     "                  - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g5, g6]}\n",
     {"gpu.candidates": "A10|L4", "gpu.sm": None}),
    ("      nodeSelector:\n        node.kubernetes.io/instance-type: m5.xlarge\n", {"gpu.model": None}),
])
def test_a_cloud_instance_type_names_its_gpu(tmp_path: Path, placement: str, expected: dict[str, str | None]) -> None:
    facts = _facts(tmp_path, "d.yaml", DEPLOYMENT.format(placement=placement, resource="nvidia.com/gpu"))
    assert {k: facts.get(k, {}).get("value") for k in expected} == expected
    for key, value in expected.items():
        if value is not None:
            assert facts[key]["origin"] == "manifest" and facts[key]["line"] in (9, 13)  # the label or the expression


# -- the parsers on any text ----------------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abcr0123456789.-_", max_size=30), st.sampled_from(["", "-cu128", "-cu126-22.04"]))
def test_l4t_tags_never_fail_and_read_only_a_delimited_release(prefix: str, suffix: str) -> None:
    image = Word("dustynv/llama_cpp", Span("c.yaml", 1, 1, 1, 18))
    clues = l4t_clues(image, prefix + suffix)  # any text: no exception
    assert all(c.key in GPU_KEYS for c in clues)
    stem = prefix.rstrip("-_.") + ("-" if prefix.rstrip("-_.") else "")
    if not re.search(r"r\d{2}\.\d", stem):  # no other release in the tag (two releases: none is read)
        found = {c.key: c.value for c in l4t_clues(image, f"{stem}r36.4.0{suffix}")}
        assert found["gpu.candidates"] == "Jetson Orin|Jetson Orin Nano"
    assert l4t_clues(image, "r35.1-r36.4.0") == []  # two releases: none is read


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_instance_types_and_mig_profiles_never_fail(name: str) -> None:
    assert hardware.instance_type(name) is None or hardware.instance_type(name).gpus  # type: ignore[union-attr]
    assert hardware.mig_profile(name) is None or hardware.mig_profile(name).gpus  # type: ignore[union-attr]
