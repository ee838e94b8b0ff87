"""Real-world command-line shapes: each goes through the shell reader and the engine models without an error and
yields the deployments and the facts its own text says, each at its column."""

from __future__ import annotations

import pytest

from relialint.core.deployment import Deployment
from relialint.core.facts import json_value
from relialint.engines import extract
from relialint.readers import shell
from relialint.readers.opener import MemoryOpener
from relialint.run.lint import finish

Expected = tuple[object, ...]
"""A fact a shape should yield: ``(value, anchor)``, ``(value, anchor, origin)`` or ``(value, anchor, origin,
source anchor)``; the origin is ``flag`` unless given. An anchor names a column of the shape: where the text after
its ``^`` starts (``serve ^m``: the ``m`` after ``serve``), or where the anchor itself starts."""

VERDICTS = frozenset({"args.unknown_option", "args.unread_env", "args.unlisted_env", "llama.unknown_option",
                      "llama.bad_value", "llama.stray_word"})
"""The option and environment checks' verdicts (tests/test_flags.py, test_llamacpp_flags.py and
test_vllm_environ.py assert them, per version): not what a shape's text sets."""


def _container(word: str = "docker", *, ipc: str | None = None, port: str | None = None) -> dict[str, Expected]:
    """The ``container.*`` facts a ``docker``/``podman run`` states (merge27): a setting the line leaves out is read
    as off, at the command's first word; ``--ipc=host`` both shares the host's IPC and lifts the small /dev/shm."""
    return {
        "container.kind": ("docker", word, "manifest"),
        "container.ipc_host": (ipc is not None, ipc or word, "manifest"),
        "container.shm_enlarged": (ipc is not None, ipc or word, "manifest"),
        "container.memlock_unlimited": (False, word, "manifest"),
        "container.mount_targets": (",", word, "manifest"),
        "container.port_on_all_interfaces": (port is not None, port or word, "manifest"),
    }

SHAPES: list[tuple[str, dict[str, dict[str, Expected]]]] = [
    ("vllm serve meta-llama/Llama-3.1-8B-Instruct", {
        "vllm": {"model.name": ("meta-llama/Llama-3.1-8B-Instruct", "meta-llama/")},
    }),
    ("vllm serve --model meta-llama/Llama-3.1-8B-Instruct --port 8000", {
        "vllm": {"model.name": ("meta-llama/Llama-3.1-8B-Instruct", "meta-llama/")},
    }),
    ("vllm serve m --host 0.0.0.0 --port 8000 --api-key $KEY", {
        "vllm": {"model.name": ("m", "serve ^m"), "serve.host": ("0.0.0.0", "--host")},  # serve.host (merge27)
    }),
    ("vllm serve m -tp 8 -pp 2", {
        "vllm": {"model.name": ("m", "serve ^m"), "parallel.pipeline": (2, "-pp"), "parallel.tensor": (8, "-tp")},
    }),
    ("vllm serve m -tp=4", {
        "vllm": {"model.name": ("m", "serve ^m"), "parallel.tensor": (4, "-tp=4")},
    }),
    ("vllm serve m --tensor_parallel_size=4 --gpu_memory_utilization=0.85", {
        "vllm": {
            "memory.gpu_utilization": (0.85, "--gpu_memory"), "model.name": ("m", "serve ^m"),
            "parallel.tensor": (4, "--tensor_parallel"),
        },
    }),
    # argparse reads a unique prefix of a long option as that option
    ("vllm serve m --gpu-mem 0.5 --max-model 4096", {
        "vllm": {
            "limits.max_model_len": (4096, "--max-model"), "memory.gpu_utilization": (0.5, "--gpu-mem"),
            "model.name": ("m", "serve ^m"),
        },
    }),
    # vLLM reads a lower-case k as 1000 (an upper-case K as 1024)
    ("vllm serve m --max-model-len 32k", {
        "vllm": {"limits.max_model_len": (32000, "--max-model-len"), "model.name": ("m", "serve ^m")},
    }),
    # the last of two contradicting flags wins, at its own column
    ("vllm serve m --enable-prefix-caching --no-enable-prefix-caching", {
        "vllm": {"model.name": ("m", "serve ^m"), "prefix_caching.enabled": (False, "--no-enable-prefix-caching")},
    }),
    ("vllm serve m --disable-prefix-caching", {
        "vllm": {"model.name": ("m", "serve ^m"), "prefix_caching.enabled": (False, "--disable-prefix-caching")},
    }),
    ("vllm serve m --no-enforce-eager", {
        "vllm": {"cuda_graphs.enabled": (True, "--no-enforce-eager"), "model.name": ("m", "serve ^m")},
    }),
    ("vllm serve m --speculative-config '{\"method\":\"eagle3\",\"model\":\"d\",\"num_speculative_tokens\":3}'", {
        "vllm": {
            "args.spec_method": ("eagle3", "--speculative-config"), "model.name": ("m", "serve ^m"),
            "spec_decode.draft_model": ("d", "--speculative-config"),
            "spec_decode.enabled": (True, "--speculative-config"),
            "spec_decode.method": ("eagle3", "--speculative-config"),
            "spec_decode.num_tokens": (3, "--speculative-config"),
        },
    }),
    # the dotted pieces build one speculative config: its facts sit at the last piece
    ("vllm serve m --speculative-config.method mtp --speculative-config.num_speculative_tokens 2", {
        "vllm": {
            "args.spec_method": ("mtp", "--speculative-config.num"),
            "model.name": ("m", "serve ^m"),
            "spec_decode.enabled": (True, "--speculative-config.num"),
            "spec_decode.method": ("mtp", "--speculative-config.num"),
            "spec_decode.num_tokens": (2, "--speculative-config.num"),
        },
    }),
    ("vllm serve m -sc.method=ngram -sc.prompt_lookup_max 4", {
        "vllm": {
            "args.spec_method": ("ngram", "-sc.prompt_lookup_max"), "model.name": ("m", "serve ^m"),
            "spec_decode.enabled": (True, "-sc.prompt_lookup_max"),
            "spec_decode.method": ("ngram", "-sc.prompt_lookup_max"),
        },
    }),
    ("vllm serve m --speculative-model d --num-speculative-tokens 5", {
        "vllm": {
            "model.name": ("m", "serve ^m"), "spec_decode.draft_model": ("d", "--speculative-model"),
            "spec_decode.enabled": (True, "--speculative-model"),
            "spec_decode.method": ("draft_model", "--speculative-model"),
            "spec_decode.num_tokens": (5, "--num-speculative-tokens"),
        },
    }),
    ("vllm serve m -O3", {
        "vllm": {"model.name": ("m", "serve ^m")},
    }),
    ("vllm serve m -O 3", {
        "vllm": {"model.name": ("m", "serve ^m")},
    }),
    ("vllm serve m -cc.cudagraph_mode FULL_AND_PIECEWISE", {
        "vllm": {"cuda_graphs.mode": ("FULL_AND_PIECEWISE", "-cc.cudagraph_mode"), "model.name": ("m", "serve ^m")},
    }),
    ("vllm serve m --compilation-config '{\"cudagraph_mode\": \"NONE\"}'", {
        "vllm": {
            "cuda_graphs.enabled": (False, "--compilation-config"),
            "cuda_graphs.mode": ("NONE", "--compilation-config"), "model.name": ("m", "serve ^m"),
        },
    }),
    ("vllm serve m --attention-backend FLASHINFER", {
        "vllm": {"attention.backend": ("FLASHINFER", "--attention-backend"), "model.name": ("m", "serve ^m")},
    }),
    ("vllm serve m -ac.backend=TRITON_ATTN", {
        "vllm": {"attention.backend": ("TRITON_ATTN", "-ac.backend"), "model.name": ("m", "serve ^m")},
    }),
    ("vllm serve m --moe-backend flashinfer-b12x", {
        "vllm": {"model.name": ("m", "serve ^m"), "moe.backend": ("flashinfer_b12x", "--moe-backend")},
    }),
    ("vllm serve m --quantization modelopt_fp4 --dtype half", {
        "vllm": {
            "model.name": ("m", "serve ^m"), "model.quantization": ("nvfp4", "--quantization"),
            "serve.dtype": ("float16", "--dtype"),
        },
    }),
    ("vllm serve m -q awq_marlin", {
        "vllm": {
            "model.name": ("m", "serve ^m"), "model.quantization": ("awq", "-q"), "model.weight_only": (True, "-q"),
        },
    }),
    ("vllm serve m --kv-cache-dtype fp8_e5m2 --enforce-eager", {
        "vllm": {
            "cuda_graphs.enabled": (False, "--enforce-eager"), "kv_cache.dtype": ("fp8_e5m2", "--kv-cache-dtype"),
            "model.name": ("m", "serve ^m"),
        },
    }),
    ("vllm serve m --trust-remote-code --served-model-name a b", {
        "vllm": {"model.name": ("m", "serve ^m")},
    }),
    ("vllm serve m --hf-overrides '{\"rope_scaling\": {\"type\": \"yarn\"}}'", {
        "vllm": {"model.name": ("m", "serve ^m")},
    }),
    ("vllm serve m --limit-mm-per-prompt.image 2", {
        "vllm": {"model.name": ("m", "serve ^m")},
    }),
    ("vllm serve m --config cfg.yaml", {
        "vllm": {"model.name": ("m", "serve ^m")},
    }),
    ("vllm serve m --config=cfg.yaml", {
        "vllm": {"args.config_equals": ("--config=cfg.yaml", "--config"), "model.name": ("m", "serve ^m")},
    }),
    ("vllm serve m -- --not-an-option", {
        "vllm": {"model.name": ("m", "serve ^m")},
    }),
    # the model is unknown (an unset variable), and so is every option $EXTRA_ARGS may hold: no fact
    ("vllm serve \"$MODEL\" $EXTRA_ARGS", {
        "vllm": {},
    }),
    # the default of the expansion is the model, its source the expansion
    ("vllm serve \"${MODEL:-m}\" \"$@\"", {
        "vllm": {"model.name": ("m", "serve ^\"${MODEL:-m}\"", "flag", "serve \"^${MODEL:-m}\"")},
    }),
    ("VLLM_USE_V1=1 vllm serve m", {
        "vllm": {
            "engine.v1": (True, "VLLM_USE_V1=1", "env"), "env.VLLM_USE_V1": ("1", "VLLM_USE_V1=1", "env"),
            "model.name": ("m", "serve ^m"),
        },
    }),
    ("env VLLM_ATTENTION_BACKEND=FLASHINFER CUDA_VISIBLE_DEVICES=0,1 vllm serve m", {
        "vllm": {
            "env.CUDA_VISIBLE_DEVICES": ("0,1", "CUDA_VISIBLE_DEVICES=0,1", "env"),
            "env.VLLM_ATTENTION_BACKEND": ("FLASHINFER", "VLLM_ATTENTION_BACKEND=FLASHINFER", "env"),
            "gpu.count": (2, "CUDA_VISIBLE_DEVICES=0,1", "env"), "model.name": ("m", "serve ^m"),
        },
    }),
    ("exec vllm serve m", {
        "vllm": {"model.name": ("m", "serve ^m")},
    }),
    ("nohup vllm serve m > server.log 2>&1 &", {
        "vllm": {"model.name": ("m", "serve ^m")},
    }),
    ("systemd-run --scope -p MemoryMax=64G vllm serve m", {
        "vllm": {"model.name": ("m", "serve ^m")},
    }),
    ("sudo -u svc vllm serve m", {
        "vllm": {"model.name": ("m", "serve ^m")},
    }),
    ("timeout 3600 vllm serve m", {
        "vllm": {"model.name": ("m", "serve ^m")},
    }),
    ("numactl --cpunodebind=0 vllm serve m", {
        "vllm": {"model.name": ("m", "serve ^m")},
    }),
    ("/opt/venv/bin/vllm serve m", {
        "vllm": {"model.name": ("m", "serve ^m")},
    }),
    ("python -m vllm.entrypoints.openai.api_server --model m", {
        "vllm": {"model.name": ("m", "--model ^m")},
    }),
    # the API server module takes no positional model (only `vllm serve` does): the model is not `m`
    ("python3 -m vllm.entrypoints.openai.api_server m", {
        "vllm": {"launch.positional_model": ("m", "api_server ^m")},
    }),
    ("python3.12 -m vllm.entrypoints.openai.api_server --model m --port 8001", {
        "vllm": {"model.name": ("m", "--model ^m")},
    }),
    ("uv run python -m vllm.entrypoints.openai.api_server --model m", {
        "vllm": {"model.name": ("m", "--model ^m")},
    }),
    # the image tag pins the version and the build; the words after the image are the engine's
    ("docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.30.0 m --dtype half", {
        "vllm": {
            "engine.backend": ("cuda", "vllm/vllm-openai:v0.30.0", "image"),
            "engine.flashinfer": (True, "vllm/vllm-openai:v0.30.0", "image"),
            "engine.version": ("0.30.0", "vllm/vllm-openai:v0.30.0", "image"),
            "gpu.vendor": ("nvidia", "vllm/vllm-openai:v0.30.0", "image"),
            "host.os": ("linux", "vllm/vllm-openai:v0.30.0", "image"),
            "model.name": ("m", "vllm/vllm-openai:v0.30.0 ^m"), "serve.dtype": ("float16", "--dtype"),
            **_container(port="-p ^8000:8000"),
        },
    }),
    # `latest` is the newest release, 0.33.0 or later; two devices named in --gpus
    ("docker run --runtime nvidia --gpus '\"device=0,1\"' --ipc=host vllm/vllm-openai:latest --model m", {
        "vllm": {
            "engine.backend": ("cuda", "vllm/vllm-openai:latest", "image"),
            "engine.flashinfer": (True, "vllm/vllm-openai:latest", "image"),
            "engine.version_range": (">=0.33.0", "vllm/vllm-openai:latest", "image"),
            "gpu.count": (2, "--gpus ^'\"device=0,1\"'", "manifest"),
            "gpu.vendor": ("nvidia", "--runtime ^nvidia", "manifest"),
            "host.os": ("linux", "vllm/vllm-openai:latest", "image"), "model.name": ("m", "--model ^m"),
            **_container(ipc="--ipc=host"),
        },
    }),
    ("docker run -e HF_TOKEN=$HF_TOKEN --env VLLM_USE_V1=1 vllm/vllm-openai:v0.9.2 --model m", {
        "vllm": {
            "engine.backend": ("cuda", "vllm/vllm-openai:v0.9.2", "image"),
            "engine.flashinfer": (True, "vllm/vllm-openai:v0.9.2", "image"),
            "engine.v1": (True, "VLLM_USE_V1=1", "env"),
            "engine.version": ("0.9.2", "vllm/vllm-openai:v0.9.2", "image"),
            "env.VLLM_USE_V1": ("1", "VLLM_USE_V1=1", "env"),
            "gpu.vendor": ("nvidia", "vllm/vllm-openai:v0.9.2", "image"),
            "host.os": ("linux", "vllm/vllm-openai:v0.9.2", "image"), "model.name": ("m", "--model ^m"),
            "container.kind": ("docker", "docker", "manifest"),
        },
    }),
    ("docker run --entrypoint vllm vllm/vllm-openai:v0.30.0 serve m", {
        "vllm": {
            "engine.backend": ("cuda", "vllm/vllm-openai:v0.30.0", "image"),
            "engine.flashinfer": (True, "vllm/vllm-openai:v0.30.0", "image"),
            "engine.version": ("0.30.0", "vllm/vllm-openai:v0.30.0", "image"),
            "gpu.vendor": ("nvidia", "vllm/vllm-openai:v0.30.0", "image"),
            "host.os": ("linux", "vllm/vllm-openai:v0.30.0", "image"), "model.name": ("m", "serve ^m"),
            **_container(),
        },
    }),
    ("docker run --rm --device /dev/kfd --device /dev/dri rocm/vllm:rocm7.0.0_vllm_0.11.1_20251024 vllm serve m", {
        "vllm": {
            "engine.backend": ("hip", "rocm/vllm:rocm7.0.0_vllm_0.11.1_20251024", "image"),
            "engine.version": ("0.11.1", "rocm/vllm:rocm7.0.0_vllm_0.11.1_20251024", "image"),
            "gpu.vendor": ("amd", "--device ^/dev/kfd", "manifest"),
            "host.os": ("linux", "rocm/vllm:rocm7.0.0_vllm_0.11.1_20251024", "image"), "model.name": ("m", "serve ^m"),
            **_container(),
        },
    }),
    ("podman run --gpus all vllm/vllm-openai-rocm:v0.30.0 m", {
        "vllm": {
            "engine.backend": ("hip", "vllm/vllm-openai-rocm:v0.30.0", "image"),
            "engine.version": ("0.30.0", "vllm/vllm-openai-rocm:v0.30.0", "image"),
            "gpu.vendor": ("amd", "vllm/vllm-openai-rocm:v0.30.0", "image"),
            "host.os": ("linux", "vllm/vllm-openai-rocm:v0.30.0", "image"),
            "model.name": ("m", "vllm/vllm-openai-rocm:v0.30.0 ^m"),
            **_container("podman"),
        },
    }),
    ("docker run -d --name llm --env-file .env vllm/vllm-openai:v0.11.0 --model m", {
        "vllm": {
            "engine.backend": ("cuda", "vllm/vllm-openai:v0.11.0", "image"),
            "engine.flashinfer": (True, "vllm/vllm-openai:v0.11.0", "image"),
            "engine.version": ("0.11.0", "vllm/vllm-openai:v0.11.0", "image"),
            "gpu.vendor": ("nvidia", "vllm/vllm-openai:v0.11.0", "image"),
            "host.os": ("linux", "vllm/vllm-openai:v0.11.0", "image"), "model.name": ("m", "--model ^m"),
            **_container(),
        },
    }),
    ("llama-server -m model.gguf -c 4096 -ngl 99", {
        "llama.cpp": {
            "llama.ctx_size": (4096, "-c"), "llama.n_gpu_layers": ("99", "-ngl"),
            "model.name": ("model.gguf", "-m ^model.gguf"),
        },
    }),
    ("llama-server -hf ggml-org/gemma-3-1b-it-GGUF:Q4_K_M --port 8080", {
        "llama.cpp": {"model.name": ("ggml-org/gemma-3-1b-it-GGUF:Q4_K_M", "-hf ^ggml-org/")},
    }),
    ("./llama-server -m m.gguf -fa on -ub 1024 -b 4096", {
        "llama.cpp": {
            "llama.batch": (4096, "-b"), "llama.flash_attn": ("on", "-fa"), "llama.flash_attn_value": ("on", "-fa"),
            "llama.ubatch": (1024, "-ub"), "model.name": ("m.gguf", "-m ^m.gguf"),
        },
    }),
    # a bare -fa (older builds) is on; the word after it is kept for the builds where -fa takes a value
    ("llama-server -m m.gguf -fa -c 4096", {
        "llama.cpp": {
            "llama.ctx_size": (4096, "-c"), "llama.flash_attn": ("on", "-fa"), "llama.flash_attn_bare": ("-c", "-fa"),
            "model.name": ("m.gguf", "-m ^m.gguf"),
        },
    }),
    # llama.cpp never splits --opt=value: the context size is not set, the = form is a fact of its own
    ("llama-server -m m.gguf --flash-attn auto --ctx-size=4096", {
        "llama.cpp": {
            "args.equals_form": ("--ctx-size=4096", "--ctx-size"), "llama.flash_attn": ("auto", "--flash-attn"),
            "llama.flash_attn_value": ("auto", "--flash-attn"), "model.name": ("m.gguf", "-m ^m.gguf"),
        },
    }),
    # a tensor split of two parts is two GPUs
    ("llama-server -m m.gguf -sm row -ts 3,1 -mg 0", {
        "llama.cpp": {
            "gpu.count": (2, "-ts"), "llama.split_mode": ("row", "-sm"), "model.name": ("m.gguf", "-m ^m.gguf"),
        },
    }),
    ("llama-server -m m.gguf -ctk q8_0 -ctv q8_0", {
        "llama.cpp": {"kv_cache.dtype": ("q8_0", "-ctk"), "model.name": ("m.gguf", "-m ^m.gguf")},
    }),
    ("LLAMA_ARG_UBATCH=256 llama-server -m m.gguf", {
        "llama.cpp": {
            "env.LLAMA_ARG_UBATCH": ("256", "LLAMA_ARG_UBATCH=256", "env"),
            "llama.ubatch": (256, "LLAMA_ARG_UBATCH=256", "env"), "model.name": ("m.gguf", "-m ^m.gguf"),
        },
    }),
    ("llama serve -m m.gguf", {
        "llama.cpp": {"model.name": ("m.gguf", "-m ^m.gguf")},
    }),
    ("./server -m models/7B/ggml-model-q4_0.gguf -c 2048", {
        "llama.cpp": {
            "llama.ctx_size": (2048, "-c"),
            "model.name": ("models/7B/ggml-model-q4_0.gguf", "-m ^models/"),
        },
    }),
    ("llama-cli -m m.gguf -p hello -n 32", {
        "llama.cpp": {"model.name": ("m.gguf", "-m ^m.gguf")},
    }),
    ("llama-perplexity -m m.gguf -f wiki.test.raw", {
        "llama.cpp": {"model.name": ("m.gguf", "-m ^m.gguf")},
    }),
    ("docker run -p 8080:8080 ghcr.io/ggml-org/llama.cpp:server-cuda-b6123 -m /models/m.gguf", {
        "llama.cpp": {
            "engine.backend": ("cuda", "ghcr.io/ggml-org/llama.cpp:server-cuda-b6123", "image"),
            "engine.version": ("b6123", "ghcr.io/ggml-org/llama.cpp:server-cuda-b6123", "image"),
            "gpu.vendor": ("nvidia", "ghcr.io/ggml-org/llama.cpp:server-cuda-b6123", "image"),
            "host.os": ("linux", "ghcr.io/ggml-org/llama.cpp:server-cuda-b6123", "image"),
            "model.name": ("/models/m.gguf", "-m ^/models/m.gguf"),
            **_container(port="-p ^8080:8080"),
        },
    }),
    ("docker run ghcr.io/ggerganov/llama.cpp:full-rocm --server -m /m.gguf", {
        "llama.cpp": {
            "engine.backend": ("hip", "ghcr.io/ggerganov/llama.cpp:full-rocm", "image"),
            "gpu.vendor": ("amd", "ghcr.io/ggerganov/llama.cpp:full-rocm", "image"),
            "host.os": ("linux", "ghcr.io/ggerganov/llama.cpp:full-rocm", "image"),
            "model.name": ("/m.gguf", "-m ^/m.gguf"),
            **_container(),
        },
    }),
    ("docker run ghcr.io/ggml-org/llama.cpp:server-vulkan -m /m.gguf -ngl all", {
        "llama.cpp": {
            "engine.backend": ("vulkan", "ghcr.io/ggml-org/llama.cpp:server-vulkan", "image"),
            "host.os": ("linux", "ghcr.io/ggml-org/llama.cpp:server-vulkan", "image"),
            "llama.n_gpu_layers": ("all", "-ngl"), "model.name": ("/m.gguf", "-m ^/m.gguf"),
            **_container(),
        },
    }),
    ("vllm bench serve --model m --metric-percentiles 50", {
        "bench": {
            "bench.percentiles": ("50", "--metric-percentiles"), "bench.reports_tail": (False, "--metric-percentiles"),
            "bench.tool": ("vllm-bench-serve", "vllm bench"),
        },
    }),
    # llama-bench is a benchmark run and a llama.cpp launch at once
    ("llama-bench -m m.gguf -r 5", {
        "bench": {"bench.tool": ("llama-bench", "llama-bench")},
        "llama.cpp": {"model.name": ("m.gguf", "-m ^m.gguf")},
    }),
    ("guidellm benchmark --target http://localhost:8000 --max-seconds 60", {
        "bench": {"bench.duration_s": (60.0, "--max-seconds"), "bench.tool": ("guidellm", "guidellm")},
    }),
]


LAUNCHED_LATER: dict[str, str] = {
    "VLLM_USE_V1=1 vllm serve m": "vllm",
    "env VLLM_ATTENTION_BACKEND=FLASHINFER CUDA_VISIBLE_DEVICES=0,1 vllm serve m": "vllm",
    "exec vllm serve m": "vllm",
    "nohup vllm serve m > server.log 2>&1 &": "vllm",
    "systemd-run --scope -p MemoryMax=64G vllm serve m": "vllm",
    "sudo -u svc vllm serve m": "vllm",
    "timeout 3600 vllm serve m": "vllm",
    "numactl --cpunodebind=0 vllm serve m": "vllm",
    "docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.30.0 m --dtype half": "vllm/",
    "docker run --runtime nvidia --gpus '\"device=0,1\"' --ipc=host vllm/vllm-openai:latest --model m": "vllm/",
    "docker run -e HF_TOKEN=$HF_TOKEN --env VLLM_USE_V1=1 vllm/vllm-openai:v0.9.2 --model m": "vllm/",
    "docker run --entrypoint vllm vllm/vllm-openai:v0.30.0 serve m": "--entrypoint ^vllm",
    "docker run --rm --device /dev/kfd --device /dev/dri rocm/vllm:rocm7.0.0_vllm_0.11.1_20251024 vllm serve m":
        "vllm serve",
    "podman run --gpus all vllm/vllm-openai-rocm:v0.30.0 m": "vllm/",
    "docker run -d --name llm --env-file .env vllm/vllm-openai:v0.11.0 --model m": "vllm/",
    "LLAMA_ARG_UBATCH=256 llama-server -m m.gguf": "llama-server",
    "docker run -p 8080:8080 ghcr.io/ggml-org/llama.cpp:server-cuda-b6123 -m /models/m.gguf": "ghcr.io",
    "docker run ghcr.io/ggerganov/llama.cpp:full-rocm --server -m /m.gguf": "ghcr.io",
    "docker run ghcr.io/ggml-org/llama.cpp:server-vulkan -m /m.gguf -ngl all": "ghcr.io",
}
"""Where a deployment starts when that is not the line's first word: the engine's program after a wrapper or an
environment prefix, or the container image that runs it (the program where the container names one)."""


def _column(line: str, anchor: str) -> int:
    plain = anchor.replace("^", "", 1)
    assert plain in line, (anchor, line)
    return line.index(plain) + 1 + max(anchor.find("^"), 0)


def _expected(line: str, spec: Expected) -> tuple[object, ...]:
    value, anchor, *rest = spec
    origin = rest[0] if rest else "flag"
    source = ("shape.sh", 1, _column(line, str(rest[1]))) if len(rest) > 1 else None
    return value, origin, "shape.sh", 1, _column(line, str(anchor)), source


def _written(deployment: Deployment) -> dict[str, tuple[object, ...]]:
    """The facts the launch's own words set: not the engine's defaults or what is inferred from them, not the
    ``flag.*`` echo of every option as written, not the checks' verdicts."""
    return {key: (json_value(f.value), f.origin, f.path, f.line, f.column, f.source)
            for key, f in deployment.facts.items()
            if f.origin not in ("default", "inferred") and not key.startswith("flag.") and key not in VERDICTS
            and not key.endswith("_certain")}


@pytest.mark.parametrize(("line", "expected"), SHAPES, ids=[s[0][:60] for s in SHAPES])
def test_shape_yields_its_deployments_and_facts(line: str, expected: dict[str, dict[str, Expected]]) -> None:
    result = shell.read(line + "\n", "shape.sh", MemoryOpener({}))
    assert [e for e in result.errors if e.severity == "error"] == []
    deployments = extract(result)
    for deployment in deployments:
        finish(deployment)
    assert [d.engine for d in deployments] == list(expected)
    for deployment, facts in zip(deployments, expected.values(), strict=True):
        launch = _column(line, LAUNCHED_LATER[line]) if line in LAUNCHED_LATER else 1
        assert (deployment.span.path, deployment.span.line, deployment.span.column) == ("shape.sh", 1, launch)
        assert _written(deployment) == {key: _expected(line, spec) for key, spec in facts.items()}


def test_shapes_are_distinct() -> None:
    """A shape listed twice is one shape checked twice: the list says how many are covered."""
    assert len({line for line, _ in SHAPES}) == len(SHAPES)
    assert set(LAUNCHED_LATER) <= {line for line, _ in SHAPES}
