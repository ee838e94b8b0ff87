"""The command line itself (contracts §1): the default command, --version, help, every usage error, the tri-state
--strict, repeatable options, the last-resort handler, and the two ways of starting it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from relialint import __version__
from tests.cli_run import Result, invoke
from tests.conftest import ROOT
from tests.work import HANG_S

# examples/serve-cmd.sh pins no vLLM version; RL101 is a 0.9.0-0.18.1 defect
RTX_4090 = ("--gpu", "RTX 4090", "--engine-version", "0.18.1")

EXAMPLE = "examples/serve-cmd.sh"
INTERNAL = ("relialint: internal error (RuntimeError); nothing was reported. Please report it with the input that "
            "caused it.\n")


@pytest.fixture(autouse=True)
def _at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def test_a_path_first_means_check() -> None:
    implicit = invoke([EXAMPLE, *RTX_4090, "--select", "RL101"])
    explicit = invoke(["check", EXAMPLE, *RTX_4090, "--select", "RL101"])
    assert implicit == explicit
    assert implicit.exit_code == 1
    assert implicit.stdout.startswith(f"{EXAMPLE}:8:3: RL101 [blocker] ")
    assert implicit.stderr == ""


def test_an_option_first_means_check() -> None:
    result = invoke(["--select", "RL101", *RTX_4090, EXAMPLE])
    assert (result.exit_code, result.stdout.splitlines()[-1]) == (
        1, "1 file, 1 deployment: 1 definite, 0 possible, 0 errors")


def test_options_and_paths_mix_in_any_order(tmp_path: Path) -> None:
    fixed = tmp_path / "fixed.sh"
    fixed.write_text((ROOT / EXAMPLE).read_text().replace("bfloat16", "float16"))
    result = invoke([EXAMPLE, "--select", "RL101", str(fixed), *RTX_4090, "--format", "json"])
    doc = json.loads(result.stdout)
    assert (result.exit_code, doc["summary"]["files"], [f["path"] for f in doc["findings"]]) == (1, 2, [EXAMPLE])


def test_no_arguments_prints_the_group_help() -> None:
    result = invoke([])
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.startswith("Usage: relialint [OPTIONS] COMMAND [ARGS]...\n")
    commands = result.stdout.split("commands:\n")[1].splitlines()
    assert [line.split()[0] for line in commands] == ["check", "explain", "facts", "lsp", "probe", "records",
                                                      "schema", "upgrade", "validate"]
    assert "  check     Lint deployment files (the default command)." in commands
    assert invoke(["-h"]) == result
    assert invoke(["--help"]) == result


def test_version() -> None:
    assert invoke(["--version"]) == Result(0, f"relialint, version {__version__}\n", "",
                                           f"relialint, version {__version__}\n", None)


@pytest.mark.parametrize(("command", "options"), [
    ("check", ["PATHS", "--gpu TEXT", "--engine-version TEXT", "--os [linux|windows|macos]", "--fact KEY=VALUE",
               "--facts FILE", "--format [text|json|sarif|github]", "--select TEXT", "--ignore TEXT",
               "--fail-on [blocker|major|minor|never]", "--strict, --no-strict", "--show-possible",
               "--records DIRECTORY", "--config FILE", "--isolated", "--follow-outside, --no-follow-outside",
               "--no-inline-ignores", "--show-ignored",
               "--baseline FILE", "--write-baseline FILE", "--stdin-filename NAME", "--since REF", "-h, --help"]),
    ("explain", ["RECORD_ID", "-h, --help"]),
    ("records", ["QUERY", "--engine NAME", "--format [text|json]", "-h, --help"]),
    ("facts", ["PATHS", "--gpu TEXT", "--engine-version TEXT", "--os [linux|windows|macos]", "--fact KEY=VALUE",
               "--facts FILE", "--format [text|json]", "--follow-outside, --no-follow-outside", "-h, --help"]),
    ("validate", ["DIRS", "-h, --help"]),
    ("probe", ["--from-nvidia-smi FILE", "--duration S", "--interval S", "--write-facts FILE", "--fact KEY=VALUE",
               "--format [text|json|sarif|github]", "--select TEXT", "--ignore TEXT",
               "--fail-on [blocker|major|minor|never]", "--strict", "--show-possible", "-h, --help"]),
    ("lsp", ["-h, --help"]),
    ("schema", ["-h, --help"]),
    ("upgrade", ["PATHS", "--to VERSION", "--from VERSION", "--gpu TEXT", "--os [linux|windows|macos]",
                 "--fact KEY=VALUE", "--facts FILE", "--format [text|json|sarif|github]", "--select TEXT",
                 "--ignore TEXT", "--fail-on [blocker|major|minor|never]", "--strict, --no-strict", "--show-possible",
                 "--records DIRECTORY", "--config FILE", "--isolated", "--follow-outside, --no-follow-outside",
                 "-h, --help"]),
])
def test_help_of_each_command_lists_its_options(command: str, options: list[str]) -> None:
    for flag in ("-h", "--help"):
        result = invoke([command, flag])
        assert (result.exit_code, result.stderr) == (0, "")
        assert result.stdout.startswith(f"Usage: relialint {command} [OPTIONS]")
        listed = [line.split("  ")[1].strip() for line in result.stdout.splitlines()
                  if line.startswith("  ") and not line.startswith("   ")]
        assert listed == options


def test_help_shows_defaults_and_ranges() -> None:
    text = " ".join(invoke(["probe", "-h"]).stdout.split())
    assert "(0: one snapshot) [default: 0.0; x>=0]" in text
    assert "seconds between samples [default: 1.0; x>=0.05]" in text
    assert "makes the exit code 1 [default: major]" in text
    assert "--format [text|json|sarif|github] [default: text]" in text


@pytest.mark.parametrize(("args", "usage", "message"), [
    (["check"], "check [OPTIONS] PATHS...", "the following arguments are required: PATHS"),
    ([EXAMPLE, "--bogus"], "check [OPTIONS] PATHS...", "unrecognized arguments: --bogus"),
    ([EXAMPLE, "--gpu"], "check [OPTIONS] PATHS...", "argument --gpu: expected one argument"),
    ([EXAMPLE, "--isol"], "check [OPTIONS] PATHS...", "unrecognized arguments: --isol"),  # no abbreviations
    ([EXAMPLE, "--gpu", " "], "check [OPTIONS] PATHS...", "--gpu takes a value, not an empty string"),
    ([EXAMPLE, "--engine-version", ""], "check [OPTIONS] PATHS...",
     "--engine-version takes a value, not an empty string"),
    ([EXAMPLE, "--fact", "gpu.count"], "check [OPTIONS] PATHS...", "--fact takes KEY=VALUE, not 'gpu.count'"),
    ([EXAMPLE, "--os", "beos"], "check [OPTIONS] PATHS...",
     "Invalid value for '--os': 'beos' is not one of 'linux', 'windows', 'macos'."),
    ([EXAMPLE, "--format", "xml"], "check [OPTIONS] PATHS...",
     "Invalid value for '--format': 'xml' is not one of 'text', 'json', 'sarif', 'github'."),
    ([EXAMPLE, "--fail-on", "any"], "check [OPTIONS] PATHS...",
     "Invalid value for '--fail-on': 'any' is not one of 'blocker', 'major', 'minor', 'never'."),
    ([EXAMPLE, "--records", "/nonexistent"], "check [OPTIONS] PATHS...",
     "Invalid value for '--records': Directory '/nonexistent' does not exist."),
    ([EXAMPLE, "--records", "records", "--records", EXAMPLE], "check [OPTIONS] PATHS...",
     f"Invalid value for '--records': Directory '{EXAMPLE}' is a file."),
    ([EXAMPLE, "--facts", "examples"], "check [OPTIONS] PATHS...",
     "Invalid value for '--facts': File 'examples' is a directory."),
    ([EXAMPLE, "--config", "examples"], "check [OPTIONS] PATHS...",
     "Invalid value for '--config': File 'examples' is a directory."),
    ([EXAMPLE, "--baseline", "examples"], "check [OPTIONS] PATHS...",
     "Invalid value for '--baseline': File 'examples' is a directory."),
    ([EXAMPLE, "--write-baseline", "examples"], "check [OPTIONS] PATHS...",
     "Invalid value for '--write-baseline': File 'examples' is a directory."),
    (["-", EXAMPLE, "--stdin-filename", "x.sh"], "check [OPTIONS] PATHS...",
     "`-` reads standard input: give it alone, with --stdin-filename NAME"),
    (["-"], "check [OPTIONS] PATHS...", "`-` reads standard input: give it alone, with --stdin-filename NAME"),
    (["facts"], "facts [OPTIONS] PATHS...", "the following arguments are required: PATHS"),
    (["facts", EXAMPLE, "--gpu", "H100", "--gpu", ""], "facts [OPTIONS] PATHS...",
     "--gpu takes a value, not an empty string"),
    (["facts", EXAMPLE, "--os", "beos"], "facts [OPTIONS] PATHS...",
     "Invalid value for '--os': 'beos' is not one of 'linux', 'windows', 'macos'."),
    (["facts", EXAMPLE, "--format", "sarif"], "facts [OPTIONS] PATHS...",
     "Invalid value for '--format': 'sarif' is not one of 'text', 'json'."),
    (["explain"], "explain [OPTIONS] RECORD_ID", "the following arguments are required: RECORD_ID"),
    (["explain", "RL101", "RL102"], "explain [OPTIONS] RECORD_ID", "unrecognized arguments: RL102"),
    (["records", "--format", "sarif"], "records [OPTIONS] [QUERY]",
     "Invalid value for '--format': 'sarif' is not one of 'text', 'json'."),
    (["schema", "extra"], "schema [OPTIONS]", "unrecognized arguments: extra"),
    (["lsp", "extra"], "lsp [OPTIONS]", "unrecognized arguments: extra"),
    (["probe", "--duration", "-1"], "probe [OPTIONS]",
     "Invalid value for '--duration': -1.0 is not in the range x>=0."),
    (["probe", "--duration", "soon"], "probe [OPTIONS]",
     "Invalid value for '--duration': 'soon' is not a valid float."),
    (["probe", "--interval", "0.01"], "probe [OPTIONS]",
     "Invalid value for '--interval': 0.01 is not in the range x>=0.05."),
    (["probe", "--from-nvidia-smi", "examples"], "probe [OPTIONS]",
     "Invalid value for '--from-nvidia-smi': File 'examples' is a directory."),
    (["probe", "--from-nvidia-smi", "tests/fixtures/probe/collect-env.txt", "--duration", "5"], "probe [OPTIONS]",
     "--duration samples NVML on this host; with --from-nvidia-smi, give several captures in time order instead"),
    (["probe", "--write-facts", "host.txt"], "probe [OPTIONS]",
     "--write-facts host.txt: the file name ends in .json or .toml"),
    (["probe", "--fail-on", "all"], "probe [OPTIONS]",
     "Invalid value for '--fail-on': 'all' is not one of 'blocker', 'major', 'minor', 'never'."),
])
def test_each_usage_error_exits_2_with_its_message(args: list[str], usage: str, message: str) -> None:
    result = invoke(args)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.splitlines() == [f"Usage: relialint {usage}", f"Try 'relialint {usage.split()[0]} -h' "
                                          "for help.", f"relialint: error: {message}"]


def test_strict_is_unset_unless_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--strict and --no-strict override the configuration; without either, the configuration decides."""
    (tmp_path / "serve.sh").write_text((ROOT / EXAMPLE).read_text())
    monkeypatch.chdir(tmp_path)
    args = ["serve.sh", "--select", "RL101"]  # RL101 is possible without a GPU
    assert [invoke([*args, *extra]).exit_code for extra in ([], ["--strict"], ["--no-strict"])] == [0, 1, 0]
    (tmp_path / ".relialint.toml").write_text("strict = true\n")
    assert [invoke([*args, *extra]).exit_code for extra in ([], ["--strict"], ["--no-strict"])] == [1, 1, 0]
    assert invoke([*args, "--strict", "--no-strict"]).exit_code == 0  # the last one given wins
    assert invoke([*args, "--isolated"]).exit_code == 0


def test_repeatable_options_add_up() -> None:
    one = invoke([EXAMPLE, *RTX_4090, "--select", "RL999,RL101", "--format", "json"])
    two = invoke([EXAMPLE, *RTX_4090, "--select", "RL999", "--select", "RL101", "--format", "json"])
    assert one == two
    assert [f["code"] for f in json.loads(one.stdout)["findings"]] == ["RL101"]
    ignored = invoke([EXAMPLE, *RTX_4090, "--select", "RL101", "--ignore", "RL2", "--ignore", "RL101"])
    assert (ignored.exit_code, ignored.stdout.splitlines()[-1]) == (
        0, "1 file, 1 deployment: 0 definite, 0 possible, 0 errors")
    targets = invoke([EXAMPLE, "--gpu", "H100", *RTX_4090, "--select", "RL101"]).stdout
    assert [line.split(" NVFP4")[0] for line in targets.splitlines() if ": RL101 [" in line] == [
        f"{EXAMPLE}:8:3: RL101 [blocker, on H100]", f"{EXAMPLE}:8:3: RL101 [blocker, on RTX 4090]"]
    facts = json.loads(invoke(["facts", EXAMPLE, "--format", "json", "--fact", "host.rebar=true", "--fact",
                               "gpu.count=2"]).stdout)["deployments"][0]["facts"]
    assert (facts["host.rebar"], facts["gpu.count"]) == ({"value": True, "origin": "cli"},
                                                         {"value": 2, "origin": "cli"})


def test_the_last_value_of_a_single_option_wins() -> None:
    result = invoke([EXAMPLE, *RTX_4090, "--select", "RL101", "--format", "json", "--format", "text"])
    assert result.stdout.splitlines()[-1] == "1 file, 1 deployment: 1 definite, 0 possible, 0 errors"


def test_an_unexpected_exception_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    from relialint.run import lint

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(lint, "lint_paths", broken)
    assert invoke([EXAMPLE]) == Result(2, "", INTERNAL, INTERNAL, None)


def test_a_closed_pipe_exits_2_quietly(monkeypatch: pytest.MonkeyPatch) -> None:
    from relialint.run import lint

    def closed(*args: object, **kwargs: object) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(lint, "lint_paths", closed)
    assert invoke([EXAMPLE]) == Result(2, "", "", "", None)


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT / "src")}


def test_python_dash_m_and_the_installed_script() -> None:
    """``python -m relialint`` and the ``relialint`` script of ``[project.scripts]`` are the same command line."""
    from importlib.metadata import entry_points

    from relialint.cli import main

    (script,) = [ep for ep in entry_points(group="console_scripts") if ep.name == "relialint"]
    assert script.value == "relialint.cli:main"
    assert script.load() is main
    module = subprocess.run([sys.executable, "-m", "relialint", "--version"], capture_output=True, text=True,
                            env=_env(), cwd=ROOT, timeout=HANG_S, check=False)
    assert (module.returncode, module.stdout, module.stderr) == (0, f"relialint, version {__version__}\n", "")
    installed = shutil.which("relialint", path=str(Path(sys.executable).parent))
    if installed is not None:
        proc = subprocess.run([installed, EXAMPLE, *RTX_4090, "--select", "RL101"], capture_output=True,
                              text=True, cwd=ROOT, timeout=HANG_S, check=False)
        assert (proc.returncode, proc.stdout.splitlines()[-1], proc.stderr) == (
            1, "1 file, 1 deployment: 1 definite, 0 possible, 0 errors", "")
        bad = subprocess.run([installed, EXAMPLE, "--os", "beos"], capture_output=True, text=True, cwd=ROOT,
                             timeout=HANG_S, check=False)
        assert (bad.returncode, bad.stdout, bad.stderr.splitlines()[-1]) == (
            2, "", "relialint: error: Invalid value for '--os': 'beos' is not one of 'linux', 'windows', 'macos'.")
