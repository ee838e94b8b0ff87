"""End to end through the CLI: the JSON contract, certainty, exit codes, bad inputs beside good ones."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli_run import invoke
from tests.conftest import ROOT

# examples/serve-cmd.sh pins no vLLM version; RL101 is a 0.9.0-0.18.1 defect
RTX_4090 = ("--gpu", "RTX 4090", "--engine-version", "0.18.1")

EXAMPLE = "examples/serve-cmd.sh"


def run(*args: str) -> tuple[int, str]:
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        result = invoke(list(args))
    finally:
        os.chdir(cwd)
    return result.exit_code, result.output


def test_json_contract_field_by_field() -> None:
    code, out = run(EXAMPLE, *RTX_4090, "--format", "json", "--select", "RL101")
    assert code == 1
    doc = json.loads(out)
    assert {"relialint", "findings", "errors", "summary"} <= set(doc)
    assert doc["relialint"] == "0.1.0"
    assert doc["errors"] == []
    assert doc["summary"] == {"files": 1, "deployments": 1, "definite": 1, "possible": 0, "possible_counted": 0,
                              "errors": 0}
    (finding,) = doc["findings"]
    contract = ["code", "slug", "title", "severity", "certainty", "path", "line", "column",
                "end_line", "end_column", "message", "missing_facts", "fix", "url"]
    assert list(finding)[: len(contract)] == contract  # the contract's fields first; extensions may follow
    assert finding["code"] == "RL101"
    assert finding["slug"] == "nvfp4-bf16-garbled-without-native-fp4"
    assert finding["severity"] == "blocker"
    assert finding["certainty"] == "definite"
    assert (finding["path"], finding["line"], finding["column"], finding["end_line"], finding["end_column"]) == (
        EXAMPLE, 8, 3, 8, 10)
    assert finding["missing_facts"] == []
    assert "--dtype float16" in finding["fix"]
    assert finding["url"] == "https://relialint.dev/records/RL101/"


def test_without_gpu_the_same_finding_is_possible_and_names_the_gpu_facts() -> None:
    code, out = run(EXAMPLE, "--format", "json", "--select", "RL101", "--engine-version", "0.18.1")
    assert code == 0
    (finding,) = json.loads(out)["findings"]
    assert finding["certainty"] == "possible"
    assert finding["missing_facts"] == ["gpu.sm"]
    assert finding["shown"] is True  # the model and --dtype point at it
    assert "--gpu NAME" in finding["message"]
    assert (finding["line"], finding["column"]) == (8, 3)


def test_strict_makes_possible_findings_fail() -> None:
    assert run(EXAMPLE, "--select", "RL101", "--strict")[0] == 1


def test_fixed_config_passes(tmp_path: Path) -> None:
    script = tmp_path / "serve.sh"
    script.write_text((ROOT / EXAMPLE).read_text().replace("bfloat16", "float16"))
    code, out = run(str(script), *RTX_4090, "--select", "RL101")
    assert code == 0
    assert out.endswith("1 file, 1 deployment: 0 definite, 0 possible, 0 errors\n")


def test_text_output_style() -> None:
    code, out = run(EXAMPLE, *RTX_4090, "--select", "RL101")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith(f"{EXAMPLE}:8:3: RL101 [blocker] NVFP4 checkpoint")
    assert lines[1].startswith("  fix: ")
    assert lines[2] == "  see: https://relialint.dev/records/RL101/"
    code, out = run(EXAMPLE, "--select", "RL101", "--engine-version", "0.18.1")
    assert f"{EXAMPLE}:8:3: RL101 [blocker, possible]" in out
    assert out.splitlines()[0].endswith(
        "(possible: depends on gpu.sm: holds on 31 of the 73 catalogue GPUs the file allows (T4, A100, A30, A800, "
        "A10 and 26 more); set --gpu NAME)")


def test_fail_on_and_select_ignore() -> None:
    assert run(EXAMPLE, *RTX_4090, "--select", "RL101", "--fail-on", "never")[0] == 0
    assert run(EXAMPLE, *RTX_4090, "--ignore", "RL1", "--select", "RL101")[0] == 0


@pytest.mark.parametrize(("args", "message"), [
    (["--gpu", "RTX 9999"], "unknown GPU 'RTX 9999'; closest: "),
    (["--fact", "gpu.flux=1"], "unknown fact 'gpu.flux'"),
    (["--fact", "gpu.count=two"], "gpu.count"),
    (["--engine-version", "banana"], "engine.version"),
])
def test_usage_errors_exit_2(args: list[str], message: str) -> None:
    code, out = run(EXAMPLE, *args)
    assert code == 2
    assert message in out


def test_bad_inputs_each_one_line_and_good_file_still_linted(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("nothing to lint")
    binary = tmp_path / "model.bin"
    binary.write_bytes(b"GGUF\x00\x01\x02")
    code, out = run(str(tmp_path / "nonexistent.sh"), str(empty), str(binary), EXAMPLE, *RTX_4090,
                    "--select", "RL101")
    assert code == 2
    lines = out.splitlines()
    assert f"{binary}:1:5: error: binary file (NUL byte); not a configuration file" in lines
    assert f"{tmp_path / 'nonexistent.sh'}:1:1: error: no such file or folder" in lines
    assert f"{empty}:1:1: error: no files relialint reads in this folder" in lines
    assert any(line.startswith(f"{EXAMPLE}:8:3: RL101 [blocker]") for line in lines)


def test_invalid_utf8_is_located(tmp_path: Path) -> None:
    bad = tmp_path / "serve.sh"
    bad.write_bytes(b"vllm serve m\n--dtype \xff\n")
    code, out = run(str(bad))
    assert code == 2
    assert f"{bad}:2:9: error: not valid UTF-8 (byte 0xff)" in out


def test_output_is_byte_identical_across_runs() -> None:
    assert run(EXAMPLE, "--format", "json")[1] == run(EXAMPLE, "--format", "json")[1]


def test_explain_records_schema_commands() -> None:
    code, out = run("explain", "RL113")
    assert code == 0
    assert out.startswith("RL113 mtp-spec-decode-prefix-caching-accuracy\n")
    assert "fires when " in out and "prefix caching is on" in out
    assert run("explain", "nvfp4-bf16-garbled-without-native-fp4")[1].startswith("RL101 ")
    assert run("explain", "RL999")[0] == 2
    _, out = run("records", "--format", "json")
    ids = [r["id"] for r in json.loads(out)["records"]]
    assert {"RL101", "RL105", "RL113"} <= set(ids)
    _, out = run("records", "kv-cache-dtype")
    assert "RL105" in out


def test_facts_json_has_origin_and_location() -> None:
    code, out = run("facts", EXAMPLE, "--format", "json", "--gpu", "H100")
    assert code == 0
    (dep,) = json.loads(out)["deployments"]
    assert (dep["path"], dep["line"], dep["engine"], dep["kind"]) == (EXAMPLE, 7, "vllm", "shell")
    assert dep["facts"]["serve.dtype"] == {"value": "bfloat16", "origin": "flag", "path": EXAMPLE, "line": 8,
                                           "column": 3}
    assert dep["facts"]["gpu.sm"] == {"value": "9.0", "origin": "cli"}
    assert dep["facts"]["model.quantization"]["value"] == "nvfp4"
    assert dep["facts"]["model.quantization"]["origin"] == "inferred"


def test_no_arguments_prints_help() -> None:
    _, out = run()
    assert "Usage" in out
