"""SGLang, the third engine (issue 26): each launch form is an SGLang deployment (never a vLLM one) with the facts of
the contract, each located at its word; image tags give the release, the backend and the AMD target; the defaults
are the release's; options and variables are checked against the release's tables (RL550, RL551)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from relialint.engines.registry import default_registry
from relialint.engines.sglang import image_facts
from relialint.engines.sglang_engine import SglangEngine
from tests.cli_run import invoke, invoke_on_file

Row = tuple[Any, str, int | None, int | None]


def deployments(tmp_path: Path, name: str, text: str, *args: str) -> list[dict[str, Any]]:
    result = invoke_on_file(tmp_path, name, text, ["facts", name, "--format", "json", *args])
    assert result.exception is None
    return list(json.loads(result.output)["deployments"])


def table(dep: dict[str, Any], *keys: str) -> dict[str, Row]:
    facts = dep["facts"]
    return {k: (facts[k]["value"], facts[k]["origin"], facts[k].get("line"), facts[k].get("column"))
            for k in keys if k in facts}


def check(tmp_path: Path, name: str, text: str, *args: str) -> list[tuple[str, str, int, int]]:
    doc = json.loads(invoke_on_file(tmp_path, name, text, ["check", name, "--format", "json", *args]).output)
    return [(f["code"], f["certainty"], f["line"], f["column"]) for f in doc["findings"]]


def test_registered() -> None:
    engine = default_registry().get("sglang")
    assert isinstance(engine, SglangEngine)
    assert engine.label == "SGLang" and engine.takes_version and engine.scheme == "pep440"
    assert default_registry().label("sglang") == "SGLang"


SHELL = ("#!/bin/bash\n"
         "export CUDA_VISIBLE_DEVICES=0,1\n"
         'pip install "sglang[all]==0.4.6.post1"\n'
         "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --tp 2 \\\n"
         "  --mem-fraction-static=0.85 --context-length 32768 --disable-radix-cache --kv-cache-dtype fp8_e5m2 \\\n"
         "  --chunked-prefill-size -1 --attention-backend fa3 --speculative-algorithm NEXTN "
         "--max-running-requests 64\n")


def test_launch_server_facts(tmp_path: Path) -> None:
    [dep] = deployments(tmp_path, "run.sh", SHELL)
    assert (dep["engine"], dep["line"]) == ("sglang", 4)
    assert table(dep, "engine.name", "engine.version", "sglang.launch_form", "model.name", "parallel.tensor",
                 "memory.gpu_utilization", "limits.max_model_len", "prefix_caching.enabled", "kv_cache.dtype",
                 "chunked_prefill.enabled", "sglang.chunked_prefill_size", "attention.backend",
                 "spec_decode.enabled", "spec_decode.method", "limits.max_num_seqs", "gpu.count",
                 "flag.sglang.tensor-parallel-size", "flag.sglang.disable-radix-cache",
                 "env.CUDA_VISIBLE_DEVICES") == {
        "engine.name": ("sglang", "inferred", 4, 1),
        "engine.version": ("0.4.6.post1", "inferred", 3, 13),
        "sglang.launch_form": ("launch_server", "inferred", 4, 1),
        "model.name": ("meta-llama/Llama-3.1-8B-Instruct", "flag", 4, 46),
        "parallel.tensor": (2, "flag", 4, 79),
        "flag.sglang.tensor-parallel-size": ("2", "flag", 4, 79),
        "memory.gpu_utilization": (0.85, "flag", 5, 3),
        "limits.max_model_len": (32768, "flag", 5, 30),
        "prefix_caching.enabled": (False, "flag", 5, 53),
        "flag.sglang.disable-radix-cache": ("true", "flag", 5, 53),
        "kv_cache.dtype": ("fp8_e5m2", "flag", 5, 75),
        "chunked_prefill.enabled": (False, "flag", 6, 3),
        "sglang.chunked_prefill_size": (-1, "flag", 6, 3),
        "attention.backend": ("FA3", "flag", 6, 29),
        "spec_decode.enabled": (True, "flag", 6, 53),
        "spec_decode.method": ("mtp", "flag", 6, 53),
        "limits.max_num_seqs": (64, "flag", 6, 83),
        "gpu.count": (2, "env", 2, 8),
        "env.CUDA_VISIBLE_DEVICES": ("0,1", "env", 2, 8),
    }


def test_defaults_of_the_release(tmp_path: Path) -> None:
    [dep] = deployments(tmp_path, "run.sh", "python -m sglang.launch_server --model-path Qwen/Qwen3-8B\n",
                        "--engine-version", "0.4.6.post1")
    assert table(dep, "prefix_caching.enabled", "cuda_graphs.enabled", "torch_compile.enabled",
                 "chunked_prefill.enabled", "spec_decode.enabled", "spec_decode.method", "sglang.dp_attention",
                 "parallel.tensor", "parallel.data", "parallel.expert", "limits.max_num_seqs", "kv_cache.dtype") == {
        "prefix_caching.enabled": (True, "default", None, None),
        "cuda_graphs.enabled": (True, "default", None, None),
        "torch_compile.enabled": (False, "default", None, None),
        "chunked_prefill.enabled": (True, "default", None, None),
        "spec_decode.enabled": (False, "default", None, None),
        "spec_decode.method": (None, "default", None, None),
        "sglang.dp_attention": (False, "default", None, None),
        "parallel.tensor": (1, "default", None, None),
        "parallel.data": (1, "default", None, None),
        "parallel.expert": (1, "default", None, None),
        "limits.max_num_seqs": (None, "default", None, None),
        "kv_cache.dtype": ("auto", "default", None, None),
    }
    # 0.5.3rc2-0.5.13 turn DP attention on for DeepSeek V3.2 (NSA): not claimed for it, nor for an unknown model
    [nsa] = deployments(tmp_path, "run.sh", "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2-Exp "
                        "--tp 8\n", "--engine-version", "0.5.6")
    [local] = deployments(tmp_path, "run.sh", "python -m sglang.launch_server --model-path /models/m --tp 8\n",
                          "--engine-version", "0.5.6")
    assert table(nsa, "sglang.dp_attention", "parallel.data") == table(local, "sglang.dp_attention") == {}
    # 0.2.7-0.2.12: chunked prefill off by default; EAGLE in 0.4.1.post4-0.4.3.post0 turns the radix cache off
    [old] = deployments(tmp_path, "run.sh", "python -m sglang.launch_server --model-path Qwen/Qwen2-7B\n",
                        "--engine-version", "0.2.9")
    assert table(old, "chunked_prefill.enabled") == {"chunked_prefill.enabled": (False, "default", None, None)}
    [eagle] = deployments(tmp_path, "run.sh", "python -m sglang.launch_server --model-path x/y "
                          "--speculative-algorithm EAGLE\n", "--engine-version", "0.4.2")
    assert table(eagle, "prefix_caching.enabled", "chunked_prefill.enabled", "cuda_graphs.enabled") == {
        "cuda_graphs.enabled": (True, "default", None, None)}


def test_spliced_arguments_leave_defaults_unknown(tmp_path: Path) -> None:
    [dep] = deployments(tmp_path, "run.sh", "python -m sglang.launch_server --model-path x/y $EXTRA_ARGS\n",
                        "--engine-version", "0.4.6.post1")
    assert table(dep, "prefix_caching.enabled", "cuda_graphs.enabled") == {}


def test_sglang_serve_and_the_router(tmp_path: Path) -> None:
    text = ("sglang serve Qwen/Qwen3-8B --tp 2 --attention-backend triton --enable-torch-compile\n"
            "python -m sglang_router.launch_server --model-path Qwen/Qwen3-8B --dp-size 4 "
            "--router-policy cache_aware --ep 2 --enable-dp-attention\n")
    serve, router = deployments(tmp_path, "run.sh", text)
    assert table(serve, "sglang.launch_form", "model.name", "parallel.tensor", "attention.backend",
                 "torch_compile.enabled") == {
        "sglang.launch_form": ("serve", "inferred", 1, 1),
        "model.name": ("Qwen/Qwen3-8B", "flag", 1, 14),
        "parallel.tensor": (2, "flag", 1, 28),
        "attention.backend": ("TRITON", "flag", 1, 35),
        "torch_compile.enabled": (True, "flag", 1, 62),
    }
    assert table(router, "sglang.launch_form", "model.name", "parallel.data", "parallel.expert",
                 "sglang.dp_attention", "flag.sglang.router-policy") == {
        "sglang.launch_form": ("router", "inferred", 2, 1),
        "model.name": ("Qwen/Qwen3-8B", "flag", 2, 52),
        "parallel.data": (4, "flag", 2, 66),
        "parallel.expert": (2, "flag", 2, 106),
        "sglang.dp_attention": (True, "flag", 2, 113),
    }


COMPOSE = ("services:\n"
           "  amd:\n"
           "    image: lmsysorg/sglang:v0.5.2-rocm630-mi30x\n"
           "    environment:\n"
           "      SGLANG_USE_AITER: \"1\"\n"
           "    command: python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-size 8\n"
           "  vllm:\n"
           "    image: vllm/vllm-openai:v0.9.2\n"
           "    command: --model Qwen/Qwen3-8B --tensor-parallel-size 2\n"
           "  shell_only:\n"
           "    image: lmsysorg/sglang:latest\n")


def test_compose_with_both_engines(tmp_path: Path) -> None:
    amd, vllm = deployments(tmp_path, "compose.yaml", COMPOSE)
    assert (amd["engine"], amd["line"], vllm["engine"], vllm["line"]) == ("sglang", 6, "vllm", 8)
    assert table(amd, "engine.version", "engine.backend", "gpu.arch", "gpu.vendor", "env.SGLANG_USE_AITER",
                 "parallel.tensor") == {
        "engine.version": ("0.5.2", "image", 3, 12),
        "engine.backend": ("hip", "image", 3, 12),
        "gpu.arch": ("gfx942", "image", 3, 12),
        "gpu.vendor": ("amd", "inferred", 3, 12),
        "env.SGLANG_USE_AITER": ("1", "env", 5, 7),
        "parallel.tensor": (8, "flag", 6, 73),
    }


KUBERNETES = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: sglang
spec:
  template:
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.4.6.post1-cu124
          command: ["python3", "-m", "sglang.launch_server"]
          args:
            - --model-path
            - deepseek-ai/DeepSeek-V3
            - --tp=8
            - --enable-dp-attention
            - --dp
            - "8"
          resources:
            limits:
              nvidia.com/gpu: 8
"""


def test_kubernetes(tmp_path: Path) -> None:
    [dep] = deployments(tmp_path, "deploy.yaml", KUBERNETES)
    assert table(dep, "engine.name", "engine.version", "engine.backend", "model.name", "parallel.tensor",
                 "parallel.data", "sglang.dp_attention", "gpu.count") == {
        "engine.name": ("sglang", "inferred", 11, 21),
        "engine.version": ("0.4.6.post1", "image", 10, 18),
        "engine.backend": ("cuda", "image", 10, 18),
        "model.name": ("deepseek-ai/DeepSeek-V3", "flag", 14, 15),
        "parallel.tensor": (8, "flag", 15, 15),
        "parallel.data": (8, "flag", 17, 15),
        "sglang.dp_attention": (True, "flag", 16, 15),
        "gpu.count": (8, "manifest", 21, 15),
    }


def test_other_formats(tmp_path: Path) -> None:
    [docker] = deployments(tmp_path, "Dockerfile", 'FROM lmsysorg/sglang:v0.5.2-cu126\n'
                           'CMD ["python3", "-m", "sglang.launch_server", "--model-path", '
                           '"Qwen/Qwen2.5-7B-Instruct"]\n')
    assert table(docker, "engine.version", "engine.backend", "model.name") == {
        "engine.version": ("0.5.2", "image", 1, 6), "engine.backend": ("cuda", "image", 1, 6),
        "model.name": ("Qwen/Qwen2.5-7B-Instruct", "flag", 2, 63)}
    [unit] = deployments(tmp_path, "sglang.service", "[Service]\nEnvironment=CUDA_VISIBLE_DEVICES=0\n"
                         "ExecStart=/opt/venv/bin/python -m sglang.launch_server --model-path x/y "
                         "--context-length 4096\n")
    assert table(unit, "engine.name", "limits.max_model_len", "gpu.count") == {
        "engine.name": ("sglang", "inferred", 3, 11), "limits.max_model_len": (4096, "flag", 3, 73),
        "gpu.count": (1, "env", 2, 13)}
    [ps1] = deployments(tmp_path, "run.ps1", '$env:SGLANG_LOG_LEVEL = "info"\n'
                        "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --mem-fraction-static 0.7\n")
    assert table(ps1, "env.SGLANG_LOG_LEVEL", "memory.gpu_utilization") == {
        "env.SGLANG_LOG_LEVEL": ("info", "env", 1, 6), "memory.gpu_utilization": (0.7, "flag", 2, 59)}


@pytest.mark.parametrize(("image", "version", "rolling", "backend", "arch"), [
    ("lmsysorg/sglang:v0.4.6.post1-cu124", "0.4.6.post1", False, "cuda", None),
    ("lmsysorg/sglang:v0.5.2-rocm630-mi30x", "0.5.2", False, "hip", "gfx942"),
    ("lmsysorg/sglang:v0.5.4-rocm700-mi35x", "0.5.4", False, "hip", "gfx950"),
    ("lmsysorg/sglang:v0.5.4-cu129-b200", "0.5.4", False, "cuda", None),
    ("docker.io/lmsysorg/sglang:v0.5.0rc2-cu126", "0.5.0rc2", False, "cuda", None),
    ("lmsysorg/sglang:latest", None, True, "cuda", None),
    ("lmsysorg/sglang", None, True, "cuda", None),
    ("lmsysorg/sglang:dev", None, True, "cuda", None),
    ("lmsysorg/sglang:v0.5.18", "0.5.18", False, "cuda", None),
    ("lmsysorg/sglang:v0.5.9-cu129-amd64-runtime", "0.5.9", False, "cuda", None),
    ("lmsysorg/sglang:v0.4.6.post5-rocm630", "0.4.6.post5", False, "hip", None),
    ("lmsysorg/sglang:v0.5.3-xeon", "0.5.3", False, "cpu", None),
    ("lmsysorg/sglang:v0.5.3-npu", "0.5.3", False, "npu", None),
])
def test_image_tags(image: str, version: str | None, rolling: bool, backend: str | None, arch: str | None) -> None:
    said = image_facts(image)
    assert said is not None
    assert (str(said.version) if said.version else None, said.rolling, said.backend, said.arch) == (
        version, rolling, backend, arch)


def test_other_images_are_not_sglang() -> None:
    assert image_facts("vllm/vllm-openai:v0.9.2") is None
    assert image_facts("myorg/sglang-proxy:0.1") is None


def test_an_image_alone_is_no_deployment(tmp_path: Path) -> None:
    assert deployments(tmp_path, "compose.yaml", "services:\n  s:\n    image: lmsysorg/sglang:latest\n") == []


def _record(engines: list[str]) -> dict[str, Any]:
    return {"id": "RL999", "slug": "test", "title": "t", "severity": "major", "fix": "f", "engines": engines,
            "trigger": {"when": {"fact": "gpu.vendor", "eq": "nvidia"}, "message": "m"}}


@pytest.mark.parametrize(("engines", "applies"), [([], True), (["sglang"], True), (["vllm"], False),
                                                   (["vllm", "sglang"], True)])
def test_engine_independent_records_apply(tmp_path: Path, engines: list[str], applies: bool) -> None:
    """A record with no `engines:` (the hardware, power and measurement records) or naming SGLang applies to an
    SGLang deployment as to a vLLM one; one for vLLM alone does not."""
    from relialint.core.findings import evaluate
    from relialint.engines.common import at
    from relialint.readers import shell
    from relialint.readers.opener import MemoryOpener

    del tmp_path
    result = shell.read("python -m sglang.launch_server --model-path x/y\n", "run.sh", MemoryOpener({}))
    [dep] = default_registry().extract(result)
    dep.facts.set("gpu.vendor", at("nvidia", "manifest", None))
    found = evaluate(dep, [_record(engines)], default_registry().get("sglang"))
    assert [(f.code, f.certainty) for f in found] == ([("RL999", "definite")] if applies else [])


def _fixes(name: str, text: str, fix_set: dict[str, Any]) -> list[tuple[int, int, int, int, str]] | None:
    from relialint.readers import compose, shell
    from relialint.readers.opener import MemoryOpener

    reader = compose.read if name.endswith(".yaml") else shell.read
    result = reader(text, name, MemoryOpener({}))
    [dep] = default_registry().extract(result)
    engine = default_registry().get("sglang")
    assert engine is not None
    edits = engine.fix_edits(result, dep, fix_set)
    return None if edits is None else [(e.line, e.column, e.end_line, e.end_column, e.new_text) for e in edits]


def test_quick_fixes() -> None:
    launch = "python -m sglang.launch_server --model-path x/y --attention-backend fa3 --kv-cache-dtype=fp8_e5m2\n"
    assert _fixes("run.sh", launch, {"attention.backend": "TRITON", "kv_cache.dtype": "auto"}) == [
        (1, 69, 1, 72, "triton"), (1, 90, 1, 98, "auto")]
    assert _fixes("run.sh", launch, {"prefix_caching.enabled": False}) == [(1, 98, 1, 98, " --disable-radix-cache")]
    assert _fixes("run.sh", launch, {"chunked_prefill.enabled": False}) == [
        (1, 98, 1, 98, " --chunked-prefill-size -1")]
    assert _fixes("run.sh", launch, {"prefix_caching.enabled": True}) is None  # no switch turns it on
    compose = ('services:\n  s:\n    image: lmsysorg/sglang:v0.5.2-cu126\n'
               '    command: ["python3", "-m", "sglang.launch_server", "--model-path", "x/y"]\n')
    assert _fixes("compose.yaml", compose, {"cuda_graphs.enabled": False}) == [
        (4, 77, 4, 77, ', "--disable-cuda-graph"')]


def test_setting_text() -> None:
    from relialint.core.deployment import Deployment
    from relialint.engines.sglang_fixes import setting_text
    from relialint.readers.located import Span

    dep = Deployment("sglang", "shell", Span("x", 1, 1, 1, 1))
    assert setting_text(dep, "attention.backend", "TRITON") == "--attention-backend triton"
    assert setting_text(dep, "cuda_graphs.enabled", False) == "--disable-cuda-graph"
    assert setting_text(dep, "env.SGLANG_USE_AITER", "1") == "SGLANG_USE_AITER=1"
    assert setting_text(dep, "engine.v1", True) is None


def test_a_config_file(tmp_path: Path) -> None:
    """`--config FILE` (0.5.3rc2 on): the YAML keys become options before the command line's, each located at its
    key; a file not found leaves the options open."""
    (tmp_path / "server.yaml").write_text("model-path: Qwen/Qwen3-8B\ntp-size: 2\ncontext-lenght: 8192\n"
                                          "enable-torch-compile: true\ndisable-radix-cache: false\n")
    [dep] = deployments(tmp_path, "run.sh", "python -m sglang.launch_server --config server.yaml --tp-size 4\n",
                        "--engine-version", "0.5.13")
    assert table(dep, "model.name", "parallel.tensor", "torch_compile.enabled", "prefix_caching.enabled",
                 "args.unknown_option") == {
        "model.name": ("Qwen/Qwen3-8B", "config-file", 1, 1),
        "parallel.tensor": (4, "flag", 1, 53),  # the command line wins over the file
        "torch_compile.enabled": (True, "config-file", 4, 1),
        "prefix_caching.enabled": (True, "default", None, None),  # a switch set false in the file is left out
        "args.unknown_option": ("`--context-lenght` is not an option of SGLang 0.5.13 (did you mean "
                                "`--context-length`?)", "flag", 3, 1),
    }
    assert dep["facts"]["args.unknown_option"]["path"].endswith("server.yaml")
    [gone] = deployments(tmp_path, "run.sh", "python -m sglang.launch_server --config missing.yaml\n",
                         "--engine-version", "0.5.13")
    assert table(gone, "prefix_caching.enabled", "cuda_graphs.enabled") == {}
    assert "--config missing.yaml: not found; the options of the file are unknown" in gone["notes"]


# -- option and variable checks against the release tables (RL550, RL551) ------------------------------------------

CHECKED = ("export SGLANG_ENABLE_JIT_DEEPGEMM=0\n"
           "export SGL_ENABLE_JIT_DEEPGEMM=0\n"
           "export SGLANG_MY_OWN_SETTING=1\n"
           "export SGLANG_USE_AITR=1\n"
           "python3 -m sglang.launch_server --model-path x/y --enable-ep-moe --mem-fraction-statc 0.8 --tp 2\n")


def _messages(tmp_path: Path, text: str, *args: str) -> list[tuple[str, str, int, int, str]]:
    (tmp_path / "run.sh").write_text(text)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        doc = json.loads(invoke(["check", "run.sh", "--format", "json", "--select", "RL550,RL551",
                                 "--show-possible", *args]).output)
    finally:
        os.chdir(cwd)
    return [(f["code"], f["certainty"], f["line"], f["column"], f["message"]) for f in doc["findings"]]


def test_unknown_options_and_unread_variables_on_a_pinned_release(tmp_path: Path) -> None:
    old = _messages(tmp_path, CHECKED, "--engine-version", "0.4.6.post1")
    assert [f[:4] for f in old] == [("RL551", "definite", 1, 8), ("RL551", "definite", 4, 8),
                                    ("RL550", "definite", 5, 66)]
    assert old[0][4].startswith("SGLang 0.4.6.post1 does not read `SGLANG_ENABLE_JIT_DEEPGEMM` (read in ")
    assert "; use `SGL_ENABLE_JIT_DEEPGEMM` instead: the setting silently does nothing" in old[0][4]
    assert old[1][4].startswith("no SGLang version from 0.1.3 to ")
    assert "reads `SGLANG_USE_AITR` (did you mean `SGLANG_USE_AITER`?)" in old[1][4]
    assert old[2][4] == ("`--mem-fraction-statc` is not an option of SGLang 0.4.6.post1 (did you mean "
                         "`--mem-fraction-static`?): SGLang refuses to start (\"unrecognized arguments\")")
    new = _messages(tmp_path, CHECKED, "--engine-version", "0.5.23")
    # SGL_ENABLE_JIT_DEEPGEMM: 0.5.23 copies every SGL_* variable to SGLANG_* at import, and reads that one
    assert [f[:4] for f in new] == [("RL551", "definite", 4, 8), ("RL550", "definite", 5, 50),
                                    ("RL550", "definite", 5, 66)]
    assert new[1][4].startswith("`--enable-ep-moe` is not an option of SGLang 0.5.23; it exists in 0.4.0.post1-")


def test_unknown_option_with_the_release_unknown(tmp_path: Path) -> None:
    found = _messages(tmp_path, "python3 -m sglang.launch_server --model-path x/y --enable-ep-moe --tp 2\n")
    assert [f[:4] for f in found] == [("RL550", "possible", 1, 50)]
    assert found[0][4].startswith("`--enable-ep-moe` exists only in SGLang 0.4.0.post1-")
    assert "(possible: depends on engine.version: holds on SGLang 0.1.3-0.4.0, " in found[0][4]


def test_version_worlds(tmp_path: Path) -> None:
    """The written options narrow the releases; `sglang serve` runs on 0.5.5 and newer."""
    engine = default_registry().get("sglang")
    assert engine is not None
    tabled = list(engine.tabled_versions())
    assert str(tabled[0]) == "0.1.3" and str(tabled[-1]) == "0.5.23"
    from relialint.core.facts import FactSet

    narrowed = engine.allowed_versions(FactSet(), ["--enable-ep-moe", "--tp", "2"], None)
    assert str(narrowed[0]) == "0.4.0.post1" and all(str(v).startswith("0.") for v in narrowed)
    assert engine.allowed_versions(FactSet(), ["--enable-ep-moe"], "--enable-ep-moe") == tabled
    [serve] = deployments(tmp_path, "run.sh", "sglang serve Qwen/Qwen3-8B --tp 2\n")
    assert table(serve, "engine.version_range") == {"engine.version_range": (">=0.5.5", "inferred", 1, 1)}
    assert engine.version_class(engine.parse_version("0.4.6.post1")) != engine.version_class(
        engine.parse_version("0.2.9"))


def test_serve_model_type(tmp_path: Path) -> None:
    """`sglang serve --model-type` is the CLI's own option (0.5.10rc0 on), never the server's; a diffusion server is
    no language-model deployment."""
    [llm] = deployments(tmp_path, "run.sh", "sglang serve Qwen/Qwen3-8B --model-type llm --tp 2\n")
    assert "flag.sglang.model-type" not in llm["facts"]
    assert table(llm, "parallel.tensor") == {"parallel.tensor": (2, "flag", 1, 45)}
    assert deployments(tmp_path, "run.sh", "sglang serve black-forest-labs/FLUX.1-dev --model-type diffusion\n") == []


def test_rolling_tag(tmp_path: Path) -> None:
    [dep] = deployments(tmp_path, "compose.yaml", "services:\n  s:\n    image: lmsysorg/sglang:latest\n"
                        "    command: python3 -m sglang.launch_server --model-path x/y\n")
    newest = str(default_registry().get("sglang").tabled_versions()[-1])  # type: ignore[union-attr]
    assert table(dep, "engine.version", "engine.version_range", "engine.backend") == {
        "engine.version_range": (f">={newest}", "image", 3, 12), "engine.backend": ("cuda", "image", 3, 12)}


def test_release_delta() -> None:
    """`relialint upgrade` for SGLang: the tables say what a release moves; an SGL_* variable the target copies to
    SGLANG_* is still read there."""
    engine = default_registry().get("sglang")
    assert isinstance(engine, SglangEngine)
    delta = engine.release_delta(engine.parse_version("0.4.6.post1"), engine.parse_version("0.5.23"))
    assert delta.checked
    refused = {c.name for c in delta.options if c.change == "refused"}
    assert "--enable-ep-moe" in refused and "--disable-mla" not in refused  # gone before 0.4.6.post1 already
    assert "SGL_ENABLE_JIT_DEEPGEMM" not in {c.name for c in delta.env}
    # defaults relialint does not claim from 0.5.14 / 0.5.19 on (the resolution code moved): not known there
    assert [(d.fact, d.old, d.new_known) for d in delta.defaults] == [
        ("chunked_prefill.enabled", True, False), ("sglang.dp_attention", False, False), ("parallel.data", 1, False),
        ("parallel.expert", 1, False), ("kv_cache.dtype", "auto", False)]
    beyond = engine.release_delta(engine.parse_version("0.4.6.post1"), engine.parse_version("0.9.0"))
    assert not beyond.checked


LWS = """apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: sglang
spec:
  leaderWorkerTemplate:
    size: 2
    leaderTemplate:
      spec:
        containers:
          - name: leader
            image: lmsysorg/sglang:v0.5.4-cu129-b200
            command: ["python3", "-m", "sglang.launch_server", "--model-path", "deepseek-ai/DeepSeek-R1",
                      "--tp", "16", "--nnodes", "2", "--node-rank", "0"]
    workerTemplate:
      spec:
        containers:
          - name: worker
            image: lmsysorg/sglang:v0.5.4-cu129-b200
            command: ["python3", "-m", "sglang.launch_server", "--model-path", "deepseek-ai/DeepSeek-R1",
                      "--tp", "16", "--nnodes", "2", "--node-rank", "$(LWS_WORKER_INDEX)"]
"""


def test_leader_worker_set_docker_run_and_helm(tmp_path: Path) -> None:
    leader, worker = deployments(tmp_path, "lws.yaml", LWS)
    assert [(d["engine"], d["line"]) for d in (leader, worker)] == [("sglang", 13), ("sglang", 20)]
    assert table(worker, "engine.version", "engine.backend", "parallel.tensor", "flag.sglang.node-rank") == {
        "engine.version": ("0.5.4", "image", 19, 20), "engine.backend": ("cuda", "image", 19, 20),
        "parallel.tensor": (16, "flag", 21, 23), "flag.sglang.node-rank": ("$(LWS_WORKER_INDEX)", "flag", 21, 54)}
    [run] = deployments(tmp_path, "run.sh", "docker run --gpus all -e SGLANG_USE_AITER=1 "
                        "lmsysorg/sglang:v0.5.2-rocm630-mi30x python3 -m sglang.launch_server --model-path x/y\n")
    assert table(run, "engine.version", "gpu.arch", "env.SGLANG_USE_AITER") == {
        "engine.version": ("0.5.2", "image", 1, 45), "gpu.arch": ("gfx942", "image", 1, 45),
        "env.SGLANG_USE_AITER": ("1", "env", 1, 26)}
    [helm] = deployments(tmp_path, "chart/values.yaml", "image:\n  repository: lmsysorg/sglang\n"
                         "  tag: v0.4.9.post2-cu126\ncommand: [\"python3\", \"-m\", \"sglang.launch_server\"]\n"
                         "args: [\"--model-path\", \"Qwen/Qwen3-8B\", \"--tp-size\", \"2\"]\n")
    assert table(helm, "engine.version", "parallel.tensor") == {
        "engine.version": ("0.4.9.post2", "image", 3, 8), "parallel.tensor": (2, "flag", 5, 41)}
    assert deployments(tmp_path, "sglang.env", "SGLANG_USE_AITER=1\n") == []  # an env file alone launches nothing


def test_option_flags() -> None:
    engine = default_registry().get("sglang")
    assert engine is not None
    assert engine.option_flags("prefix_caching.enabled") == ["--disable-radix-cache"]
    assert engine.option_flags("parallel.tensor") == ["--tensor-parallel-size"]
    assert engine.option_flags("chunked_prefill.enabled") == ["--chunked-prefill-size"]
    assert engine.option_flags("flag.sglang.enable-mixed-chunk") == ["--enable-mixed-chunk"]
    assert engine.option_name("--mem-fraction-static=0.8") == "--mem-fraction-static"


def test_unique_prefixes_are_the_option(tmp_path: Path) -> None:
    """argparse's allow_abbrev: `--mem-frac` is `--mem-fraction-static` (the tables say it is unique)."""
    [dep] = deployments(tmp_path, "run.sh", "python -m sglang.launch_server --model-path x/y --mem-frac 0.8 "
                        "--context-len 4096 --tp-size=2\n", "--engine-version", "0.4.6.post1")
    assert table(dep, "memory.gpu_utilization", "limits.max_model_len", "parallel.tensor",
                 "flag.sglang.mem-fraction-static", "args.unknown_option") == {
        "memory.gpu_utilization": (0.8, "flag", 1, 49), "limits.max_model_len": (4096, "flag", 1, 64),
        "parallel.tensor": (2, "flag", 1, 83), "flag.sglang.mem-fraction-static": ("0.8", "flag", 1, 49),
        "args.unknown_option": (None, "inferred", None, None)}


def test_options_kept_only_to_be_refused() -> None:
    """A table's `deprecated` entries: an option a release keeps only to refuse it (SGLang's DeprecatedAction raises)
    counts as absent there, and the replacement the parser names is the option's rename."""
    from relialint.engines.flagcheck import VllmTable

    table = VllmTable({"versions": ["0.5.2", "0.5.3rc2", "0.5.4"], "options": {"--enable-ep-moe": [[0, 2, "f"]],
                                                                               "--ep-size": [[0, 2, "v"]]},
                       "env": {}, "deprecated": {"--enable-ep-moe": [[1, 2, "refused", "--ep-size"]]}})
    assert table.refused == {"--enable-ep-moe": frozenset({1, 2})}
    assert table.renames["--enable-ep-moe"] == ("--ep-size", "--ep-size")
