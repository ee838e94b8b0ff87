"""``--format sarif``: valid against the official OASIS SARIF 2.1.0 schema (tests/data, from the OASIS errata01
release), and acceptable to GitHub code scanning (required properties, repository-relative URIs, rules)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from relialint import SITE_URL, record_url
from tests.cli_run import invoke
from tests.conftest import ROOT

# examples/serve-cmd.sh pins no vLLM version; RL101 is a 0.9.0-0.18.1 defect
RTX_4090 = ("--gpu", "RTX 4090", "--engine-version", "0.18.1")

SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-2.1.0.schema.json").read_text())
SCRIPT = (ROOT / "examples" / "serve-cmd.sh").read_text()


def sarif(cwd: Path, *args: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, dict[str, Any], str]:
    monkeypatch.chdir(cwd)
    result = invoke([*args, "--format", "sarif"])
    return result.exit_code, json.loads(result.stdout), result.stdout


def validate(doc: dict[str, Any]) -> None:
    jsonschema.Draft4Validator.check_schema(SCHEMA)
    errors = sorted(jsonschema.Draft4Validator(SCHEMA).iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors]


def github_code_scanning_rules(doc: dict[str, Any]) -> None:
    """What GitHub code scanning requires of an uploaded SARIF file, beyond the schema."""
    assert doc["version"] == "2.1.0" and doc["$schema"].endswith("sarif-schema-2.1.0.json")
    for run in doc["runs"]:
        driver = run["tool"]["driver"]
        assert driver["name"] == "relialint" and driver["version"]
        ids = [r["id"] for r in driver["rules"]]
        assert len(ids) == len(set(ids)), "rule ids are unique"
        for rule in driver["rules"]:
            assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
            assert rule["help"]["text"] and rule["help"]["markdown"]
            assert rule["helpUri"].startswith(SITE_URL)
            assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
            assert rule["properties"]["severity"] in ("blocker", "major", "minor")
            assert rule["properties"]["impact"]
        for result in run["results"]:
            assert result["ruleId"] in ids
            assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
            assert result["message"]["text"]
            assert result["level"] in ("error", "warning", "note")
            assert result["partialFingerprints"]
            (location,) = result["locations"]
            physical = location["physicalLocation"]
            uri = physical["artifactLocation"]["uri"]
            assert "://" not in uri and not uri.startswith("/") and ".." not in uri.split("/"), uri
            assert physical["region"]["startLine"] >= 1 and physical["region"]["startColumn"] >= 1


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "serve.sh").write_text(SCRIPT)
    return tmp_path


def test_sarif_is_valid_and_github_ready(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, doc, _ = sarif(repo, "deploy", *RTX_4090, monkeypatch=monkeypatch)
    assert code == 1
    validate(doc)
    github_code_scanning_rules(doc)
    run = doc["runs"][0]
    results = {r["ruleId"]: r for r in run["results"]}
    rl101 = results["RL101"]
    assert rl101["level"] == "error"
    assert rl101["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "deploy/serve.sh", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 8, "startColumn": 3, "endLine": 8, "endColumn": 10}}
    assert rl101["properties"] == {"severity": "blocker", "certainty": "definite", "shown": True}
    rule = run["tool"]["driver"]["rules"][rl101["ruleIndex"]]
    assert rule["id"] == "RL101"
    assert rule["name"] == "Nvfp4Bf16GarbledWithoutNativeFp4"
    assert rule["helpUri"] == record_url("RL101")
    assert "--dtype float16" in rule["help"]["markdown"]
    assert rule["properties"]["severity"] == "blocker" and rule["properties"]["impact"] == "wrong-output"
    assert run["invocations"] == [{"executionSuccessful": True, "toolExecutionNotifications": []}]


def test_uris_are_relative_to_the_repository_root_from_a_subfolder(repo: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _, doc, _ = sarif(repo / "deploy", "serve.sh", *RTX_4090, "--select", "RL101",
                      monkeypatch=monkeypatch)
    (result,) = doc["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "deploy/serve.sh"


def test_possible_findings_are_one_level_lower_and_name_missing_facts(repo: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    code, doc, _ = sarif(repo, "deploy", "--select", "RL101", "--engine-version", "0.18.1", monkeypatch=monkeypatch)
    assert code == 0
    validate(doc)
    (result,) = doc["runs"][0]["results"]
    assert result["level"] == "warning"
    assert result["properties"] == {"severity": "blocker", "certainty": "possible", "shown": True,
                                    "missing_facts": ["gpu.sm"]}


def test_fingerprints_are_stable_when_lines_move(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, before, _ = sarif(repo, "deploy", *RTX_4090, "--select", "RL101", monkeypatch=monkeypatch)
    script = repo / "deploy" / "serve.sh"
    script.write_text(SCRIPT.replace("set -euo pipefail\n", "set -euo pipefail\n\n# moved\n"))
    _, after, _ = sarif(repo, "deploy", *RTX_4090, "--select", "RL101", monkeypatch=monkeypatch)
    (a,), (b,) = before["runs"][0]["results"], after["runs"][0]["results"]
    assert a["locations"][0]["physicalLocation"]["region"]["startLine"] == 8
    assert b["locations"][0]["physicalLocation"]["region"]["startLine"] == 10
    assert a["partialFingerprints"] == b["partialFingerprints"]


def test_output_is_byte_identical_across_runs(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, _, first = sarif(repo, "deploy", *RTX_4090, monkeypatch=monkeypatch)
    _, _, second = sarif(repo, "deploy", *RTX_4090, monkeypatch=monkeypatch)
    assert first == second


def test_read_errors_are_notifications_and_suppressed_results_carry_suppressions(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / "deploy" / "broken.sh").write_bytes(b"#!/bin/sh\n\x00\x01")
    lines = SCRIPT.splitlines()
    lines[5] = "# relialint: ignore[RL101] fp16 fallback verified"
    (repo / "deploy" / "serve.sh").write_text("\n".join(lines) + "\n")
    code, doc, _ = sarif(repo, "deploy", *RTX_4090, "--show-ignored", "--gpu", "H100",
                         monkeypatch=monkeypatch)
    assert code == 2
    validate(doc)
    github_code_scanning_rules(doc)
    run = doc["runs"][0]
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is False
    (note,) = invocation["toolExecutionNotifications"]
    assert note["level"] == "error"
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "deploy/broken.sh"
    hidden = [r for r in run["results"] if "suppressions" in r]
    assert [(r["ruleId"], r["properties"]["target"]) for r in hidden] == [("RL101", "H100"), ("RL101", "RTX 4090")]
    assert hidden[0]["suppressions"] == [{"kind": "inSource", "status": "accepted",
                                          "justification": "fp16 fallback verified (inline: deploy/serve.sh:6)"}]


def test_every_shipped_rule_and_the_suppression_checks_are_described(repo: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    _, doc, _ = sarif(repo, "deploy", "--select", "RL999", monkeypatch=monkeypatch)
    ids = [r["id"] for r in doc["runs"][0]["tool"]["driver"]["rules"]]
    assert ids[:4] == ["RL001", "RL002", "RL003", "RL004"]
    assert "RL101" in ids and ids == sorted(ids)
    validate(doc)
