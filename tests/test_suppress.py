"""Inline directives (ignores with reasons, facts), configured suppressions with expiry, --show-ignored, stdin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from relialint.run import suppress
from tests.cli_run import invoke
from tests.conftest import ROOT

# examples/serve-cmd.sh pins no vLLM version; RL101 is a 0.9.0-0.18.1 defect
RTX_4090 = ("--gpu", "RTX 4090", "--engine-version", "0.18.1")

# the example pins no vLLM version; RL101 is a 0.9.0-0.18.1 defect, so the copy here pins 0.18.1 (same line count)
SCRIPT = (ROOT / "examples" / "serve-cmd.sh").read_text().replace(
    "# Serve an NVFP4 checkpoint on a workstation GPU.\n", "# relialint: engine-version=0.18.1\n")
LINES = SCRIPT.splitlines()
ONE_LINE = "#!/bin/sh\nvllm serve nvidia/Llama-3.3-70B-Instruct-FP4 --dtype bfloat16{comment}\n"


def run(cwd: Path, *args: str, monkeypatch: pytest.MonkeyPatch, stdin: str | None = None) -> tuple[int, str, str]:
    monkeypatch.chdir(cwd)
    result = invoke(list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


def rows(cwd: Path, *args: str, monkeypatch: pytest.MonkeyPatch, stdin: str | None = None,
         ) -> tuple[int, list[tuple[str, str, str]], dict]:
    code, out, err = run(cwd, *args, "--format", "json", monkeypatch=monkeypatch, stdin=stdin)
    assert out, err
    doc = json.loads(out)
    return code, [(f["code"], f["severity"], f"{f['path']}:{f['line']}:{f['column']}") for f in doc["findings"]], doc


def write(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(text)
    return path


def with_line_above_command(directive: str) -> str:
    # line 6 of the example is blank, right above `vllm serve` (line 7); the finding is on line 8
    lines = list(LINES)
    lines[5] = directive
    return "\n".join(lines) + "\n"


GPU = (*RTX_4090, "--select", "RL101")


def test_ignore_above_the_command_suppresses_a_finding_on_a_continuation_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "serve.sh", with_line_above_command("# relialint: ignore[RL101] tested on this card, see #42"))
    code, found, doc = rows(tmp_path, "serve.sh", *GPU, monkeypatch=monkeypatch)
    assert (code, found) == (0, [])
    assert "suppressed" not in doc
    code, found, doc = rows(tmp_path, "serve.sh", *GPU, "--show-ignored", monkeypatch=monkeypatch)
    assert (code, found) == (0, [])
    (hidden,) = doc["suppressed"]
    assert (hidden["code"], hidden["line"], hidden["suppressed_by"], hidden["reason"], hidden["where"]) == (
        "RL101", 8, "inline", "tested on this card, see #42", "serve.sh:6")


def test_ignore_on_the_findings_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "one.sh", ONE_LINE.format(comment="  # relialint: ignore[RL1] canary passed"))
    code, found, _ = rows(tmp_path, "one.sh", *GPU, monkeypatch=monkeypatch)
    assert (code, found) == (0, [])


def test_an_ignore_elsewhere_does_not_suppress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = list(LINES)
    lines[2] = "# relialint: ignore[RL101] wrong place"  # line 3, far above
    write(tmp_path, "serve.sh", "\n".join(lines) + "\n")
    code, found, _ = rows(tmp_path, "serve.sh", *GPU, monkeypatch=monkeypatch)
    assert (code, found) == (1, [("RL002", "minor", "serve.sh:3:1"), ("RL101", "blocker", "serve.sh:8:3")])


def test_ignore_without_a_reason_is_not_applied_and_is_a_finding(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "serve.sh", with_line_above_command("# relialint: ignore[RL101]"))
    code, found, doc = rows(tmp_path, "serve.sh", *GPU, monkeypatch=monkeypatch)
    assert (code, found) == (1, [("RL001", "major", "serve.sh:6:1"), ("RL101", "blocker", "serve.sh:8:3")])
    assert "has no reason" in doc["findings"][0]["message"]


@pytest.mark.parametrize("reason", ["REASON: why this is safe here", "reason:  why this is SAFE here",
                                    "why this is safe here"])
def test_the_placeholder_reason_is_not_a_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                reason: str) -> None:
    # what the editor's "Ignore" quick fix inserts, left as it is, or the text the message about a missing reason
    # shows in its place
    write(tmp_path, "serve.sh", with_line_above_command(f"# relialint: ignore[RL101] {reason}"))
    code, found, doc = rows(tmp_path, "serve.sh", *GPU, monkeypatch=monkeypatch)
    assert (code, found) == (1, [("RL001", "major", "serve.sh:6:1"), ("RL101", "blocker", "serve.sh:8:3")])
    assert doc["findings"][0]["message"] == (
        "`ignore[RL101]` has the placeholder reason 'REASON: why this is safe here', so it is not applied; replace "
        "the placeholder with why this is safe here")
    write(tmp_path, "serve.sh", with_line_above_command("# relialint: ignore[RL101] why this is safe here: fp16 "
                                                        "fallback verified"))
    assert rows(tmp_path, "serve.sh", *GPU, monkeypatch=monkeypatch)[:2] == (0, [])


def test_unused_ignore_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "serve.sh", with_line_above_command("# relialint: ignore[RL105] fp8 kv is fine here"))
    code, found, doc = rows(tmp_path, "serve.sh", *GPU, "--select", "RL105", monkeypatch=monkeypatch)
    assert (code, found) == (1, [("RL002", "minor", "serve.sh:6:1"), ("RL101", "blocker", "serve.sh:8:3")])
    assert doc["findings"][0]["message"] == ("`ignore[RL105]` suppresses nothing: no such finding on line 7; "
                                             "remove it")
    # a record that did not run cannot make its ignore unused
    code, found, _ = rows(tmp_path, "serve.sh", *GPU, monkeypatch=monkeypatch)
    assert found == [("RL101", "blocker", "serve.sh:8:3")]


def test_ignore_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = ["#!/usr/bin/env bash", "# relialint: ignore-file[RL1, RL3] lab box, output checked by hand", *LINES[1:]]
    write(tmp_path, "serve.sh", "\n".join(lines) + "\n")
    code, found, _ = rows(tmp_path, "serve.sh", *RTX_4090, "--select", "RL101,RL302",
                          monkeypatch=monkeypatch)
    assert (code, found) == (0, [])


def test_no_inline_ignores_turns_them_off_for_audits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "serve.sh", with_line_above_command("# relialint: ignore[RL101] tested on this card"))
    code, found, _ = rows(tmp_path, "serve.sh", *GPU, "--no-inline-ignores", monkeypatch=monkeypatch)
    assert (code, found) == (1, [("RL101", "blocker", "serve.sh:8:3")])


def test_show_ignored_in_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "serve.sh", with_line_above_command("# relialint: ignore[RL101] tested on this card"))
    code, out, _ = run(tmp_path, "serve.sh", *GPU, "--show-ignored", monkeypatch=monkeypatch)
    assert code == 0
    assert out.splitlines() == [
        "serve.sh:8:3: RL101 [blocker] suppressed by inline (serve.sh:6): tested on this card",
        "1 file, 1 deployment: 0 definite, 0 possible, 0 errors, 1 suppressed",
    ]


def test_directive_facts_apply_to_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "serve.sh", with_line_above_command("# relialint: gpu=RTX 4090"))
    code, found, _ = rows(tmp_path, "serve.sh", "--select", "RL101", monkeypatch=monkeypatch)
    assert (code, found) == (1, [("RL101", "blocker", "serve.sh:8:3")])
    code, out, _ = run(tmp_path, "facts", "serve.sh", "--format", "json", monkeypatch=monkeypatch)
    facts = json.loads(out)["deployments"][0]["facts"]
    assert facts["gpu.native_fp4"] == {"value": False, "origin": "directive", "path": "serve.sh", "line": 6,
                                       "column": 1, "note": "from a relialint directive"}
    # a directive is more specific than the command line
    code, found, _ = rows(tmp_path, "serve.sh", "--select", "RL101", "--gpu", "B200", monkeypatch=monkeypatch)
    assert found == [("RL101", "blocker", "serve.sh:8:3")]


def test_fact_and_engine_version_directives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "serve.sh", with_line_above_command(
        "# relialint: fact gpu.sm=8.9 gpu.cc_mode=off"))
    code, found, _ = rows(tmp_path, "serve.sh", "--select", "RL101,RL107", monkeypatch=monkeypatch)
    assert (code, found) == (1, [("RL101", "blocker", "serve.sh:8:3")])
    write(tmp_path, "serve.sh", with_line_above_command("# relialint: engine-version=0.30.0 os=linux"))
    code, out, _ = run(tmp_path, "facts", "serve.sh", "--format", "json", monkeypatch=monkeypatch)
    facts = json.loads(out)["deployments"][0]["facts"]
    assert (facts["engine.version"]["value"], facts["engine.version"]["origin"]) == ("0.30.0", "directive")
    assert (facts["host.os"]["value"], facts["host.os"]["origin"]) == ("linux", "directive")


def test_bad_directives_are_findings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = "\n".join(["#!/bin/sh", "# relialint: gpu=H1000", "# relialint: fact no.such=1",
                      "# relialint: ignroe[RL101] typo", "# relialint: ignore[E501] not ours",
                      "# relialint: ignore everything", "echo hi"]) + "\n"
    write(tmp_path, "x.sh", text)
    code, found, doc = rows(tmp_path, "x.sh", monkeypatch=monkeypatch)
    assert code == 1
    assert found == [("RL001", "major", f"x.sh:{n}:1") for n in (2, 3, 4, 5, 6)]
    messages = [f["message"] for f in doc["findings"]]
    assert "unknown GPU 'H1000'" in messages[0]
    assert "unknown fact 'no.such'" in messages[1]
    assert "unknown relialint directive 'ignroe[RL101]'" in messages[2]


def test_configured_suppression_with_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "deploy").mkdir()
    write(tmp_path, "deploy/serve.sh", SCRIPT)
    write(tmp_path, "serve.sh", SCRIPT)
    write(tmp_path, "pyproject.toml", '[tool.relialint]\ngpu = "RTX 4090"\nselect = ["RL101"]\n\n'
          '[[tool.relialint.suppress]]\nrecord = "RL101"\npaths = ["deploy/**"]\n'
          'reason = "fp16 fallback verified, ticket OPS-7"\nexpires = 2999-01-01\n')
    code, found, doc = rows(tmp_path, ".", "--show-ignored", monkeypatch=monkeypatch)
    assert (code, found) == (1, [("RL101", "blocker", "serve.sh:8:3")])
    (hidden,) = doc["suppressed"]
    assert (hidden["path"], hidden["suppressed_by"], hidden["reason"], hidden["where"]) == (
        "deploy/serve.sh", "configuration", "fp16 fallback verified, ticket OPS-7", "pyproject.toml:6")


def test_expired_configured_suppression_stops_working_and_is_reported(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "serve.sh", SCRIPT)
    write(tmp_path, ".relialint.toml", 'gpu = "RTX 4090"\nselect = ["RL101"]\n\n[[suppress]]\nrecord = "RL101"\n'
          'reason = "until the fp16 rollout"\nexpires = 2020-01-31\n')
    code, found, doc = rows(tmp_path, "serve.sh", monkeypatch=monkeypatch)
    assert (code, found) == (1, [("RL003", "minor", ".relialint.toml:5:1"), ("RL101", "blocker", "serve.sh:8:3")])
    assert "expired" in doc["findings"][0]["message"]


def test_unused_configured_suppression_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "serve.sh", SCRIPT)
    write(tmp_path, ".relialint.toml", 'select = ["RL101", "RL105"]\n\n[[suppress]]\nrecord = "RL105"\n'
          'paths = ["*.sh"]\nreason = "fp8 kv cache measured"\n\n[[suppress]]\nrecord = "RL105"\n'
          'paths = ["elsewhere/**"]\nreason = "not linted in this run"\n')
    code, found, _ = rows(tmp_path, "serve.sh", monkeypatch=monkeypatch)
    assert (code, found) == (0, [("RL002", "minor", ".relialint.toml:4:1"),
                                 ("RL101", "blocker", "serve.sh:8:3")])


def test_stdin_with_a_filename_uses_that_files_configuration_and_directives(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "deploy").mkdir()
    write(tmp_path, "deploy/.relialint.toml", 'gpu = "RTX 4090"\nselect = ["RL101"]\n')
    code, found, doc = rows(tmp_path, "-", "--stdin-filename", "deploy/serve.sh", monkeypatch=monkeypatch,
                            stdin=SCRIPT)
    assert (code, found) == (1, [("RL101", "blocker", "deploy/serve.sh:8:3")])
    assert doc["summary"]["files"] == 1
    code, found, _ = rows(tmp_path, "-", "--stdin-filename", "deploy/serve.sh", monkeypatch=monkeypatch,
                          stdin=with_line_above_command("# relialint: ignore[RL101] checked"))
    assert (code, found) == (0, [])
    code, _, err = run(tmp_path, "-", monkeypatch=monkeypatch, stdin=SCRIPT)
    assert code == 2 and "--stdin-filename" in err


@pytest.mark.parametrize(("kind", "text", "expected"), [
    ("shell", 'echo "# relialint: ignore[RL1] not a comment"\n', []),
    ("shell", "vllm serve m  # relialint: ignore[RL1] trailing\n", [(1, 1)]),
    ("shell", "# relialint: ignore[RL1] above\n\n# another comment\nvllm serve m\n", [(1, 4)]),
    ("compose", "services:\n  vllm:\n    # relialint: ignore[RL105] yaml\n    image: vllm/vllm-openai\n",
     [(3, 4)]),
    ("compose", "    command: --dtype bfloat16 # relialint: ignore[RL101] yaml trailing\n", [(1, 1)]),
    ("env", "VLLM_USE_V1=1 # relialint: ignore[RL302] env trailing\n", [(1, 1)]),
    ("systemd", "[Service]\n# relialint: ignore[RL101] unit\nExecStart=/usr/bin/vllm serve m\n", [(2, 3)]),
    ("systemd", "ExecStart=/usr/bin/vllm serve m # relialint: ignore[RL101] not a comment in systemd\n", []),
    ("dockerfile", "# relialint: ignore[RL101] docker\nCMD vllm serve m\n", [(1, 2)]),
    ("dockerfile", "CMD vllm serve m # relialint: ignore[RL101] part of the instruction\n", []),
])
def test_comment_syntax_per_kind(kind: str, text: str, expected: list[tuple[int, int]]) -> None:
    parsed = suppress.parse(text, kind, "f")
    assert [(i.line, i.target_line) for i in parsed.ignores] == expected
    assert parsed.problems == []


def test_directive_grammar() -> None:
    parsed = suppress.parse("# relialint: ignore[RL101,RL2 RL3]: - reason here\n# relialint: gpu=RTX 4090\n"
                            "# relialint: gpu=H100 engine-version=0.30.0\n", "shell", "f")
    (ignore,) = parsed.ignores
    assert (ignore.codes, ignore.reason) == (["RL101", "RL2", "RL3"], "reason here")
    assert [(f.key, f.value, f.line) for f in parsed.facts] == [
        ("gpu", "RTX 4090", 2), ("gpu", "H100", 3), ("engine-version", "0.30.0", 3)]
