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


def yaml_kind(text: str) -> str:
    """A YAML file's kind by its shape: compose, kubernetes, helm values, or a vLLM --config file."""
    if re.search(r"^services\s*:", text, re.M):
        return "compose"
    if re.search(r"^apiVersion\s*:", text, re.M) and re.search(r"^kind\s*:", text, re.M):
        return "kubernetes"
    if re.search(r"^\s*servingEngineSpec\s*:", text, re.M):
        return "helm"
    return "vllm-config"
