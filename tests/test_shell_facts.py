"""`relialint facts` on scripts covering each shell and engine behaviour: exact value, origin, line, column."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.cli_run import invoke


def facts(tmp_path: Path, script: str, *args: str, files: dict[str, str] | None = None) -> list[dict[str, Any]]:
    for name, text in (files or {}).items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    (tmp_path / "serve.sh").write_text(script)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = invoke(["facts", "serve.sh", "--format", "json", *args])
    finally:
        os.chdir(cwd)
    doc = json.loads(result.output)
    out = []
    for dep in doc["deployments"]:
        table = {k: (v["value"], v["origin"], v.get("line"), v.get("column")) for k, v in dep["facts"].items()}
        table["@"] = (dep["engine"], dep["line"])
        out.append(table)
    return out


def test_continuations_with_a_commented_line_and_static_variables(tmp_path: Path) -> None:
    script = (': "${PORT:=8000}"\n'
              'KV=fp8\n'
              'vllm serve m --port "$PORT" \\\n'
              '  --kv-cache-dtype "${KV}" \\\n'
              '  --dtype half \\\n'
              '  # --max-model-len 8192\n')
    (d,) = facts(tmp_path, script)
    assert d["@"] == ("vllm", 3)
    assert d["flag.vllm.port"] == ("8000", "flag", 3, 14)
    assert d["kv_cache.dtype"] == ("fp8", "flag", 4, 3)
    assert d["serve.dtype"] == ("float16", "flag", 5, 3)
    assert "flag.vllm.max-model-len" not in d


def test_several_invocations_each_at_its_own_line(tmp_path: Path) -> None:
    script = "vllm serve a --dtype half &\nvllm serve b --dtype bfloat16 &\nwait\n"
    first, second = facts(tmp_path, script)
    assert (first["@"], first["serve.dtype"]) == (("vllm", 1), ("float16", "flag", 1, 14))
    assert (second["@"], second["serve.dtype"]) == (("vllm", 2), ("bfloat16", "flag", 2, 14))


def test_wrappers_prefixes_and_visible_devices(tmp_path: Path) -> None:
    script = ("export VLLM_USE_V2_MODEL_RUNNER=0\n"
              "systemd-run --scope -p MemoryMax=64G env VLLM_MARLIN_INPUT_DTYPE=fp8 \\\n"
              "  CUDA_VISIBLE_DEVICES=0,1,2,3 nohup exec vllm serve m -tp 4 &\n")
    (d,) = facts(tmp_path, script)
    assert d["@"] == ("vllm", 3)
    assert d["env.VLLM_USE_V2_MODEL_RUNNER"] == ("0", "env", 1, 8)
    assert d["env.VLLM_MARLIN_INPUT_DTYPE"] == ("fp8", "env", 2, 42)
    assert d["gpu.count"] == (4, "env", 3, 3)
    assert d["parallel.tensor"] == (4, "flag", 3, 56)


def test_unknown_variables_and_splices_stay_unknown(tmp_path: Path) -> None:
    script = 'vllm serve "$MODEL" --dtype "$DTYPE" "$@"\n'
    (d,) = facts(tmp_path, script)
    for key in ("model.name", "serve.dtype", "kv_cache.dtype", "spec_decode.enabled"):
        assert key not in d, key


def test_docker_run_env_file_gpus_entrypoint(tmp_path: Path) -> None:
    script = ("docker run --gpus 2 --env-file vllm.env -e VLLM_USE_V2_MODEL_RUNNER=0 \\\n"
              "  vllm/vllm-openai:v0.30.0 nvidia/Llama-3.3-70B-Instruct-FP4 --dtype bfloat16\n")
    (d,) = facts(tmp_path, script, files={"vllm.env": "VLLM_MARLIN_INPUT_DTYPE=int8\nVLLM_USE_V2_MODEL_RUNNER=1\n"})
    assert d["engine.version"] == ("0.30.0", "image", 2, 3)
    assert d["launch.form"][0] == "serve"
    assert d["gpu.count"] == (2, "manifest", 1, 19)
    assert d["env.VLLM_MARLIN_INPUT_DTYPE"] == ("int8", "env", 1, 1)
    assert d["env.VLLM_USE_V2_MODEL_RUNNER"] == ("0", "env", 1, 44)  # -e wins over --env-file
    assert d["model.quantization"] == ("nvfp4", "inferred", 2, 28)
    assert d["serve.dtype"] == ("bfloat16", "flag", 2, 62)


def test_old_image_entrypoint_is_the_api_server(tmp_path: Path) -> None:
    (d,) = facts(tmp_path, "docker run vllm/vllm-openai:v0.10.2 --model m\n")
    assert d["launch.form"][0] == "api_server"
    assert d["engine.version"] == ("0.10.2", "image", 1, 12)


def test_heredoc_config_and_pip_pin(tmp_path: Path) -> None:
    script = ('uv pip install "vllm==0.12.0"\n'
              "cat > cfg.yaml <<EOF\n"
              "kv_cache_dtype: fp8_e5m2\n"
              "enforce-eager: false\n"
              "EOF\n"
              "VLLM_ATTENTION_BACKEND=FLASHINFER vllm serve m --config cfg.yaml\n")
    (d,) = facts(tmp_path, script)
    assert d["engine.version"] == ("0.12.0", "inferred", 1, 16)
    assert d["kv_cache.dtype"] == ("fp8_e5m2", "config-file", 3, 1)
    # 0.12.0 drops the file's `false` before the parser (RL540): the default, not the key, decides
    assert d["cuda_graphs.enabled"] == (True, "default", None, None)
    assert d["attention.backend"] == ("FLASHINFER", "env", 6, 1)
    assert d["prefix_caching.enabled"] == (True, "default", None, None)


def test_attention_env_var_ignored_from_0_15(tmp_path: Path) -> None:
    (d,) = facts(tmp_path, "VLLM_ATTENTION_BACKEND=FLASHINFER vllm serve m\n", "--engine-version", "0.16.0")
    assert d["attention.backend"] == ("auto", "default", None, None)


@pytest.mark.parametrize(("version", "prefix", "util", "v2"), [
    ("0.7.3", False, 0.9, False),
    ("0.19.0", True, 0.9, False),
    ("0.20.0", True, 0.92, False),
    ("0.21.0", True, 0.92, False),
    ("0.30.0", True, 0.92, True),
])
def test_defaults_by_version(tmp_path: Path, version: str, prefix: bool, util: float, v2: bool) -> None:
    (d,) = facts(tmp_path, "vllm serve m\n", "--engine-version", version)
    assert d["prefix_caching.enabled"] == (prefix, "default", None, None)
    assert d["memory.gpu_utilization"] == (util, "default", None, None)
    assert d["engine.v2_model_runner"] == (v2, "default", None, None)


@pytest.mark.parametrize("version", ["0.22.0", "0.24.0", "0.28.0"])
def test_v2_model_runner_by_architecture(tmp_path: Path, version: str) -> None:
    """0.22.0-0.28.x run V2 by default only for the architectures vLLM lists (DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES,
    vllm/config/vllm.py), which a config does not show: the fact stays unknown."""
    (d,) = facts(tmp_path, "vllm serve m\n", "--engine-version", version)
    assert "engine.v2_model_runner" not in d


def test_version_dependent_defaults_unknown_without_a_version(tmp_path: Path) -> None:
    (d,) = facts(tmp_path, "vllm serve m\n")
    for key in ("prefix_caching.enabled", "memory.gpu_utilization", "engine.v2_model_runner"):
        assert key not in d, key
    assert d["serve.dtype"] == ("auto", "default", None, None)


def test_cmake_build_and_llama_env_precedence(tmp_path: Path) -> None:
    script = ("cmake -B build -DGGML_VULKAN=ON\n"
              "LLAMA_ARG_UBATCH=1024 LLAMA_ARG_CTX_SIZE=8192 ./build/bin/llama-server -m m.gguf -ub 256\n")
    (d,) = facts(tmp_path, script)
    assert d["engine.backend"] == ("vulkan", "build", 1, 16)
    assert d["build.GGML_VULKAN"] == ("ON", "build", 1, 16)
    assert d["llama.ubatch"] == (256, "flag", 2, 82)  # the command line wins over LLAMA_ARG_UBATCH
    assert d["llama.ctx_size"] == (8192, "env", 2, 23)
    assert d["llama.batch"] == (2048, "default", None, None)


def test_llama_image_tag_and_flash_attn_by_build(tmp_path: Path) -> None:
    (d,) = facts(tmp_path, "docker run ghcr.io/ggml-org/llama.cpp:server-rocm-b6500 -m /m.gguf -fa on\n")
    assert d["engine.backend"] == ("hip", "image", 1, 12)
    assert d["engine.version"] == ("b6500", "image", 1, 12)
    assert d["llama.flash_attn"] == ("on", "flag", 1, 68)


def test_bench_facts_and_clock_lock(tmp_path: Path) -> None:
    script = ("nvidia-smi -lgc 1980,1980\n"
              "vllm bench serve --model m --metric-percentiles 50,99\n"
              "guidellm benchmark --target http://localhost:8000 --max-seconds 60\n")
    bench1, bench2 = (d for d in facts(tmp_path, script) if d["@"][0] == "bench")
    assert bench1["bench.tool"] == ("vllm-bench-serve", "flag", 2, 1)
    assert bench1["bench.clocks_locked"] == (True, "inferred", 1, 12)
    assert bench1["bench.percentiles"] == ("50,99", "flag", 2, 28)
    assert bench1["bench.reports_tail"] == (True, "flag", 2, 28)
    assert bench2["bench.duration_s"] == (60.0, "flag", 3, 51)


def test_sglang_bench_serving_is_a_benchmark(tmp_path: Path) -> None:
    """SGLang's bench_serving always prints the median and P99 (python/sglang/bench_serving.py) and has no duration
    option; ``python -m sglang.launch_server`` is a server, not a benchmark."""
    script = ("python3 -m sglang.bench_serving --backend sglang --num-prompts 500 --request-rate 8\n"
              "python -m sglang.launch_server --model-path m\n"
              "python3 -m sglang.bench_serving $OPTS\n")
    benches = [d for d in facts(tmp_path, script) if d["@"][0] == "bench"]
    assert len(benches) == 2
    first, spliced = benches
    assert first["bench.tool"] == ("sglang-bench-serving", "flag", 1, 1)
    assert first["bench.percentiles"] == ("50,99", "default", None, None)
    assert first["bench.reports_tail"] == (True, "default", None, None)
    assert first["bench.clocks_locked"] == (False, "inferred", 1, 1)
    assert "bench.duration_s" not in first
    assert spliced["bench.tool"] == ("sglang-bench-serving", "flag", 3, 1)
    assert "bench.reports_tail" not in spliced and "bench.clocks_locked" not in spliced  # $OPTS may say otherwise


def test_local_checkpoint_config(tmp_path: Path) -> None:
    config = json.dumps({"quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4"}}, indent=2)
    (d,) = facts(tmp_path, "vllm serve ./ckpt --dtype bfloat16\n", files={"ckpt/config.json": config})
    assert d["model.quantization"] == ("nvfp4", "config-file", 2, 3)
    assert d["model.kv_cache_scales"] == (None, "config-file", 2, 3)  # no kv_cache_quant_algo: no KV scales


@pytest.mark.parametrize(("quant", "expected"), [
    ({"quant_method": "compressed-tensors", "format": "float-quantized",
      "kv_cache_scheme": {"num_bits": 8, "type": "float", "strategy": "tensor"}}, "compressed-tensors"),
    ({"quant_method": "compressed-tensors", "format": "pack-quantized", "kv_cache_scheme": None}, None),
    ({"quant_method": "modelopt", "quant_algo": "FP8", "kv_cache_quant_algo": "FP8"}, "modelopt"),
])
def test_local_checkpoint_kv_cache_scales(tmp_path: Path, quant: dict[str, object], expected: str | None) -> None:
    """A local checkpoint's quantization_config says whether it ships calibrated KV-cache scales (RL123, RL124)."""
    config = json.dumps({"quantization_config": quant}, indent=2)
    (d,) = facts(tmp_path, "vllm serve ./ckpt --kv-cache-dtype fp8\n", files={"ckpt/config.json": config})
    assert d["model.kv_cache_scales"] == (expected, "config-file", 2, 3)



@pytest.mark.parametrize(("quant", "scheme", "block"), [
    # a compressed-tensors W4A16 checkpoint as llm-compressor writes it: kv_cache_scheme null
    ({"quant_method": "compressed-tensors", "format": "pack-quantized", "kv_cache_scheme": None,
      "config_groups": {"group_0": {"weights": {"num_bits": 4, "strategy": "group"}, "input_activations": None}}},
     False, None),
    # an FP8 KV-cache scheme declared next to the weights (issue 56992's kind of checkpoint)
    ({"quant_method": "compressed-tensors", "format": "pack-quantized",
      "kv_cache_scheme": {"num_bits": 8, "type": "float", "strategy": "tensor"},
      "config_groups": {"group_0": {"weights": {"num_bits": 4, "strategy": "group"}, "input_activations": None}}},
     True, None),
    # DeepSeek-style block FP8 (quant_method fp8 with weight_block_size)
    ({"quant_method": "fp8", "activation_scheme": "dynamic", "weight_block_size": [128, 128]}, False, True),
    # per-tensor FP8
    ({"quant_method": "fp8", "activation_scheme": "static"}, False, False),
    # compressed-tensors FP8 with a block weight strategy
    ({"quant_method": "compressed-tensors", "format": "float-quantized",
      "config_groups": {"group_0": {"weights": {"num_bits": 8, "type": "float", "strategy": "block"},
                                    "input_activations": {"num_bits": 8, "type": "float"}}}}, False, True),
])
def test_local_checkpoint_kv_cache_scheme_and_fp8_block(tmp_path: Path, quant: dict[str, Any], scheme: bool,
                                                        block: bool | None) -> None:
    config = json.dumps({"architectures": ["X"], "quantization_config": quant}, indent=2)
    (d,) = facts(tmp_path, "vllm serve ./ckpt\n", files={"ckpt/config.json": config})
    assert d["model.kv_cache_scheme"] == (scheme, "config-file", 5, 3)
    if block is None:
        assert "model.fp8_block" not in d
    else:
        assert d["model.fp8_block"] == (block, "config-file", 5, 3)


def test_kv_cache_scheme_unknown_for_a_hub_id_and_false_without_quantization(tmp_path: Path) -> None:
    (hub,) = facts(tmp_path, "vllm serve RedHatAI/Qwen3-8B-quantized.w4a16\n")
    assert "model.kv_cache_scheme" not in hub
    (plain,) = facts(tmp_path, "vllm serve ./plain\n", files={"plain/config.json": '{"architectures": ["X"]}'})
    assert plain["model.kv_cache_scheme"] == (False, "config-file", 1, 1)


def test_equivalent_spellings(tmp_path: Path) -> None:
    seen = set()
    for spelling in ("--kv-cache-dtype fp8", "--kv_cache_dtype=fp8", "--kv-cache-dtype=fp8"):
        (d,) = facts(tmp_path, f"vllm serve m {spelling}\n")
        seen.add(d["kv_cache.dtype"][:2])
    (d,) = facts(tmp_path, "vllm serve m --config c.yaml\n", files={"c.yaml": "kv_cache_dtype: fp8\n"})
    seen.add((d["kv_cache.dtype"][0], "flag"))
    assert seen == {("fp8", "flag")}


@pytest.mark.parametrize(("version", "script", "expected"), [
    ("0.12.0", "vllm serve m\n", (True, "default", None, None)),
    ("0.12.0", "VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION=1 vllm serve m\n", (False, "env", 1, 1)),
    ("0.16.0", "VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION=1 vllm serve m\n", (True, "default", None, None)),
    ("0.16.0", "vllm serve m --attention-config.disable_flashinfer_q_quantization true\n", (False, "flag", 1, 14)),
])
def test_flashinfer_q_quantization(tmp_path: Path, version: str, script: str, expected: tuple[object, ...]) -> None:
    (d,) = facts(tmp_path, script, "--engine-version", version)
    assert d["attention.flashinfer_q_quant"] == expected


def test_flashinfer_q_quantization_unknown_before_it_exists(tmp_path: Path) -> None:
    (d,) = facts(tmp_path, "vllm serve m\n", "--engine-version", "0.9.0")
    assert "attention.flashinfer_q_quant" not in d


@pytest.mark.parametrize(("version", "script", "expected"), [
    ("0.10.1", "vllm serve m\n", ("PIECEWISE", "default", None, None)),
    ("0.11.0", "vllm serve m\n", ("FULL_AND_PIECEWISE", "default", None, None)),
    ("0.30.0", "vllm serve m --enforce-eager\n", ("NONE", "default", None, None)),
    ("0.30.0", "vllm serve m -cc.cudagraph_mode piecewise\n", ("PIECEWISE", "flag", 1, 14)),
])
def test_cudagraph_mode_by_version(tmp_path: Path, version: str, script: str, expected: tuple[object, ...]) -> None:
    (d,) = facts(tmp_path, script, "--engine-version", version)
    assert d["cuda_graphs.mode"] == expected


def test_cudagraph_mode_unknown_without_version(tmp_path: Path) -> None:
    (d,) = facts(tmp_path, "vllm serve m\n")
    assert "cuda_graphs.mode" not in d


@pytest.mark.parametrize(("word", "expected"), [("enabled", "on"), ("1", "on"), ("false", "off"), ("-1", "auto")])
def test_llama_flash_attn_env_words(tmp_path: Path, word: str, expected: str) -> None:
    (d,) = facts(tmp_path, f"LLAMA_ARG_FLASH_ATTN={word} llama-server -m m.gguf\n")
    assert d["llama.flash_attn"] == (expected, "env", 1, 1)


def test_rocm_images_take_their_command_from_the_arguments(tmp_path: Path) -> None:
    script = ("docker run rocm/vllm:rocm7.0.0_vllm_0.11.1_20251024 vllm serve m\n"
              "docker run vllm/vllm-openai-rocm:v0.30.0 m --dtype half\n"
              "docker run vllm/vllm-openai:v0.30.0 vllm serve m\n")
    amd, rocm, cuda = facts(tmp_path, script)
    assert amd["engine.backend"] == ("hip", "image", 1, 12)
    assert amd["engine.version"] == ("0.11.1", "image", 1, 12)
    assert amd["launch.form"] == ("serve", "inferred", 1, 64)
    assert amd["launch.serve_repeated"][0] is False
    assert amd["model.name"] == ("m", "flag", 1, 64)
    assert rocm["launch.form"] == ("image", "inferred", 2, 42)
    assert rocm["serve.dtype"] == ("float16", "flag", 2, 44)
    assert cuda["launch.serve_repeated"] == (True, "manifest", 3, 37)  # RL503: the entrypoint is vllm serve


@pytest.mark.parametrize(("script", "expected"), [
    ("vllm serve m --attention-config '{\"flash_attn_version\": 4}'\n", (True, "flag", 1, 14)),
    ("vllm serve m --attention-config.flash_attn_version 3\n", (False, "flag", 1, 14)),
])
def test_flash_attention_version_asked_for(tmp_path: Path, script: str, expected: tuple[object, ...]) -> None:
    (d,) = facts(tmp_path, script, "--engine-version", "0.30.0")
    assert d["attention.fa4"] == expected


def test_flash_attention_version_vllm_picks_is_unknown(tmp_path: Path) -> None:
    # on SM90 vLLM picks FA3 or FA4 by the model's attention shape, which the file does not say
    (d,) = facts(tmp_path, "vllm serve m\n", "--engine-version", "0.30.0", "--gpu", "H100")
    assert "attention.fa4" not in d
