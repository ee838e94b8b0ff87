"""``--format github``: workflow-command annotations; text output colour only on a terminal, NO_COLOR respected."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from relialint.report.github import escape_data, escape_property
from tests.cli_run import invoke
from tests.conftest import ROOT
from tests.work import HANG_S

# examples/serve-cmd.sh pins no vLLM version; RL101 is a 0.9.0-0.18.1 defect
RTX_4090 = ("--gpu", "RTX 4090", "--engine-version", "0.18.1")

SCRIPT = (ROOT / "examples" / "serve-cmd.sh").read_text()
FIX = ("Upgrade to 0.19.0 or newer. On 0.9.0-0.18.1, serve NVFP4 checkpoints with `--dtype float16` (or `--dtype "
       "half`) on GPUs below compute capability 10.0 and check the output once (PR #33972 reports NaN from Marlin "
       "with float16 on dense NVFP4 models before its own fix). On a GPU with native FP4 (compute capability 10.0 "
       "or newer) the condition does not apply.")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "serve.sh").write_text(SCRIPT)
    return tmp_path


def github(cwd: Path, *args: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, list[str]]:
    monkeypatch.chdir(cwd)
    result = invoke([*args, "--format", "github"])
    return result.exit_code, result.stdout.splitlines()


def test_a_definite_blocker_is_an_error_annotation(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, lines = github(repo, "deploy", *RTX_4090, "--select", "RL101", monkeypatch=monkeypatch)
    assert code == 1
    assert lines == [
        "::error file=deploy/serve.sh,line=8,col=3,endLine=8,endColumn=10,title=RL101 [blocker] NVFP4 checkpoint "
        "served with --dtype bfloat16 on a GPU without native FP4 returns garbled output (vLLM 0.9.0-0.18.1)::NVFP4 "
        "checkpoint with --dtype bfloat16 on a GPU without native FP4 (Marlin): the bfloat16 scales underflow and "
        "responses are garbled; upgrade to 0.19.0 or use --dtype float16%0Afix: "
        f"{FIX}%0Asee: https://relialint.dev/records/RL101/",
        "relialint: 1 file, 1 definite, 0 possible, 0 errors",
    ]


def test_possible_findings_targets_and_paths_from_a_subfolder(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, lines = github(repo / "deploy", "serve.sh", "--select", "RL101", monkeypatch=monkeypatch)
    assert code == 0
    assert lines[0].startswith("::warning file=deploy/serve.sh,line=8,col=3,endLine=8,endColumn=10,"
                               "title=RL101 [blocker%2C possible] ")
    code, lines = github(repo, "deploy", "--gpu", "H100", "--gpu", "B200", "--select", "RL101",
                         "--engine-version", "0.18.1", monkeypatch=monkeypatch)
    assert code == 1
    assert lines[0].startswith("::error file=deploy/serve.sh,line=8,col=3,endLine=8,endColumn=10,"
                               "title=RL101 [blocker%2C on H100] ")
    assert len(lines) == 2


def test_read_errors_are_error_annotations(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / "deploy" / "broken.sh").write_bytes(b"#!/bin/sh\n\x00")
    code, lines = github(repo, "deploy/broken.sh", monkeypatch=monkeypatch)
    assert code == 2
    assert lines == ["::error file=deploy/broken.sh,line=2,col=1,title=relialint::binary file (NUL byte); "
                     "not a configuration file",
                     "relialint: 1 file, 0 definite, 0 possible, 1 error"]


def test_escaping() -> None:
    assert escape_data("50%\r\nnext") == "50%25%0D%0Anext"
    assert escape_property("a,b:c%") == "a%2Cb%3Ac%25"


def _text_through_a_terminal(env: dict[str, str], cwd: Path) -> bytes:
    """Run the real command line with stdout on a pseudo-terminal and return what it printed."""
    import pty

    parent, child = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "relialint.cli", "deploy/serve.sh", *RTX_4090,
                             "--select", "RL101"], stdout=child, stderr=subprocess.DEVNULL, cwd=cwd, env=env)
    os.close(child)
    chunks = []
    while True:
        try:
            data = os.read(parent, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=HANG_S)
    os.close(parent)
    return b"".join(chunks)


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_colour_only_on_a_terminal_and_never_with_no_color(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    coloured = _text_through_a_terminal(env, repo)
    assert b"\x1b[1;31mRL101\x1b[0m" in coloured
    plain = _text_through_a_terminal({**env, "NO_COLOR": "1"}, repo)
    assert b"\x1b[" not in plain and b"RL101 [blocker]" in plain
    monkeypatch.chdir(repo)
    piped = invoke(["deploy/serve.sh", *RTX_4090, "--select", "RL101"]).stdout
    assert "\x1b[" not in piped
    assert piped.splitlines()[-1] == "1 file, 1 deployment: 1 definite, 0 possible, 0 errors"
