"""Real-world command-line shapes go through the shell reader and the engine models without an error."""

from __future__ import annotations

import pytest

from relialint.engines import extract
from relialint.lint import finish
from relialint.readers import shell
from relialint.readers.opener import MemoryOpener

SHAPES: list[tuple[str, str]] = [
    ("vllm serve meta-llama/Llama-3.1-8B-Instruct", "vllm"),
    ("vllm serve --model meta-llama/Llama-3.1-8B-Instruct --port 8000", "vllm"),
    ("vllm serve m --host 0.0.0.0 --port 8000 --api-key $KEY", "vllm"),
    ("vllm serve m -tp 8 -pp 2", "vllm"),
    ("vllm serve m -tp=4", "vllm"),
    ("vllm serve m --tensor_parallel_size=4 --gpu_memory_utilization=0.85", "vllm"),
    ("vllm serve m --gpu-mem 0.5 --max-model 4096", "vllm"),
    ("vllm serve m --max-model-len 32k", "vllm"),
    ("vllm serve m --enable-prefix-caching --no-enable-prefix-caching", "vllm"),
    ("vllm serve m --disable-prefix-caching", "vllm"),
    ("vllm serve m --no-enforce-eager", "vllm"),
    ("vllm serve m --speculative-config '{\"method\":\"eagle3\",\"model\":\"d\",\"num_speculative_tokens\":3}'",
     "vllm"),
    ("vllm serve m --speculative-config.method mtp --speculative-config.num_speculative_tokens 2", "vllm"),
    ("vllm serve m -sc.method=ngram -sc.prompt_lookup_max 4", "vllm"),
    ("vllm serve m --speculative-model d --num-speculative-tokens 5", "vllm"),
    ("vllm serve m -O3", "vllm"),
    ("vllm serve m -O 3", "vllm"),
    ("vllm serve m -cc.cudagraph_mode FULL_AND_PIECEWISE", "vllm"),
    ("vllm serve m --compilation-config '{\"cudagraph_mode\": \"NONE\"}'", "vllm"),
    ("vllm serve m --attention-backend FLASHINFER", "vllm"),
    ("vllm serve m -ac.backend=TRITON_ATTN", "vllm"),
    ("vllm serve m --moe-backend flashinfer-b12x", "vllm"),
    ("vllm serve m --quantization modelopt_fp4 --dtype half", "vllm"),
    ("vllm serve m -q awq_marlin", "vllm"),
    ("vllm serve m --kv-cache-dtype fp8_e5m2 --enforce-eager", "vllm"),
    ("vllm serve m --trust-remote-code --served-model-name a b", "vllm"),
    ("vllm serve m --hf-overrides '{\"rope_scaling\": {\"type\": \"yarn\"}}'", "vllm"),
    ("vllm serve m --limit-mm-per-prompt.image 2", "vllm"),
    ("vllm serve m --config cfg.yaml", "vllm"),
    ("vllm serve m --config=cfg.yaml", "vllm"),
    ("vllm serve m -- --not-an-option", "vllm"),
    ("vllm serve \"$MODEL\" $EXTRA_ARGS", "vllm"),
    ("vllm serve \"${MODEL:-m}\" \"$@\"", "vllm"),
    ("VLLM_USE_V1=1 vllm serve m", "vllm"),
    ("env VLLM_ATTENTION_BACKEND=FLASHINFER CUDA_VISIBLE_DEVICES=0,1 vllm serve m", "vllm"),
    ("exec vllm serve m", "vllm"),
    ("nohup vllm serve m > server.log 2>&1 &", "vllm"),
    ("systemd-run --scope -p MemoryMax=64G vllm serve m", "vllm"),
    ("sudo -u svc vllm serve m", "vllm"),
    ("timeout 3600 vllm serve m", "vllm"),
    ("numactl --cpunodebind=0 vllm serve m", "vllm"),
    ("/opt/venv/bin/vllm serve m", "vllm"),
    ("python -m vllm.entrypoints.openai.api_server --model m", "vllm"),
    ("python3 -m vllm.entrypoints.openai.api_server m", "vllm"),
    ("python3.12 -m vllm.entrypoints.openai.api_server --model m --port 8001", "vllm"),
    ("uv run python -m vllm.entrypoints.openai.api_server --model m", "vllm"),
    ("docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.30.0 m --dtype half", "vllm"),
    ("docker run --runtime nvidia --gpus '\"device=0,1\"' --ipc=host vllm/vllm-openai:latest --model m", "vllm"),
    ("docker run -e HF_TOKEN=$HF_TOKEN --env VLLM_USE_V1=1 vllm/vllm-openai:v0.9.2 --model m", "vllm"),
    ("docker run --entrypoint vllm vllm/vllm-openai:v0.30.0 serve m", "vllm"),
    ("docker run --rm --device /dev/kfd --device /dev/dri rocm/vllm:rocm7.0.0_vllm_0.11.1_20251024 vllm serve m",
     "vllm"),
    ("podman run --gpus all vllm/vllm-openai-rocm:v0.30.0 m", "vllm"),
    ("docker run -d --name llm --env-file .env vllm/vllm-openai:v0.11.0 --model m", "vllm"),
    ("llama-server -m model.gguf -c 4096 -ngl 99", "llama.cpp"),
    ("llama-server -hf ggml-org/gemma-3-1b-it-GGUF:Q4_K_M --port 8080", "llama.cpp"),
    ("./llama-server -m m.gguf -fa on -ub 1024 -b 4096", "llama.cpp"),
    ("llama-server -m m.gguf -fa -c 4096", "llama.cpp"),
    ("llama-server -m m.gguf --flash-attn auto --ctx-size=4096", "llama.cpp"),
    ("llama-server -m m.gguf -sm row -ts 3,1 -mg 0", "llama.cpp"),
    ("llama-server -m m.gguf -ctk q8_0 -ctv q8_0", "llama.cpp"),
    ("LLAMA_ARG_UBATCH=256 llama-server -m m.gguf", "llama.cpp"),
    ("llama serve -m m.gguf", "llama.cpp"),
    ("./server -m models/7B/ggml-model-q4_0.gguf -c 2048", "llama.cpp"),
    ("llama-cli -m m.gguf -p hello -n 32", "llama.cpp"),
    ("llama-perplexity -m m.gguf -f wiki.test.raw", "llama.cpp"),
    ("docker run -p 8080:8080 ghcr.io/ggml-org/llama.cpp:server-cuda-b6123 -m /models/m.gguf", "llama.cpp"),
    ("docker run ghcr.io/ggerganov/llama.cpp:full-rocm --server -m /m.gguf", "llama.cpp"),
    ("docker run ghcr.io/ggml-org/llama.cpp:server-vulkan -m /m.gguf -ngl all", "llama.cpp"),
    ("vllm bench serve --model m --metric-percentiles 50", "bench"),
    ("llama-bench -m m.gguf -r 5", "bench"),
    ("guidellm benchmark --target http://localhost:8000 --max-seconds 60", "bench"),
]


@pytest.mark.parametrize(("line", "engine"), SHAPES, ids=[s[0][:60] for s in SHAPES])
def test_shape_is_one_deployment_without_error(line: str, engine: str) -> None:
    result = shell.read(line + "\n", "shape.sh", MemoryOpener({}))
    assert [e for e in result.errors if e.severity == "error"] == []
    deployments = extract(result)
    for deployment in deployments:
        finish(deployment)
    engines = [d.engine for d in deployments]
    assert engine in engines, engines
    found = next(d for d in deployments if d.engine == engine)
    assert found.span.line == 1


def test_at_least_sixty_shapes() -> None:
    assert len(SHAPES) >= 60
