"""Which reader reads a file: by name first, then by content. No engine knowledge here."""

from __future__ import annotations

import re
from pathlib import PurePath

from relialint.base import lazyre

SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", ".venv", "venv", "env", "__pycache__", ".tox", ".mypy_cache",
             ".ruff_cache", ".pytest_cache", "site-packages", ".cache"}

_SHEBANG = lazyre.compile(r"^#!\s*(/usr/bin/env\s+)?(/\S*/)?(ba|z|k|da)?sh\b")


# compose.yaml, docker-compose.override.yml, compose.gpu.yaml: the parts between the name and the extension are
# words, never another extension (docker-compose.yml.expected.yaml is a YAML file about a compose file)
_COMPOSE_NAME = lazyre.compile(r"(docker-)?compose(?:[.\-](?!ya?ml\.)[\w\-]+)*\.ya?ml")
# Dockerfile.dev and Dockerfile.vllm are Dockerfiles; Dockerfile.yaml or Dockerfile.md is a file about one
_NOT_A_DOCKERFILE_SUFFIX = (".yaml", ".yml", ".json", ".md", ".txt", ".toml", ".sh", ".py")


def kind_by_name(path: PurePath) -> str | None:
    name = path.name.lower()
    if name.endswith((".sh", ".bash")):
        return "shell"
    if _COMPOSE_NAME.fullmatch(name):
        return "compose"
    if name == ".env" or name.endswith(".env") or name.startswith(".env."):
        return "env"
    if name.endswith((".service", ".container")):
        return "systemd"
    if name in ("dockerfile", "containerfile") or name.endswith((".dockerfile", ".containerfile")) or (
            name.startswith(("dockerfile.", "containerfile.")) and not name.endswith(_NOT_A_DOCKERFILE_SUFFIX)):
        return "dockerfile"
    if name.endswith((".yaml", ".yml")):
        return "yaml"
    if name.endswith((".bat", ".cmd", ".ps1")):
        return "windows"
    return None


TEMPLATE_SUFFIXES = (".tpl", ".template", ".example", ".sample", ".dist", ".orig", ".in")


def kind_by_given_name(path: PurePath) -> str | None:
    """A file named on the command line: also ``values.yaml.tpl``, ``vllm.env.template``, ``serve.sh.example``,
    read as the format under the template suffix."""
    kind = kind_by_name(path)
    if kind is None and path.suffix.lower() in TEMPLATE_SUFFIXES:
        return kind_by_name(path.with_suffix(""))
    return kind


_OTHER_TOOL_NAMES = {
    ".pre-commit-config.yaml", ".pre-commit-config.yml", ".pre-commit-hooks.yaml", "mkdocs.yml", "mkdocs.yaml",
    ".gitlab-ci.yml", "chart.yaml", "chart.yml", ".readthedocs.yaml", ".readthedocs.yml", "codecov.yml",
    ".codecov.yml", "dependabot.yml", ".yamllint", ".yamllint.yaml", ".golangci.yml", ".golangci.yaml",
    ".travis.yml", "appveyor.yml", "azure-pipelines.yml", "bitbucket-pipelines.yml", "cloudbuild.yaml",
    ".goreleaser.yml", ".goreleaser.yaml", "action.yml", "action.yaml", "environment.yml", "pubspec.yaml",
    "_config.yml", ".markdownlint.yaml", ".markdownlint.yml", "citation.cff", "renovate.json5", "funding.yml",
    "codeowners", "labeler.yml", "release-drafter.yml", "stale.yml", "netlify.yml", "requirements.yaml",
    "chart.lock", "pnpm-lock.yaml", "pnpm-workspace.yaml", ".clang-format", ".clang-tidy", "conda.yaml",
    "meta.yaml", "ansible.cfg", "galaxy.yml", "mkdocs.insiders.yml",
}
_OTHER_TOOL_SHAPES = [
    lazyre.compile(r"^repos\s*:", re.M),  # pre-commit
    lazyre.compile(r"^(on|\"on\"|'on'|true)\s*:[\s\S]*^jobs\s*:", re.M),  # GitHub Actions
    lazyre.compile(r"^site_name\s*:", re.M),  # MkDocs
    lazyre.compile(r"^stages\s*:", re.M),  # GitLab CI
    lazyre.compile(r"^(openapi|swagger)\s*:", re.M),
    lazyre.compile(r"^updates\s*:", re.M),  # Dependabot
    lazyre.compile(r"^channels\s*:[\s\S]*^dependencies\s*:|^dependencies\s*:[\s\S]*^channels\s*:", re.M),  # conda
    lazyre.compile(r"^runs\s*:\s*$[\s\S]*^\s+using\s*:", re.M),  # a GitHub action
    lazyre.compile(r"^model_list\s*:[\s\S]*^\s+litellm_params\s*:", re.M),  # a LiteLLM proxy (a client of engines)
]
_CHART = lazyre.compile(r"^apiVersion\s*:\s*v[12]\s*$", re.M)
_DEPLOYMENT_HINT = lazyre.compile(
    r"vllm|llama[-_.]?(cpp|server)|gguf|^\s*(image|command|entrypoint|containers|args)\s*:", re.I | re.M)


def other_tool(path: PurePath, text: str) -> bool:
    """A YAML file that is plainly another tool's configuration (CI, pre-commit, docs, packaging, a Helm
    ``Chart.yaml``), or one with nothing in it that a deployment has: skipped quietly, not warned about."""
    name = path.name.lower()
    parts = [part.lower() for part in path.parts]
    if name in _OTHER_TOOL_NAMES or (".github" in parts and "workflows" in parts) or ".circleci" in parts \
            or "issue_template" in parts:
        return True
    if any(shape.search(text) for shape in _OTHER_TOOL_SHAPES):
        return True
    if _CHART.search(text) and not re.search(r"^kind\s*:", text, re.M):
        return True
    return not _DEPLOYMENT_HINT.search(text)


SNIFF_BYTES = 4096
"""How much of a file whose name does not decide its kind is read to decide it by content: the first lines say."""

# A name that hints at a Dockerfile or an env file without deciding it (`Dockerfile-vllm`, `Dockerfile_cuda`,
# `.env-llamacpp`, `vllm.env.local`, `env.vllm`): its content is read (SNIFF_BYTES) in a folder walk. Any other
# file with an extension is not opened at all, so a walk over a source tree stays cheap.
_HINTED_NAME = lazyre.compile(r"(docker|container)file|(^|[._\-])env([._\-]|$)", re.I)
_NOT_CONFIG_SUFFIX = (*_NOT_A_DOCKERFILE_SUFFIX, ".rst", ".html", ".lock", ".log", ".png", ".jpg", ".gz", ".zip",
                      ".tar", ".whl", ".gguf", ".bin", ".safetensors", ".pyc", ".ipynb", ".js", ".ts", ".go", ".rs")


def sniff_worthy(name: str) -> bool:
    """Whether a file found in a folder walk, whose name gives no kind, is worth reading the head of."""
    lower = name.lower()
    if lower.endswith(_NOT_CONFIG_SUFFIX):
        return False
    return "." not in name or _HINTED_NAME.search(lower) is not None


# The first instruction of a Dockerfile is FROM, after parser directives, comments and ARGs (the reference's rule)
_DOCKERFILE_HEAD = lazyre.compile(r"\A(?:[ \t]*(?:#[^\n]*)?\n|[ \t]*ARG[ \t]+\S[^\n]*\n)*[ \t]*FROM[ \t]+\S", re.I)
_ASSIGNMENT = lazyre.compile(r"[ \t]*(?:export[ \t]+)?[A-Za-z_][A-Za-z0-9_]*=")


def kind_by_content(text: str) -> str | None:
    """A file's kind from its first lines, when its name does not say: a shell shebang, a Dockerfile (``FROM``
    first), or an env file (nothing but ``NAME=value`` lines and comments, at least one). Only the head of the text
    is looked at (:data:`SNIFF_BYTES`); text with a NUL byte is binary and has no kind."""
    head = text[:SNIFF_BYTES]
    if "\x00" in head:
        return None
    if _SHEBANG.match(head):
        return "shell"
    if _DOCKERFILE_HEAD.match(head.replace("\r\n", "\n")):
        return "dockerfile"
    lines = head.splitlines()
    if len(text) >= SNIFF_BYTES and lines:
        lines = lines[:-1]  # the last line may be cut
    body = [line for line in lines if line.strip() and not line.lstrip().startswith("#")]
    if body and all(_ASSIGNMENT.match(line) for line in body):
        return "env"
    return None


def yaml_kind(text: str) -> str | None:
    """A YAML file's kind by its shape: compose, kubernetes, helm values, a vLLM --config file, or ``None``."""
    if re.search(r"^services\s*:", text, re.M):
        return "compose"
    if re.search(r"^apiVersion\s*:", text, re.M) and re.search(r"^kind\s*:", text, re.M):
        return "kubernetes"
    if re.search(r"^\s*servingEngineSpec\s*:", text, re.M) or _helm_values(text):
        return "helm"
    if re.search(r"^docker_server\s*:", text, re.M) and re.search(r"^\s+start_command\s*:", text, re.M):
        return "truss"
    if re.search(r"^run\s*:", text, re.M) and re.search(r"^(resources|setup|envs|num_nodes|workdir|file_mounts)\s*:",
                                                          text, re.M):
        return "skypilot"
    if _vllm_config_keys(text):
        return "vllm-config"
    return None


_HELM_ARGS = lazyre.compile(r"^\s*(args|extraArgs|extra_args)\s*:\s*(\[\s*[\"']?--|$)", re.M)
_HELM_OPTION_ITEM = lazyre.compile(r"^\s*-\s*[\"']?--[A-Za-z]", re.M)


def _helm_values(text: str) -> bool:
    """Values of a chart whose arguments relialint reads: vLLM's example chart (``image.command`` with
    ``gpuModels``/``extraInit``), the llama-server chart (``llama.args``), the llm-inference-vllm chart
    (``model`` with ``vllm_engine_args``), KubeAI's models chart (``catalog`` entries with ``engine: VLLM``), or an
    ``image`` beside an
    ``args``/``extraArgs`` list of ``--options``."""
    if re.search(r"^catalog\s*:", text, re.M) and re.search(r"^\s+engine\s*:\s*[\"']?VLLM\b", text, re.M) \
            and re.search(r"^\s+url\s*:", text, re.M):
        return True  # KubeAI's models chart: no image in the values (the cluster's resource profiles give it)
    if not re.search(r"^\s*image\s*:", text, re.M):
        return False
    if re.search(r"^(gpuModels|extraInit)\s*:", text, re.M) and re.search(r"^\s+command\s*:", text, re.M):
        return True
    if re.search(r"^llama\s*:", text, re.M) and re.search(r"^\s+args\s*:", text, re.M):
        return True
    if re.search(r"^vllm_engine_args\s*:", text, re.M) and re.search(r"^model\s*:", text, re.M):
        return True  # AMD Silo AI's llm-inference-vllm chart
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
_TOP_KEY = lazyre.compile(r"^([A-Za-z][A-Za-z0-9_\-]*)\s*:", re.M)


def _vllm_config_keys(text: str) -> bool:
    keys = {match.group(1).replace("_", "-").lower() for match in _TOP_KEY.finditer(text)}
    known = keys & _VLLM_KEYS
    if not known or len(known) * 2 < len(keys):
        return False
    return (("model" in known or "served-model-name" in known) and len(known) >= 2) or len(known) >= 3
