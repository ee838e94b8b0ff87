"""Which engine a container runs when its image does not say (``image: ${IMAGE}``, a locally built
``vllm-cpu-optimized:latest``, a registry mirror): the options and environment variables themselves.

Only options and variables that no other common serving engine has decide (``--gpu-memory-utilization``,
``--enforce-eager``, ``VLLM_*`` names vLLM reads; ``-ngl``, ``--ctx-size``, ``LLAMA_ARG_*``). Options shared with
another engine (SGLang's ``--tensor-parallel-size`` and ``--kv-cache-dtype``, ``--max-total-tokens`` of SGLang and
TGI) never decide, and one option, variable or image name that belongs to another engine (SGLang, TGI, Ollama,
TensorRT-LLM, LMDeploy, Aphrodite, KoboldCpp, llama-cpp-python) rules both engines out. Only a command made of
options alone is read this way: a named program is recognised by the engine models themselves.

A container with no command at all whose image is not an engine's own (``build:`` with the Dockerfile elsewhere, a
local or private image) runs a launch this file does not show (``Command.argv_from_image``). Its engine is told by
the same certain clues (a variable only one engine reads), or else by two clues of different kinds that each only
hint at one engine: a service, container or image name (``vllm``, ``llama-server``, ``llama.cpp``), the engine's
default port (vLLM 8000, llama-server 8080), a ``.gguf`` model file (llama.cpp; but vLLM, Ollama and
llama-cpp-python load GGUF too, so alone it does not decide). One hint alone, a port alone or a name alone never
decides: unknown stays unknown.
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


_CLIENT = lazyre.compile(r"router|proxy|gateway|client|(?<![a-z])(web)?ui(?![a-z])|bench|exporter|monitor|metrics|"
                         r"frontend|(?<![a-z])lb(?![a-z])|balancer|openwebui|open-webui|chat-?ui", re.I)
"""Words that make a name a client's or a neighbour's (``vllm-router``, ``vllm-benchmark``), not the engine's."""
_NAME = {"vllm": lazyre.compile(r"(?<![a-z])vllm(?![a-z])", re.I),
         "llama.cpp": lazyre.compile(r"llama[._\-]?cpp|llama[._\-]?server|(?<![a-z])llamacpp(?![a-z])", re.I)}
_DEFAULT_PORT = {"8000": "vllm", "8080": "llama.cpp"}


class Inferred(NamedTuple):  # a NamedTuple: cheaper to create at start-up than a dataclass
    """The engine a container's options and variables point at, and the token that decided it. ``unseen``: the
    container runs its image's own command, not in the file; ``hints``: the clues that together decided it when
    no single one did."""

    engine: str
    token: str
    span: Span
    unseen: bool = False
    hints: tuple[str, ...] = ()

    @property
    def note(self) -> str:
        if self.hints:
            told = f"inferred from {' and '.join(self.hints)}, clues of two kinds that point only at {self.engine}"
        else:
            what = "an option" if self.token.startswith("-") else "an environment variable"
            told = f"inferred from {self.token}, {what} only {self.engine} has"
        if self.unseen:
            return f"{told}; the launch is not in this file (the image's own command runs, with options unknown)"
        return f"{told} (the image does not say which engine)"


def engine_of(command: Command, vllm_env: frozenset[str] = frozenset()) -> Inferred | None:
    """The engine a container runs, from its options and variables alone; ``None`` unless exactly one engine's
    own options or variables appear and nothing of another engine does. ``vllm_env``: the names vLLM reads."""
    if command.image is None or command.entrypoint is not None:
        return None
    if command.argv and not (command.argv[0].text or "").startswith("-"):
        return None  # a program is named: the engine models recognise it themselves
    if _OTHER_IMAGE.search(command.image.text or ""):
        return None
    if command.argv_from_image and any(what == "name" and _OTHER_IMAGE.search(text)
                                       for what, text, _ in command.shows):
        return None  # a service named for another engine (`ollama`, `tgi`) that also sets a stray variable
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
    unseen = command.argv_from_image and not command.argv
    if not engines and unseen:
        return _from_hints(command)
    if len(engines) != 1:
        return None
    token, span = found[engines[0]][0]
    return Inferred(engines[0], token, span, unseen)


def _from_hints(command: Command) -> Inferred | None:
    """An unseen launch's engine from clues that each only hint (module docstring): two kinds for one engine, none
    for another, and no name of another engine."""
    kinds: dict[str, dict[str, tuple[str, Span]]] = {"vllm": {}, "llama.cpp": {}}
    names = [(text, span) for what, text, span in command.shows if what == "name"]
    if command.image is not None and command.image.text:
        names.append((command.image.text.rsplit("/", 1)[-1], command.image.span))
    for text, span in names:
        if _OTHER_IMAGE.search(text):
            return None
        if _CLIENT.search(text):
            continue
        for engine, pattern in _NAME.items():
            if pattern.search(text):
                kinds[engine].setdefault("name", (f"the name `{text}`", span))
    for what, text, span in command.shows:
        if what == "port" and text in _DEFAULT_PORT:
            kinds[_DEFAULT_PORT[text]].setdefault("port", (f"port {text}, the engine's default", span))
        elif what == "volume" and ".gguf" in text.lower():
            kinds["llama.cpp"].setdefault("model", (f"the GGUF model file in `{text}`", span))
    for var in command.env:
        if var.value and ".gguf" in var.value.lower():
            kinds["llama.cpp"].setdefault("model", (f"the GGUF model file in `{var.name}`", var.span))
    decided = [engine for engine, clues in kinds.items() if len(clues) >= 2]
    if len(decided) != 1 or any(kinds[engine] for engine in kinds if engine != decided[0]):
        return None
    clues = kinds[decided[0]]
    first = clues.get("name") or next(iter(clues.values()))
    return Inferred(decided[0], first[0], first[1], True, tuple(why for why, _ in clues.values()))
