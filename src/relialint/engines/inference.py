"""Which engine a container runs when its image does not say (``image: ${IMAGE}``, a locally built
``vllm-cpu-optimized:latest``, a registry mirror): the options and environment variables themselves.

Only options and variables that no other common serving engine has decide (``--gpu-memory-utilization``,
``--enforce-eager``, ``VLLM_*`` names vLLM reads; ``-ngl``, ``--ctx-size``, ``LLAMA_ARG_*``). Options shared with
another engine (SGLang's ``--tensor-parallel-size`` and ``--kv-cache-dtype``, ``--max-total-tokens`` of SGLang and
TGI) never decide, and one option, variable or image name that belongs to another engine (SGLang, TGI, Ollama,
TensorRT-LLM, LMDeploy, Aphrodite, KoboldCpp, llama-cpp-python) rules both engines out. Only a command made of
options alone is read this way: a named program is recognised by the engine models themselves.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from relialint.base import lazyre
from relialint.engines.common import LLAMA_OPTIONS as _LLAMA_OPTIONS
from relialint.readers.located import Command, Span

_VLLM_OPTIONS = {
    "--gpu-memory-utilization", "--max-num-seqs", "--max-num-batched-tokens", "--enforce-eager",
    "--enable-prefix-caching", "--no-enable-prefix-caching", "--max-model-len", "--swap-space",
    "--enable-chunked-prefill", "--disable-log-requests", "--enable-auto-tool-choice", "--tool-call-parser",
    "--limit-mm-per-prompt", "--compilation-config", "--speculative-config", "--distributed-executor-backend",
    "--max-seq-len-to-capture", "--enable-expert-parallel", "--guided-decoding-backend", "--disable-log-stats",
}
"""vLLM options that SGLang, TGI, LMDeploy and TensorRT-LLM do not have (Aphrodite, a vLLM fork, is told apart by
its own options, variables and image names below)."""
_OTHER_OPTIONS = {
    # SGLang
    "--mem-fraction-static", "--model-path", "--context-length", "--tp-size", "--max-running-requests",
    "--chunked-prefill-size", "--disable-radix-cache", "--enable-torch-compile", "--dp-size", "--ep-size",
    "--disable-cuda-graph", "--cuda-graph-max-bs", "--speculative-algorithm", "--enable-dp-attention",
    "--max-prefill-tokens",
    # TGI
    "--model-id", "--max-total-tokens", "--max-input-length", "--max-input-tokens", "--num-shard",
    "--max-batch-prefill-tokens", "--max-batch-total-tokens", "--cuda-memory-fraction", "--sharded",
    "--max-concurrent-requests", "--max-best-of", "--waiting-served-ratio",
    # LMDeploy
    "--cache-max-entry-count", "--server-port", "--server-name", "--session-len", "--model-name",
    # TensorRT-LLM
    "--tp_size", "--pp_size", "--kv_cache_free_gpu_memory_fraction", "--max_batch_size", "--max_num_tokens",
    "--extra_llm_api_options",
    # Aphrodite
    "--launch-kobold-api", "-gmu",
    # KoboldCpp, llama-cpp-python
    "--gpulayers", "--contextsize", "--usecublas", "--n_gpu_layers", "--n_ctx",
}
_OTHER_ENV = lazyre.compile(r"^(SGLANG_|OLLAMA_|APHRODITE_|LMDEPLOY_|TRTLLM_|TLLM_|KOBOLDCPP_)|^(MODEL_ID|NUM_SHARD|"
                        r"MAX_TOTAL_TOKENS|MAX_INPUT_LENGTH|MAX_INPUT_TOKENS|MAX_BATCH_PREFILL_TOKENS)$")
_OTHER_IMAGE = lazyre.compile(r"sglang|text-generation-inference|(?<![a-z])tgi(?![a-z])|ollama|tensorrt|trtllm|"
                          r"triton|lmdeploy|aphrodite|kobold|llama-cpp-python|localai|tabbyapi|exllama|"
                          r"(?<![a-z])nim(?![a-z])|mlc-llm", re.I)


class Inferred(NamedTuple):  # a NamedTuple: cheaper to create at start-up than a dataclass
    """The engine a container's options and variables point at, and the token that decided it."""

    engine: str
    token: str
    span: Span

    @property
    def note(self) -> str:
        what = "an option" if self.token.startswith("-") else "an environment variable"
        return f"inferred from {self.token}, {what} only {self.engine} has (the image does not say which engine)"


def engine_of(command: Command, vllm_env: frozenset[str] = frozenset()) -> Inferred | None:
    """The engine a container runs, from its options and variables alone; ``None`` unless exactly one engine's
    own options or variables appear and nothing of another engine does. ``vllm_env``: the names vLLM reads."""
    if command.image is None or command.entrypoint is not None:
        return None
    if command.argv and not (command.argv[0].text or "").startswith("-"):
        return None  # a program is named: the engine models recognise it themselves
    if _OTHER_IMAGE.search(command.image.text or ""):
        return None
    found: dict[str, list[tuple[str, Span]]] = {"vllm": [], "llama.cpp": []}
    for word in command.argv:
        text = word.text or ""
        if not text.startswith("-"):
            continue
        name = text.split("=", 1)[0]
        if name in _OTHER_OPTIONS:
            return None
        long = "--" + name[2:].replace("_", "-") if name.startswith("--") else name
        if long in _VLLM_OPTIONS and "_" not in name:
            found["vllm"].append((name, word.span))
        elif name in _LLAMA_OPTIONS:
            found["llama.cpp"].append((name, word.span))
    for var in command.env:
        if _OTHER_ENV.search(var.name):
            return None
        if var.name.startswith("LLAMA_ARG_"):
            found["llama.cpp"].append((var.name, var.span))
        elif var.name in vllm_env:
            found["vllm"].append((var.name, var.span))
    engines = [engine for engine, tokens in found.items() if tokens]
    if len(engines) != 1:
        return None
    token, span = found[engines[0]][0]
    return Inferred(engines[0], token, span)
