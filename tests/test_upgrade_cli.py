"""``relialint upgrade``: the shipped compose example moved between two vLLM releases (exact text, both ways, the
mirror image), the other formats, exit codes, usage errors, llama.cpp builds, ``--to latest``."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli_run import Result, invoke
from tests.conftest import FIXTURES, ROOT

GOLDEN = FIXTURES / "upgrade"


@pytest.fixture(autouse=True)
def _at_root() -> Iterator[None]:
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        yield
    finally:
        os.chdir(cwd)


def run(*args: str) -> Result:
    result = invoke(["upgrade", *args])
    assert result.exception is None
    return result


def test_the_example_moved_to_0_8_1_pins_the_exact_text() -> None:
    """v0.30.0 (the image tag) to 0.8.1, by the tables and records: RL507 enters (``--speculative-config`` is in
    vLLM's option table from 0.8.2 to 0.33.0), the option is refused, the V2 model runner default goes from true
    (0.29.0 on) to false (no V2 runner before 0.12.0); RL208 leaves (its range starts after 0.8.1)."""
    result = run("examples/compose.yaml", "--to", "0.8.1")
    assert result.stdout == (GOLDEN / "compose-0.30.0-to-0.8.1.txt").read_text(encoding="utf-8")
    assert result.exit_code == 1  # RL507 (major, definite) enters


def test_the_reverse_pins_the_exact_text() -> None:
    result = run("examples/compose.yaml", "--from", "0.8.1", "--to", "0.30.0")
    assert result.stdout == (GOLDEN / "compose-0.8.1-to-0.30.0.txt").read_text(encoding="utf-8")
    assert result.exit_code == 1  # RL208 (major, definite) enters


def _items(*args: str) -> list[tuple[object, ...]]:
    doc = json.loads(run("examples/compose.yaml", "--format", "json", "--show-possible", *args).stdout)
    return [(d["line"], i["kind"], i["change"], i["subject"], i["certainty"], i["path"], i["line"], i["column"])
            for d in doc["deployments"] for i in d["items"]]


MIRROR = {"entered": "left", "left": "entered", "kept": "kept", "refused": "accepted", "accepted": "refused",
          "unread": "read", "read": "unread", "changed": "changed"}


def test_the_reverse_upgrade_is_the_mirror_image() -> None:
    forward = _items("--to", "0.8.1")
    reverse = _items("--from", "0.8.1", "--to", "0.30.0")
    mirrored = sorted((d, kind, MIRROR[change], *rest) for d, kind, change, *rest in forward)
    assert mirrored == sorted(reverse)
    # and what the acceptance asks for, each in its place
    assert (9, "record", "entered", "RL507", "definite", "examples/compose.yaml", 15, 7) in forward
    assert (9, "option", "refused", "--speculative-config", "definite", "examples/compose.yaml", 15, 7) in forward
    assert (9, "default", "changed", "engine.v2_model_runner", "definite", "examples/compose.yaml", 9, 3) in forward


def test_json_document() -> None:
    doc = json.loads(run("examples/compose.yaml", "--to", "0.8.1", "--format", "json").stdout)
    first = doc["deployments"][0]
    assert (first["path"], first["line"], first["column"], first["engine"]) == ("examples/compose.yaml", 9, 3, "vllm")
    assert first["from"] == {"version": "0.30.0", "origin": "file", "path": "examples/compose.yaml", "line": 9,
                             "column": 3}
    assert first["to"] == {"version": "0.8.1", "origin": "--to", "path": "examples/compose.yaml", "line": 9,
                           "column": 3}
    assert first["release"] == {"checked": True, "unchecked": None, "worlds": None}
    refused = [i for i in first["items"] if i["kind"] == "option"]
    assert refused == [{
        "kind": "option", "change": "refused", "subject": "--speculative-config", "certainty": "definite",
        "severity": "blocker", "path": "examples/compose.yaml", "line": 15, "column": 7, "end_line": 15,
        "end_column": 27, "message": "accepted by vLLM 0.30.0, refused by vLLM 0.8.1: the engine will not start",
        "missing_facts": [], "introduces": False, "failing": False, "shown": True}]
    entered = next(i for i in first["items"] if i["subject"] == "RL507")
    assert (entered["introduces"], entered["failing"]) == (True, True)
    # check's document, extended: every finding of a record involved, with its change
    rl507 = [f for f in doc["findings"] if f["code"] == "RL507"]
    assert [(f["line"], f["column"], f["certainty"], f["change"], f["change_certainty"]) for f in rl507] == [
        (15, 7, "definite", "entered", "definite")]
    assert [(f["code"], f["change"]) for f in doc["findings"] if f["line"] == 15] == [
        ("RL113", "left"), ("RL208", "left"), ("RL221", "left"), ("RL507", "entered")]
    # RL606 (request prompts logged up to 0.10.0) enters on both services, RL322 (no hub cache volume) is kept
    assert doc["summary"] == {"files": 1, "deployments": 2, "definite": 10, "possible": 13, "possible_counted": 5,
                              "errors": 0, "entered": 8, "left": 9, "kept": 6, "options": 1, "variables": 0,
                              "defaults": 12, "failing": 3}


def test_sarif_and_github_list_what_the_upgrade_brings() -> None:
    sarif = json.loads(run("examples/compose.yaml", "--to", "0.8.1", "--format", "sarif").stdout)
    results = [(r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
               for r in sarif["runs"][0]["results"]]
    assert ("RL507", "warning", 15) in results
    assert ("upgrade/option-refused", "error", 15) in results
    assert ("upgrade/default-changed", "note", 9) in results
    assert not any(rule == "RL208" for rule, _, _ in results)  # it leaves: no alert
    github = run("examples/compose.yaml", "--to", "0.8.1", "--format", "github").stdout.splitlines()
    assert ("::error file=examples/compose.yaml,line=15,col=7,endLine=15,endColumn=27,title=upgrade/option-refused "
            "[blocker] --speculative-config::accepted by vLLM 0.30.0, refused by vLLM 0.8.1: the engine will not start"
            ) in github
    assert any(line.startswith("::warning file=examples/compose.yaml,line=15,col=7,endLine=15,endColumn=27,title=RL507 "
                               "[major] entered with the upgrade%3A ") for line in github)
    assert github[-1].startswith("relialint upgrade: 1 file, 2 deployments, ")


def test_fail_on_sets_the_exit_code() -> None:
    assert run("examples/compose.yaml", "--to", "0.8.1", "--fail-on", "blocker").exit_code == 0
    assert run("examples/compose.yaml", "--to", "0.8.1", "--fail-on", "never").exit_code == 0
    assert run("examples/compose.yaml", "--to", "0.30.0").exit_code == 0  # no change: nothing introduced


def test_usage_errors_exit_2() -> None:
    result = run("examples/compose.yaml", "--to", "not-a-version")
    assert result.exit_code == 2
    assert result.stderr.endswith("relialint: error: --to not-a-version: not a version of vLLM, llama.cpp, SGLang\n")
    assert run("examples/compose.yaml").exit_code == 2  # --to is required
    assert run("examples/compose.yaml", "--to", "0.23.0", "--from", "latest").exit_code == 2
    assert run("no/such/file.yaml", "--to", "0.23.0").exit_code == 2


def test_to_latest_is_the_newest_tabled_release() -> None:
    doc = json.loads(run("examples/compose.yaml", "--to", "latest", "--format", "json").stdout)
    assert [d["to"]["version"] for d in doc["deployments"]] == ["0.33.0", "0.33.0"]


def test_a_version_outside_the_tables_is_not_checked_but_judged(tmp_path: Path) -> None:
    doc = json.loads(run("examples/compose.yaml", "--to", "0.40.0", "--format", "json").stdout)
    first = doc["deployments"][0]
    assert first["release"] == {"checked": False, "unchecked": "vLLM 0.40.0 is outside relialint's option tables "
                                                               "(0.6.6.post1-0.33.0)", "worlds": None}
    assert [i for i in first["items"] if i["kind"] != "record"] == []  # not checked, never "no change"
    assert first["notes"] == ["options, variables and defaults not checked: vLLM 0.40.0 is outside relialint's "
                              "option tables (0.6.6.post1-0.33.0)"]


def test_llama_cpp_builds_through_their_tables(tmp_path: Path) -> None:
    compose = tmp_path / "compose.yaml"
    compose.write_text("services:\n  llama:\n    image: ghcr.io/ggml-org/llama.cpp:server-b4579\n"
                       "    command: [\"-m\", \"/models/m.gguf\", \"--no-context-shift\"]\n", encoding="utf-8")
    doc = json.loads(run(str(compose), "--to", "b11312", "--format", "json", "--isolated").stdout)
    [deployment] = doc["deployments"]
    assert (deployment["engine"], deployment["from"]["version"], deployment["to"]["version"]) == (
        "llama.cpp", "b4579", "b11312")
    assert deployment["release"] == {"checked": True, "unchecked": None, "worlds": None}


def test_a_version_of_another_engine_leaves_a_deployment_as_it_is(tmp_path: Path) -> None:
    compose = tmp_path / "compose.yaml"
    compose.write_text('services:\n  vllm:\n    image: vllm/vllm-openai:v0.21.0\n'
                       '    command: ["Qwen/Qwen3-8B", "--max-model-len", "8192"]\n'
                       '  llama:\n    image: ghcr.io/ggml-org/llama.cpp:server-b4579\n'
                       '    command: ["-m", "/models/m.gguf", "--no-mmap"]\n', encoding="utf-8")
    doc = json.loads(run(str(compose), "--to", "b11312", "--format", "json", "--isolated").stdout)
    vllm, llama = doc["deployments"]
    assert (vllm["engine"], vllm["to"]["version"], vllm["items"]) == ("vllm", None, [])
    assert vllm["notes"] == ["b11312 is not a vLLM version: this deployment is not upgraded"]
    assert [(i["kind"], i["change"], i["subject"], i["line"], i["column"]) for i in llama["items"]] == [
        ("record", "entered", "RL339", 7, 15),  # no --ctx-size: --fit sizes the context from b8502
        ("record", "entered", "RL520", 7, 39), ("record", "left", "RL346", 6, 12),  # one default slot up to b6111
        ("record", "left", "RL141", 7, 15),  # context shift drops the system prompt up to b6111
        ("record", "left", "RL335", 7, 15),  # fixed 4096 default context on b4094-b8501
        ("record", "kept", "RL245", 6, 12), ("record", "kept", "RL519", 6, 12),  # possible: CPU quota, build options
        ("option", "refused", "--no-mmap", 7, 39)]
    latest = json.loads(run(str(compose), "--to", "latest", "--format", "json", "--isolated").stdout)
    assert [d["to"]["version"] for d in latest["deployments"]] == ["0.33.0", "b11312"]
    defaults = [(i["subject"], i["certainty"], i["message"]) for i in latest["deployments"][0]["items"]
                if i["kind"] == "default"]
    assert defaults == [("engine.v2_model_runner", "definite", "false in vLLM 0.21.0, true in vLLM 0.33.0; to keep "
                                                               "false, set it with `VLLM_USE_V2_MODEL_RUNNER`")]


def test_configuration_fail_on_applies_to_the_upgrade(tmp_path: Path) -> None:
    (tmp_path / "serve.sh").write_text("vllm serve Qwen/Qwen3-8B --swap-space 4\n", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.relialint]\nfail-on = "never"\n', encoding="utf-8")
    args = (str(tmp_path / "serve.sh"), "--from", "0.17.1", "--to", "0.18.0", "--format", "json")
    isolated = run(*args, "--isolated")  # --swap-space: tabled up to 0.17.1
    assert isolated.exit_code == 1
    items = json.loads(isolated.stdout)["deployments"][0]["items"]
    assert [(i["kind"], i["change"], i["subject"], i["column"]) for i in items if i["column"] == 26] == [
        ("record", "entered", "RL507", 26), ("record", "left", "RL542", 26), ("option", "refused", "--swap-space", 26)]
    assert run(*args).exit_code == 0


def test_strict_counts_the_possible_findings_the_upgrade_brings() -> None:
    # RL122 enters possibly (the GPU decides) and is listed: only --strict makes it fail, as in check
    assert run("examples/compose.yaml", "--to", "0.8.1", "--select", "RL122").exit_code == 0
    assert run("examples/compose.yaml", "--to", "0.8.1", "--select", "RL122", "--strict").exit_code == 1
    # RL215 enters possibly on the embedding service and is not listed: --strict alone leaves it out
    assert run("examples/compose.yaml", "--to", "0.8.1", "--select", "RL215", "--strict").exit_code == 0
    assert run("examples/compose.yaml", "--to", "0.8.1", "--select", "RL215", "--strict",
               "--show-possible").exit_code == 1
