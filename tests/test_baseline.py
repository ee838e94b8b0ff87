"""Baseline: written from today's findings, keyed by record, path and fact (not line), stale entries reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_run import invoke
from tests.conftest import ROOT

# examples/serve-cmd.sh pins no vLLM version; RL101 is a 0.9.0-0.18.1 defect
RTX_4090 = ("--gpu", "RTX 4090", "--engine-version", "0.18.1")

# VLLM_USE_V1 set, which the script's vLLM 0.18.1 no longer reads (RL504): a second finding to baseline.
SCRIPT = (ROOT / "examples" / "serve-cmd.sh").read_text().replace("set -euo pipefail\n",
                                                                   "set -euo pipefail\nexport VLLM_USE_V1=1\n")
SECOND = "\nvllm serve nvidia/Llama-3.1-8B-Instruct-FP4 --dtype bfloat16 --port 8001\n"
ARGS = (*RTX_4090, "--select", "RL101,RL504")


def run(cwd: Path, *args: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    monkeypatch.chdir(cwd)
    result = invoke(list(args))
    return result.exit_code, result.stdout, result.stderr


def rows(cwd: Path, *args: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, list[tuple[str, str]]]:
    code, out, err = run(cwd, *args, "--format", "json", monkeypatch=monkeypatch)
    assert out, err
    return code, [(f["code"], f"{f['path']}:{f['line']}:{f['column']}") for f in json.loads(out)["findings"]]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "serve.sh").write_text(SCRIPT)
    return tmp_path


EXPECTED = """{
  "version": 1,
  "entries": [
    {"code": "RL101", "path": "deploy/serve.sh", "about": "serve.dtype", "count": 1},
    {"code": "RL504", "path": "deploy/serve.sh", "about": "args.unread_env", "count": 1}
  ]
}
"""


def test_write_baseline_records_todays_findings(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run(repo, "deploy", *ARGS, "--write-baseline", ".relialint-baseline.json",
                         monkeypatch=monkeypatch)
    assert (code, out) == (0, "")
    assert "wrote 2 findings to .relialint-baseline.json" in err
    assert (repo / ".relialint-baseline.json").read_text() == EXPECTED


def test_baseline_hides_known_findings_even_after_lines_move(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run(repo, "deploy", *ARGS, "--write-baseline", ".relialint-baseline.json", monkeypatch=monkeypatch)
    assert rows(repo, "deploy", *ARGS, "--baseline", ".relialint-baseline.json", monkeypatch=monkeypatch) == (0, [])
    # edits above the findings move them down three lines: still the same findings
    script = repo / "deploy" / "serve.sh"
    script.write_text(SCRIPT.replace("set -euo pipefail\n", "set -euo pipefail\n# a\n# b\nexport X=1\n"))
    assert rows(repo, "deploy", *ARGS, monkeypatch=monkeypatch) == (
        1, [("RL504", "deploy/serve.sh:7:8"), ("RL101", "deploy/serve.sh:12:3")])
    assert rows(repo, "deploy", *ARGS, "--baseline", ".relialint-baseline.json", monkeypatch=monkeypatch) == (0, [])


def test_a_new_finding_is_reported(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run(repo, "deploy", *ARGS, "--write-baseline", ".relialint-baseline.json", monkeypatch=monkeypatch)
    (repo / "deploy" / "serve.sh").write_text(SCRIPT + SECOND)
    # the second command inherits the exported VLLM_USE_V1 too: one more RL504 than the baseline counts
    assert rows(repo, "deploy", *ARGS, "--baseline", ".relialint-baseline.json", monkeypatch=monkeypatch) == (
        1, [("RL504", "deploy/serve.sh:4:8"), ("RL101", "deploy/serve.sh:13:45")])
    (repo / "deploy" / "other.sh").write_text(SCRIPT)
    code, found = rows(repo, "deploy", *ARGS, "--baseline", ".relialint-baseline.json", monkeypatch=monkeypatch)
    assert (code, found) == (1, [("RL504", "deploy/other.sh:4:8"), ("RL101", "deploy/other.sh:9:3"),
                                 ("RL504", "deploy/serve.sh:4:8"), ("RL101", "deploy/serve.sh:13:45")])


def test_stale_entries_are_reported_so_the_baseline_only_shrinks(repo: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    run(repo, "deploy", *ARGS, "--write-baseline", ".relialint-baseline.json", monkeypatch=monkeypatch)
    (repo / "deploy" / "serve.sh").write_text(SCRIPT.replace("--dtype bfloat16", "--dtype float16"))
    code, out, _ = run(repo, "deploy", *ARGS, "--baseline", ".relialint-baseline.json", "--format", "json",
                       monkeypatch=monkeypatch)
    doc = json.loads(out)
    assert code == 0  # a stale entry is minor: reported, and the default --fail-on major lets it pass
    (stale,) = doc["findings"]
    assert (stale["code"], stale["severity"], stale["path"], stale["line"]) == (
        "RL004", "minor", ".relialint-baseline.json", 4)
    assert stale["message"] == ("baseline entry RL101 in deploy/serve.sh (serve.dtype): 1 of 1 finding no longer "
                                "found; rewrite the baseline with --write-baseline so that it only shrinks")
    code, _, _ = run(repo, "deploy", *ARGS, "--baseline", ".relialint-baseline.json", "--fail-on", "minor",
                     monkeypatch=monkeypatch)
    assert code == 1
    # rewriting shrinks it
    run(repo, "deploy", *ARGS, "--baseline", ".relialint-baseline.json", "--write-baseline",
        ".relialint-baseline.json", monkeypatch=monkeypatch)
    assert json.loads((repo / ".relialint-baseline.json").read_text())["entries"] == [
        {"code": "RL504", "path": "deploy/serve.sh", "about": "args.unread_env", "count": 1}]


def test_entries_for_files_not_linted_are_not_stale(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / "ok.sh").write_text("#!/bin/sh\necho hi\n")
    run(repo, "deploy", *ARGS, "--write-baseline", ".relialint-baseline.json", monkeypatch=monkeypatch)
    assert rows(repo, "ok.sh", *ARGS, "--baseline", ".relialint-baseline.json", monkeypatch=monkeypatch) == (0, [])


def test_two_identical_findings_count(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    twice = SCRIPT + SECOND
    (repo / "deploy" / "serve.sh").write_text(twice)
    run(repo, "deploy", *RTX_4090, "--select", "RL101", "--write-baseline", "b.json",
        monkeypatch=monkeypatch)
    assert json.loads((repo / "b.json").read_text())["entries"] == [
        {"code": "RL101", "path": "deploy/serve.sh", "about": "serve.dtype", "count": 2}]
    (repo / "deploy" / "serve.sh").write_text(twice + SECOND)
    assert rows(repo, "deploy", *RTX_4090, "--select", "RL101", "--baseline", "b.json",
                monkeypatch=monkeypatch) == (1, [("RL101", "deploy/serve.sh:15:45")])


def test_baseline_path_is_relative_to_the_baseline_file(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run(repo, "deploy", *ARGS, "--write-baseline", ".relialint-baseline.json", monkeypatch=monkeypatch)
    assert rows(repo / "deploy", "serve.sh", *ARGS, "--baseline", "../.relialint-baseline.json",
                monkeypatch=monkeypatch) == (0, [])


def test_targets_are_part_of_the_key(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run(repo, "deploy", "--gpu", "H100", "--gpu", "B200", "--select", "RL101", "--write-baseline", "b.json",
        monkeypatch=monkeypatch)
    assert json.loads((repo / "b.json").read_text())["entries"] == [
        {"code": "RL101", "path": "deploy/serve.sh", "about": "serve.dtype", "target": "H100", "count": 1}]
    assert rows(repo, "deploy", "--gpu", "H100", *RTX_4090, "--select", "RL101", "--baseline", "b.json",
                monkeypatch=monkeypatch) == (1, [("RL101", "deploy/serve.sh:9:3")])


@pytest.mark.parametrize("text", ["not json", '{"entries": []}', '{"version": 1, "entries": [{"code": 1}]}'])
def test_invalid_baseline_is_a_usage_error(repo: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    (repo / "b.json").write_text(text)
    code, out, err = run(repo, "deploy", "--baseline", "b.json", monkeypatch=monkeypatch)
    assert code == 2 and out == ""
    assert err.startswith("relialint: error: b.json: ")


def test_baseline_from_configuration(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / ".relialint.toml").write_text('baseline = "known.json"\n')
    assert rows(repo, "deploy", *ARGS, monkeypatch=monkeypatch)[0] == 1  # no file yet: everything is reported
    run(repo, "deploy", *ARGS, "--write-baseline", "known.json", monkeypatch=monkeypatch)
    assert rows(repo, "deploy", *ARGS, monkeypatch=monkeypatch) == (0, [])
    assert rows(repo, "deploy", *ARGS, "--isolated", monkeypatch=monkeypatch)[0] == 1
