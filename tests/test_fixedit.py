"""Records' ``fix_edit`` as text edits (engines/fixedit.py, vllm.fix_edits): each edit applied clears the finding."""

from __future__ import annotations

from typing import Any

import pytest

from relialint.core.deployment import Deployment
from relialint.engines import fixedit
from relialint.engines.registry import default_registry
from relialint.readers.located import FileResult
from relialint.run.lint import Options, Target, lint_text, load_records, read_file


def _fix_edits(result: FileResult, deployment: Deployment, fix_set: dict[str, Any]) -> list[fixedit.TextEdit] | None:
    """A record's fix as edits, by the deployment's engine (as the language server and the site ask for them)."""
    engine = default_registry().get(deployment.engine)
    return engine.fix_edits(result, deployment, fix_set) if engine is not None else None


def apply(text: str, edits: list[fixedit.TextEdit]) -> str:
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    for e in sorted(edits, key=lambda e: (e.line, e.column), reverse=True):
        start = offsets[e.line - 1] + e.column - 1
        end = offsets[e.end_line - 1] + e.end_column - 1
        text = text[:start] + e.new_text + text[end:]
    return text


def fix(text: str, name: str, kind: str, code: str, gpu: str = "RTX 4090") -> tuple[str | None, list[str]]:
    """The text with ``code``'s fix applied (``None``: no fix offered) and the codes found before."""
    options = Options(Target(gpu))
    run = lint_text(text, name, kind, options)
    codes = [f.code for f in run.findings]
    records: dict[str, Any] = {r["id"]: r for r in load_records(options)[0]}
    finding = next(f for f in run.findings if f.code == code)
    deployment = next(d for d in run.deployments
                      if (finding.about in d.facts.facts and d.facts.facts[finding.about].line == finding.line))
    edits = _fix_edits(read_file(text, name, kind), deployment, records[code]["trigger"]["fix_edit"]["set"])
    if edits is None:
        return None, codes
    fixed = apply(text, edits)
    assert code not in {f.code for f in lint_text(fixed, name, kind, options).findings}, fixed
    return fixed, codes


M = "nvidia/Llama-3.3-70B-Instruct-FP4"


@pytest.mark.parametrize(("before", "after"), [
    (f"vllm serve {M} --dtype bfloat16\n", f"vllm serve {M} --dtype float16\n"),
    (f"vllm serve {M} --dtype=bfloat16\n", f"vllm serve {M} --dtype=float16\n"),
    (f"vllm serve {M} '--dtype=bfloat16'\n", f"vllm serve {M} '--dtype=float16'\n"),
    (f"vllm serve {M} --dtype \"bfloat16\"\n", f"vllm serve {M} --dtype \"float16\"\n"),
    (f"docker run --gpus all vllm/vllm-openai:v0.18.1 {M} --dtype bfloat16\n",
     f"docker run --gpus all vllm/vllm-openai:v0.18.1 {M} --dtype float16\n"),
])
def test_flag_value_replaced(before: str, after: str) -> None:
    assert fix(before, "serve.sh", "shell", "RL101")[0] == after


def test_value_from_a_variable_is_not_edited() -> None:
    text = f"DT=bfloat16\nvllm serve {M} --dtype $DT\n"
    assert fix(text, "serve.sh", "shell", "RL101")[0] is None


@pytest.mark.parametrize(("before", "after"), [
    (f"VLLM_USE_V2_MODEL_RUNNER=1 vllm serve {M}\n", f"VLLM_USE_V2_MODEL_RUNNER=0 vllm serve {M}\n"),
    (f"export VLLM_USE_V2_MODEL_RUNNER=1\nvllm serve {M}\n", f"export VLLM_USE_V2_MODEL_RUNNER=0\nvllm serve {M}\n"),
    (f"exec vllm serve {M}\n", f"export VLLM_USE_V2_MODEL_RUNNER=0\nexec vllm serve {M}\n"),
    (f"  A=1 vllm serve {M}\n", f"  A=1 VLLM_USE_V2_MODEL_RUNNER=0 vllm serve {M}\n"),
    (f"docker run --gpus all vllm/vllm-openai:v0.30.0 {M}\n",
     f"docker run --gpus all -e VLLM_USE_V2_MODEL_RUNNER=0 vllm/vllm-openai:v0.30.0 {M}\n"),
])
def test_env_var_in_shell(before: str, after: str) -> None:
    pinned = "# relialint: engine-version=0.30.0\n"
    fixed, _ = fix(pinned + before, "serve.sh", "shell", "RL107", gpu="H100")
    assert fixed == pinned + after


def test_env_var_added_to_a_compose_service_without_environment() -> None:
    text = f"services:\n  vllm:\n    image: vllm/vllm-openai:v0.30.0\n    command: [\"{M}\"]\n"
    fixed, _ = fix(text, "compose.yaml", "compose", "RL107", gpu="H100")
    assert fixed == (f"services:\n  vllm:\n    environment:\n      VLLM_USE_V2_MODEL_RUNNER: \"0\"\n"
                     f"    image: vllm/vllm-openai:v0.30.0\n    command: [\"{M}\"]\n")


def test_env_var_in_compose_list_and_kubernetes() -> None:
    compose = (f"services:\n  vllm:\n    image: vllm/vllm-openai:v0.30.0\n    environment:\n"
               f"      - VLLM_USE_V2_MODEL_RUNNER=1\n    command: [\"{M}\"]\n")
    assert fix(compose, "compose.yaml", "compose", "RL107", gpu="H100")[0] == compose.replace("RUNNER=1", "RUNNER=0")
    k8s = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: v}\nspec:\n  template:\n    spec:\n"
        "      containers:\n        - name: vllm\n          image: vllm/vllm-openai:v0.30.0\n"
        f"          args: [\"{M}\"]\n          env:\n            - name: VLLM_USE_V2_MODEL_RUNNER\n"
        "              value: \"1\"\n"
    )
    assert fix(k8s, "deploy.yaml", "kubernetes", "RL107", gpu="H100")[0] == k8s.replace('value: "1"', 'value: "0"')


def test_absent_flag_added_in_shell_and_compose_flow_list() -> None:
    text = "vllm serve deepseek-ai/DeepSeek-V3 --speculative-config '{\"method\": \"mtp\"}'\n"
    fixed, _ = fix("# relialint: engine-version=0.30.0\n" + text, "serve.sh", "shell", "RL113")
    assert fixed is not None and fixed.endswith("'{\"method\": \"mtp\"}' --no-enable-prefix-caching\n")
    compose = ("services:\n  v:\n    image: vllm/vllm-openai:v0.30.0\n"
               "    command: [\"deepseek-ai/DeepSeek-V3\", \"--speculative-config\", '{\"method\": \"mtp\"}']\n")
    fixed, _ = fix(compose, "compose.yaml", "compose", "RL113")
    assert fixed is not None and fixed.endswith("'{\"method\": \"mtp\"}', '--no-enable-prefix-caching']\n")


def test_env_var_in_dockerfile_and_systemd() -> None:
    docker = f"FROM vllm/vllm-openai:v0.30.0\nCMD [\"vllm\", \"serve\", \"{M}\"]\n"
    assert fix(docker, "Dockerfile", "dockerfile", "RL107", gpu="H100")[0] == docker.replace(
        "CMD", "ENV VLLM_USE_V2_MODEL_RUNNER=0\nCMD")
    unit = f"[Service]\nEnvironment=HF_HOME=/m\nExecStart=/usr/bin/vllm serve {M}\n"
    fixed, _ = fix("# relialint: engine-version=0.30.0\n" + unit, "vllm.service", "systemd", "RL107", gpu="H100")
    assert fixed == "# relialint: engine-version=0.30.0\n" + unit.replace(
        "ExecStart", "Environment=VLLM_USE_V2_MODEL_RUNNER=0\nExecStart")
