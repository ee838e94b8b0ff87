"""The examples shipped in `examples/` give exactly these findings (code, certainty, location)."""

from __future__ import annotations

import json
import os

from click.testing import CliRunner

from relialint.cli import main
from tests.conftest import ROOT


def findings(*args: str) -> tuple[list[tuple[object, ...]], dict[str, int]]:
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        result = CliRunner().invoke(main, ["examples/", "--format", "json", *args])
    finally:
        os.chdir(cwd)
    doc = json.loads(result.output)
    rows = [(f["path"], f["line"], f["column"], f["code"], f["certainty"]) for f in doc["findings"]]
    return rows, doc["summary"]


def test_examples_without_a_target_gpu() -> None:
    rows, summary = findings()
    assert rows == [
        ("examples/compose.yaml", 12, 7, "RL107", "possible"),
        ("examples/compose.yaml", 12, 7, "RL206", "possible"),
        ("examples/compose.yaml", 12, 7, "RL301", "possible"),
        ("examples/compose.yaml", 13, 7, "RL105", "possible"),
        ("examples/compose.yaml", 14, 7, "RL303", "definite"),
        ("examples/compose.yaml", 15, 7, "RL113", "definite"),
        ("examples/compose.yaml", 15, 7, "RL208", "definite"),
        ("examples/compose.yaml", 20, 15, "RL104", "possible"),
        ("examples/compose.yaml", 20, 15, "RL107", "possible"),
        ("examples/compose.yaml", 20, 15, "RL206", "possible"),
        ("examples/compose.yaml", 20, 15, "RL301", "possible"),
        ("examples/compose.yaml", 20, 30, "RL303", "definite"),
        ("examples/k8s-deployment.yaml", 18, 66, "RL105", "definite"),
        ("examples/serve-cmd.sh", 7, 12, "RL107", "possible"),
        ("examples/serve-cmd.sh", 7, 12, "RL206", "possible"),
        ("examples/serve-cmd.sh", 8, 3, "RL101", "possible"),
        ("examples/serve-cmd.sh", 10, 3, "RL302", "possible"),
    ]
    assert summary == {"files": 3, "deployments": 4, "definite": 5, "possible": 12, "errors": 0}


def test_examples_on_an_h100() -> None:
    rows, summary = findings("--gpu", "H100")
    definite = [r for r in rows if r[4] == "definite"]
    assert definite == [
        ("examples/compose.yaml", 12, 7, "RL206", "definite"),
        ("examples/compose.yaml", 14, 7, "RL303", "definite"),
        ("examples/compose.yaml", 15, 7, "RL113", "definite"),
        ("examples/compose.yaml", 15, 7, "RL208", "definite"),
        ("examples/compose.yaml", 20, 15, "RL206", "definite"),
        ("examples/compose.yaml", 20, 30, "RL303", "definite"),
        ("examples/k8s-deployment.yaml", 18, 66, "RL105", "definite"),  # the manifest's A100 node wins
        ("examples/serve-cmd.sh", 8, 3, "RL101", "definite"),
    ]
    assert summary["definite"] == 8
