"""A Dockerfile that a compose service builds, or an env file it loads, is linted as part of that service only."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.cli_run import invoke


def _deployments(folder: Path) -> list[tuple[str, int, str]]:
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        result = invoke(["facts", ".", "--format", "json"])
    finally:
        os.chdir(cwd)
    return [(d["path"], d["line"], d["kind"]) for d in json.loads(result.output)["deployments"]]


def test_built_dockerfile_and_env_file_are_not_deployments_of_their_own(tmp_path: Path) -> None:
    (tmp_path / "compose.yaml").write_text(
        "services:\n  vllm:\n    build: .\n    env_file: vllm.env\n    command: [\"m\", \"--dtype\", \"half\"]\n")
    (tmp_path / "Dockerfile").write_text("FROM vllm/vllm-openai:v0.30.0\nCMD [\"other\"]\n")
    (tmp_path / "vllm.env").write_text("VLLM_USE_V2_MODEL_RUNNER=0\n")
    assert _deployments(tmp_path) == [("compose.yaml", 3, "compose")]


def test_a_dockerfile_nobody_builds_is_its_own_deployment(tmp_path: Path) -> None:
    (tmp_path / "Dockerfile").write_text("FROM vllm/vllm-openai:v0.30.0\nCMD [\"m\"]\n")
    assert _deployments(tmp_path) == [("Dockerfile", 1, "dockerfile")]
