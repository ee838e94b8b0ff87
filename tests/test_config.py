"""Configuration: discovery (nearest wins), settings, per-path overrides, several targets, invalid files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from relialint.run import config
from tests.cli_run import invoke
from tests.conftest import ROOT

# examples/serve-cmd.sh pins no vLLM version; RL101 is a 0.9.0-0.18.1 defect
RTX_4090 = ("--gpu", "RTX 4090", "--engine-version", "0.18.1")

# the example pins no vLLM version; RL101 is a 0.9.0-0.18.1 defect, so the copy here pins 0.18.1 (same line count)
SCRIPT = (ROOT / "examples" / "serve-cmd.sh").read_text().replace(
    "# Serve an NVFP4 checkpoint on a workstation GPU.\n", "# relialint: engine-version=0.18.1\n")


def run(cwd: Path, *args: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    monkeypatch.chdir(cwd)
    result = invoke(list(args))
    return result.exit_code, result.stdout, result.stderr


def findings(cwd: Path, *args: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, list[tuple[str, ...]], dict]:
    code, out, err = run(cwd, *args, "--format", "json", monkeypatch=monkeypatch)
    assert out, err
    doc = json.loads(out)
    rows = [(f["code"], f["certainty"], f["path"], f"{f['line']}:{f['column']}", *( [f["target"]] if "target" in f
                                                                                   else [])) for f in doc["findings"]]
    return code, rows, doc


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "serve.sh").write_text(SCRIPT)
    return tmp_path


def test_pyproject_gpu_makes_the_finding_definite(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, rows, _ = findings(repo, "serve.sh", "--select", "RL101", monkeypatch=monkeypatch)
    assert (code, rows) == (0, [("RL101", "possible", "serve.sh", "8:3")])
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.relialint]\ngpu = "RTX 4090"\n')
    code, rows, _ = findings(repo, "serve.sh", "--select", "RL101", monkeypatch=monkeypatch)
    assert (code, rows) == (1, [("RL101", "definite", "serve.sh", "8:3")])


def test_configuration_facts_have_origin_configuration(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / ".relialint.toml").write_text('gpu = "RTX 4090"\nfacts = { "gpu.cc_mode" = false }\n')
    code, out, _ = run(repo, "facts", "serve.sh", "--format", "json", monkeypatch=monkeypatch)
    assert code == 0
    facts = json.loads(out)["deployments"][0]["facts"]
    assert facts["gpu.model"] == {"value": "RTX 4090", "origin": "configuration"}
    assert facts["gpu.cc_mode"] == {"value": False, "origin": "configuration"}


def test_nearest_configuration_wins(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / "pyproject.toml").write_text('[tool.relialint]\ngpu = "B200"\n')
    (repo / "ws").mkdir()
    (repo / "ws" / "serve.sh").write_text(SCRIPT)
    (repo / "ws" / ".relialint.toml").write_text('gpu = "RTX 4090"\n')
    code, rows, _ = findings(repo, "serve.sh", "ws/serve.sh", "--select", "RL101", monkeypatch=monkeypatch)
    assert (code, rows) == (1, [("RL101", "definite", "ws/serve.sh", "8:3")])


def test_relialint_toml_beats_pyproject_in_one_folder_and_pyproject_without_table_is_passed_over(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / "pyproject.toml").write_text('[tool.relialint]\ngpu = "B200"\n')
    (repo / ".relialint.toml").write_text('gpu = "RTX 4090"\n')
    assert config.find(repo / "serve.sh") == (repo / ".relialint.toml").resolve()
    sub = repo / "sub"
    sub.mkdir()
    (sub / "pyproject.toml").write_text('[project]\nname = "sub"\n')
    assert config.find(sub / "x.sh") == (repo / ".relialint.toml").resolve()


def test_per_path_override_runs_a_folder_on_b200(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / "deploy" / "b200").mkdir(parents=True)
    (repo / "deploy" / "serve.sh").write_text(SCRIPT)
    (repo / "deploy" / "b200" / "serve.sh").write_text(SCRIPT)
    (repo / "pyproject.toml").write_text(
        '[tool.relialint]\ngpu = "RTX 4090"\nselect = ["RL101"]\n\n'
        '[[tool.relialint.overrides]]\npaths = ["deploy/b200/**"]\ngpu = "B200"\n')
    code, rows, _ = findings(repo, "deploy", monkeypatch=monkeypatch)
    assert (code, rows) == (1, [("RL101", "definite", "deploy/serve.sh", "8:3")])


def test_command_line_beats_configuration(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / ".relialint.toml").write_text('gpu = "B200"\nselect = ["RL101"]\n')
    code, rows, _ = findings(repo, "serve.sh", monkeypatch=monkeypatch)
    assert (code, rows) == (0, [])
    code, rows, _ = findings(repo, "serve.sh", *RTX_4090, monkeypatch=monkeypatch)
    assert (code, rows) == (1, [("RL101", "definite", "serve.sh", "8:3")])
    code, rows, _ = findings(repo, "serve.sh", "--isolated", monkeypatch=monkeypatch)
    assert code == 0 and ("RL101", "possible", "serve.sh", "8:3") in rows and len(rows) > 1


def test_the_file_wins_over_configuration_with_a_note(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / ".relialint.toml").write_text('gpu = "RTX 4090"\nselect = ["RL101"]\n[facts]\n"serve.dtype" = "float16"\n')
    code, rows, doc = findings(repo, "serve.sh", monkeypatch=monkeypatch)
    assert (code, rows) == (1, [("RL101", "definite", "serve.sh", "8:3")])
    assert doc["notes"] == ["serve.sh:8: serve.dtype is bfloat16 in the file; the configuration value float16 is not "
                            "used"]


def test_fail_on_strict_select_ignore_and_exclude_from_configuration(repo: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = repo / ".relialint.toml"
    cfg.write_text('gpu = "RTX 4090"\nfail-on = "never"\n')
    code, rows, _ = findings(repo, "serve.sh", monkeypatch=monkeypatch)
    assert code == 0 and ("RL101", "definite", "serve.sh", "8:3") in rows
    cfg.write_text('select = ["RL101"]\nstrict = true\n')
    code, rows, _ = findings(repo, "serve.sh", monkeypatch=monkeypatch)
    assert (code, rows) == (1, [("RL101", "possible", "serve.sh", "8:3")])
    cfg.write_text('gpu = "RTX 4090"\nignore = ["RL1"]\n')
    code, rows, _ = findings(repo, "serve.sh", monkeypatch=monkeypatch)
    assert code == 0 and not [r for r in rows if r[0].startswith("RL1")]
    cfg.write_text('gpu = "RTX 4090"\nexclude = ["serve.sh"]\n')
    (repo / "other").mkdir()
    (repo / "other" / "ok.sh").write_text("#!/bin/sh\necho hi\n")
    code, out, _ = run(repo, ".", "--format", "json", monkeypatch=monkeypatch)
    doc = json.loads(out)
    assert (code, doc["findings"], doc["summary"]["files"]) == (0, [], 1)


def test_several_targets_on_the_command_line(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, rows, doc = findings(repo, "serve.sh", "--gpu", "H100", "--gpu", "B200", "--select", "RL101",
                               monkeypatch=monkeypatch)
    assert (code, rows) == (1, [("RL101", "definite", "serve.sh", "8:3", "H100")])
    assert doc["summary"]["deployments"] == 1
    code, out, _ = run(repo, "serve.sh", "--gpu", "H100", "--gpu", "B200", "--select", "RL101",
                       monkeypatch=monkeypatch)
    assert "serve.sh:8:3: RL101 [blocker, on H100]" in out


def test_several_targets_in_configuration(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / ".relialint.toml").write_text(
        'select = ["RL101"]\ntargets = ["RTX 4090", "B200", { name = "lab", gpu = "V100" }]\n')
    code, rows, _ = findings(repo, "serve.sh", monkeypatch=monkeypatch)
    # a V100 has no NVFP4 backend at all (start-up stops): only the RTX 4090 target has the finding
    assert (code, rows) == (1, [("RL101", "definite", "serve.sh", "8:3", "RTX 4090")])


@pytest.mark.parametrize(("text", "where", "message"), [
    ('gpu = "RTX 4090"\ngpuu = "H100"\n', "2:1", "gpuu: unknown setting"),
    ('strict = "yes"\n', "1:1", "strict: Input should be a valid boolean"),
    ('fail-on = "sometimes"\n', "1:1", "fail-on: Input should be 'blocker', 'major', 'minor' or 'never'"),
    ('select = ["RL1", "E501"]\n', "1:1", "select: 'E501' is not a record id or prefix (RL1, RL105)"),
    ('[[overrides]]\npaths = ["a/**"]\ngpu = "H100"\n\n[[overrides]]\npaths = ["b/**"]\n  gpu = "H1000"\n',
     "7:3", "overrides.1.gpu: unknown GPU 'H1000'"),
    ('[facts]\n"gpu.count" = 2\n"gpu.countt" = 2\n', "3:1", "facts.gpu.countt: unknown fact"),
    ('facts = { "gpu.count" = "two" }\n', "1:11", "facts.gpu.count:"),
    ('[[suppress]]\nrecord = "RL101"\nreason = "  "\n', "3:1", "suppress.0.reason: a suppression needs a reason"),
    ('[[suppress]]\nrecord = "RL101"\npaths = ["x"]\n', "1:1", "suppress.0.reason: Field required"),
    ('gpu = "RTX 4090\n', "1:16", "invalid TOML: Illegal character"),
])
def test_invalid_configuration_exits_2_with_file_line_and_key(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                                              text: str, where: str, message: str) -> None:
    (repo / ".relialint.toml").write_text(text)
    code, out, err = run(repo, "serve.sh", monkeypatch=monkeypatch)
    assert code == 2
    assert out == ""
    assert err.startswith(f".relialint.toml:{where}: error: invalid configuration: "), err
    assert message in err


def test_invalid_pyproject_points_into_the_tool_table(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\ngpu = 1\n\n[tool.relialint]\nos = "beos"\n')
    code, _, err = run(repo, "serve.sh", monkeypatch=monkeypatch)
    assert code == 2
    assert ":6:1: error: invalid configuration: os: Input should be 'linux', 'windows' or 'macos'" in err


def test_explicit_config_file(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / "elsewhere.toml").write_text('gpu = "RTX 4090"\nselect = ["RL101"]\n')
    code, rows, _ = findings(repo, "serve.sh", "--config", "elsewhere.toml", monkeypatch=monkeypatch)
    assert (code, rows) == (1, [("RL101", "definite", "serve.sh", "8:3")])


@pytest.mark.parametrize(("pattern", "path", "hit"), [
    ("deploy/b200/**", "deploy/b200/serve.sh", True),
    ("deploy/b200/**", "deploy/b200/x/y.yaml", True),
    ("deploy/b200/**", "deploy/serve.sh", False),
    ("*.sh", "a/b/serve.sh", True),
    ("deploy/*.sh", "deploy/a/serve.sh", False),
    ("deploy/", "deploy/a/serve.sh", True),
    ("**/compose.yaml", "compose.yaml", True),
    ("legacy", "legacy/run.sh", True),
])
def test_globs(pattern: str, path: str, hit: bool) -> None:
    assert config.glob_match(pattern, path) is hit
