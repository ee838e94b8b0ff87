"""Bad input is expected input: each case gives a located error and exit 2, and the other files are still linted.

Every case runs through the CLI on a folder holding the bad file and a good compose file whose RL120 finding
must still be reported; each run must stay well within a budget of CPU seconds (never the time on the clock: a
loaded machine makes a run slower, not dearer), the bounds of docs/bad-input.md keeping it there.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli_run import invoke
from tests.work import cpu

GOOD = ("services:\n  llm:\n    image: vllm/vllm-openai:v0.10.2\n"
        "    command: [\"Qwen/Qwen2.5-72B-Instruct\", \"--kv-cache-dtype\", \"fp8\", \"--enable-sleep-mode\"]\n")
BILLION_LAUGHS = "services: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"x{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, "
    f"*a{i - 1}, *a{i - 1}]\n" for i in range(1, 10))


def lint(*paths: Path, budget_s: float = 20.0) -> tuple[int, dict[str, object]]:
    """The run, within ``budget_s`` CPU seconds: each bound keeps its case to well under a second of CPU, and a
    case whose bound is gone runs for minutes (an alias bomb, a 50 MB file read whole) and fails here at once."""
    result = cpu(budget_s, lambda: invoke([*map(str, paths), "--gpu", "H100", "--select", "RL120", "--format",
                                           "json"]))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, json.loads(result.output)


def setup(tmp_path: Path, make_bad: Callable[[Path], Path]) -> tuple[Path, Path]:
    good = tmp_path / "good"
    good.mkdir()
    (good / "compose.yaml").write_text(GOOD)
    bad_dir = tmp_path / "bad"
    bad_dir.mkdir()
    return good, make_bad(bad_dir)


def check(tmp_path: Path, make_bad: Callable[[Path], Path], line: int, column: int, message: str,
          explicit: bool = False, limit_s: float = 20.0) -> None:
    good, bad = setup(tmp_path, make_bad)
    code, doc = lint(tmp_path, budget_s=limit_s) if not explicit else lint(bad, good, budget_s=limit_s)
    assert code == 2
    errors = doc["errors"]
    assert isinstance(errors, list)
    matching = [e for e in errors if message in e["message"]]
    assert matching, errors
    error = matching[0]
    assert Path(error["path"]).name == bad.name
    assert (error["line"], error["column"]) == (line, column)
    findings = doc["findings"]
    assert isinstance(findings, list)
    assert [(f["code"], Path(f["path"]).parent.name, f["line"], f["column"]) for f in findings] == \
        [("RL120", "good", 4, 44)]


def test_malformed_yaml(tmp_path: Path) -> None:
    def make(folder: Path) -> Path:
        path = folder / "compose.yaml"
        path.write_text("services:\n  llm:\n    image: [vllm/vllm-openai\n    command: x\n")
        return path

    check(tmp_path, make, 4, 12, "invalid YAML")


def test_alias_bomb(tmp_path: Path) -> None:
    def make(folder: Path) -> Path:
        path = folder / "compose.yaml"
        path.write_text(BILLION_LAUGHS)
        return path

    check(tmp_path, make, 1, 22, "alias bomb", limit_s=10)


@pytest.mark.parametrize("explicit", [False, True])
def test_50_mb_file(tmp_path: Path, explicit: bool) -> None:
    def make(folder: Path) -> Path:
        path = folder / ("compose.yaml" if not explicit else "huge.yaml")
        with open(path, "wb") as handle:
            handle.write(b"services:\n")
            handle.write((b"# padding padding padding padding padding padding padding padding padding\n") * 700_000)
        assert path.stat().st_size > 50_000_000
        return path

    check(tmp_path, make, 1, 1, "file too large", explicit=explicit, limit_s=5)


def test_binary_file(tmp_path: Path) -> None:
    def make(folder: Path) -> Path:
        path = folder / "model.yaml"
        path.write_bytes(b"services:\n  a:\x00\x01\x02\xff" + os.urandom(256))
        return path

    check(tmp_path, make, 2, 5, "binary file")


def test_invalid_utf8(tmp_path: Path) -> None:
    def make(folder: Path) -> Path:
        path = folder / "compose.yaml"
        path.write_bytes(b"services:\n  llm:\n    image: caf\xe9\n")
        return path

    check(tmp_path, make, 3, 15, "not valid UTF-8")


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_symlink_loop_folder(tmp_path: Path) -> None:
    def make(folder: Path) -> Path:
        (folder / "loop").symlink_to(folder, target_is_directory=True)
        return folder / "loop"

    check(tmp_path, make, 1, 1, "symlink loop")


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_symlink_loop_file(tmp_path: Path) -> None:
    def make(folder: Path) -> Path:
        path = folder / "compose.yaml"
        path.symlink_to(path)
        return path

    check(tmp_path, make, 1, 1, "cannot read")


def test_unreadable_file(tmp_path: Path) -> None:
    def make(folder: Path) -> Path:
        path = folder / "compose.yaml"
        path.write_text(GOOD)
        path.chmod(0)
        return path

    if os.geteuid() != 0:
        try:
            check(tmp_path, make, 1, 1, "permission denied")
        finally:
            (tmp_path / "bad" / "compose.yaml").chmod(0o644)
        return
    # root reads a mode-000 file: the same run in a subprocess without the privileges that bypass permissions
    from tests.test_hostile import relialint, without_file_privileges

    _, bad = setup(tmp_path, make)
    try:
        code, out, _ = relialint(str(tmp_path), "--gpu", "H100", "--select", "RL120", "--format", "json",
                                 prefix=tuple(without_file_privileges()))
    finally:
        bad.chmod(0o644)
    doc = json.loads(out)
    assert code == 2
    assert [(Path(e["path"]).name, e["line"], e["column"]) for e in doc["errors"]
            if "permission denied" in e["message"]] == [("compose.yaml", 1, 1)]
    assert [(f["code"], Path(f["path"]).parent.name, f["line"], f["column"]) for f in doc["findings"]] == \
        [("RL120", "good", 4, 44)]


def test_deep_nesting_is_an_error_not_a_crash(tmp_path: Path) -> None:
    def make(folder: Path) -> Path:
        path = folder / "compose.yaml"
        path.write_text("services: " + "[" * 5000 + "]" * 5000 + "\n")
        return path

    setup(tmp_path, make)
    code, doc = lint(tmp_path)
    assert code == 2
    errors = doc["errors"]
    assert isinstance(errors, list) and any(Path(e["path"]).name == "compose.yaml" for e in errors)


def test_unreadable_file_even_as_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same as above where the tests run with privileges that read mode-000 files: the read itself is made to
    fail the way the kernel fails it for an ordinary user."""
    original = os.open

    def guarded_open(path: str | Path, flags: int, *args: int) -> int:
        if Path(path).parent.name == "bad" and Path(path).name == "compose.yaml":
            raise PermissionError(13, "Permission denied", str(path))
        return original(path, flags, *args)

    monkeypatch.setattr(os, "open", guarded_open)

    def make(folder: Path) -> Path:
        path = folder / "compose.yaml"
        path.write_text(GOOD)
        return path

    check(tmp_path, make, 1, 1, "permission denied")
