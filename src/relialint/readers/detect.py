"""Which reader reads a file: by name first, then by content. No engine knowledge here."""

from __future__ import annotations

import re
from pathlib import PurePath

SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", ".venv", "venv", "env", "__pycache__", ".tox", ".mypy_cache",
             ".ruff_cache", ".pytest_cache", "site-packages", ".cache"}

_SHEBANG = re.compile(r"^#!\s*(/usr/bin/env\s+)?(/\S*/)?(ba|z|k|da)?sh\b")


def kind_by_name(path: PurePath) -> str | None:
    name = path.name.lower()
    if name.endswith((".sh", ".bash")):
        return "shell"
    if re.fullmatch(r"(docker-)?compose[\w.\-]*\.ya?ml", name):
        return "compose"
    if name == ".env" or name.endswith(".env") or name.startswith(".env."):
        return "env"
    if name.endswith((".service", ".container")):
        return "systemd"
    if name == "dockerfile" or name.startswith("dockerfile.") or name.endswith(".dockerfile") \
            or name == "containerfile":
        return "dockerfile"
    if name.endswith((".yaml", ".yml")):
        return "yaml"
    return None


def kind_by_content(text: str) -> str | None:
    if _SHEBANG.match(text):
        return "shell"
    return None


def yaml_kind(text: str) -> str | None:
    """A YAML file's kind by its shape: compose, kubernetes, helm values, a vLLM --config file, or ``None``."""
    if re.search(r"^services\s*:", text, re.M):
        return "compose"
    if re.search(r"^apiVersion\s*:", text, re.M) and re.search(r"^kind\s*:", text, re.M):
        return "kubernetes"
    if re.search(r"^\s*servingEngineSpec\s*:", text, re.M) or _helm_values(text):
        return "helm"
    if _vllm_config_keys(text):
        return "vllm-config"
    return None


_HELM_ARGS = re.compile(r"^\s*(args|extraArgs|extra_args)\s*:\s*(\[\s*[\"']?--|$)", re.M)
_HELM_OPTION_ITEM = re.compile(r"^\s*-\s*[\"']?--[A-Za-z]", re.M)


def _helm_values(text: str) -> bool:
    """Values of a chart whose arguments relialint reads: vLLM's example chart (``image.command`` with
    ``gpuModels``/``extraInit``), the llama-server chart (``llama.args``), or an ``image`` beside an
    ``args``/``extraArgs`` list of ``--options``."""
    if not re.search(r"^\s*image\s*:", text, re.M):
        return False
    if re.search(r"^(gpuModels|extraInit)\s*:", text, re.M) and re.search(r"^\s+command\s*:", text, re.M):
        return True
    if re.search(r"^llama\s*:", text, re.M) and re.search(r"^\s+args\s*:", text, re.M):
        return True
    match = _HELM_ARGS.search(text)
    return match is not None and (match.group(2) != "" or _HELM_OPTION_ITEM.search(text, match.end()) is not None)


# Top-level keys that only a vLLM ``--config`` file has together (dash or underscore spelling). A YAML file is a
# vLLM config when it has ``model`` or ``served-model-name`` and another of these, or three of them.
_VLLM_KEYS = {
    "model", "served-model-name", "tensor-parallel-size", "pipeline-parallel-size", "data-parallel-size",
    "gpu-memory-utilization", "max-model-len", "max-num-seqs", "max-num-batched-tokens", "kv-cache-dtype",
    "dtype", "quantization", "enforce-eager", "enable-prefix-caching", "enable-chunked-prefill",
    "trust-remote-code", "speculative-config", "compilation-config", "tokenizer", "download-dir", "port",
    "host", "swap-space", "block-size", "seed", "enable-expert-parallel", "attention-backend", "load-format",
    "max-num-partial-prefills", "disable-log-requests", "enable-auto-tool-choice", "tool-call-parser",
    "reasoning-parser", "api-key", "uvicorn-log-level", "chat-template", "limit-mm-per-prompt", "revision",
}
_TOP_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9_\-]*)\s*:", re.M)


def _vllm_config_keys(text: str) -> bool:
    keys = {match.group(1).replace("_", "-").lower() for match in _TOP_KEY.finditer(text)}
    known = keys & _VLLM_KEYS
    if not known or len(known) * 2 < len(keys):
        return False
    return (("model" in known or "served-model-name" in known) and len(known) >= 2) or len(known) >= 3
