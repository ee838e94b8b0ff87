"""Issue acceptance: a compose `${KV_DTYPE:-auto}` filled from the `.env` beside it: the fact's value comes from the
`.env` line (its source), the finding points at the compose line."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.cli_run import invoke

COMPOSE = """services:
  vllm:
    image: vllm/vllm-openai:v0.10.2
    command: >
      nvidia/Llama-3.1-8B-Instruct
      --kv-cache-dtype ${KV_DTYPE:-auto}
      --enable-sleep-mode
"""


def _run(tmp_path: Path, *args: str) -> dict[str, object]:
    (tmp_path / "compose.yaml").write_text(COMPOSE)
    (tmp_path / ".env").write_text("# settings\nKV_DTYPE=fp8\n")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = invoke([*args, "compose.yaml", "--format", "json"])
    finally:
        os.chdir(cwd)
    return json.loads(result.output)


def test_fact_source_is_the_env_line(tmp_path: Path) -> None:
    doc = _run(tmp_path, "facts")
    (dep,) = doc["deployments"]  # type: ignore[misc]
    fact = dep["facts"]["kv_cache.dtype"]
    assert fact["value"] == "fp8"
    assert (fact["path"], fact["line"], fact["column"]) == ("compose.yaml", 6, 7)
    assert fact["source"] == {"path": ".env", "line": 2, "column": 1}


def test_finding_points_at_the_compose_line(tmp_path: Path) -> None:
    doc = _run(tmp_path, "check", "--gpu", "H100", "--select", "RL120")
    (finding,) = doc["findings"]  # type: ignore[misc]
    assert (finding["code"], finding["certainty"], finding["path"], finding["line"], finding["column"]) == (
        "RL120", "definite", "compose.yaml", 6, 7)


def test_without_the_env_file_the_default_applies(tmp_path: Path) -> None:
    (tmp_path / "compose.yaml").write_text(COMPOSE)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = invoke(["facts", "compose.yaml", "--format", "json"])
    finally:
        os.chdir(cwd)
    (dep,) = json.loads(result.output)["deployments"]
    assert dep["facts"]["kv_cache.dtype"]["value"] == "auto"
