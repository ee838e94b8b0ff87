"""``relialint check --since REF`` on scratch git repositories made in ``tmp_path``: which files are linted, what a
commit that moves no version reports (byte for byte what ``check`` reports on the changed files), the errors."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli_run import invoke
from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

GIT = ["git", "-c", "user.email=test@example.invalid", "-c", "user.name=test", "-c", "commit.gpgsign=false",
       "-c", "init.defaultBranch=main"]
COMPOSE = (ROOT / "examples" / "compose.yaml").read_text(encoding="utf-8")
SERVE = (ROOT / "examples" / "serve-cmd.sh").read_text(encoding="utf-8")


def git(repo: Path, *args: str) -> str:
    return subprocess.run([*GIT, *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A repository with the shipped compose example (and its .env) and serve script, committed once; the working
    directory is its root."""
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q")
    (root / "deploy").mkdir()
    (root / "deploy" / "compose.yaml").write_text(COMPOSE, encoding="utf-8")
    (root / "deploy" / ".env").write_text("KV_DTYPE=fp8\n", encoding="utf-8")
    (root / "serve.sh").write_text(SERVE, encoding="utf-8")
    (root / "README.md").write_text("not linted\n", encoding="utf-8")
    commit_all(root, "first")
    monkeypatch.chdir(root)
    monkeypatch.setenv("NO_COLOR", "1")
    yield root


def test_a_commit_that_moves_no_version_reports_exactly_what_check_reports(repo: Path) -> None:
    (repo / "serve.sh").write_text(SERVE + "# reviewed\n", encoding="utf-8")
    commit_all(repo, "edit the script")
    for fmt in ("text", "json", "sarif", "github"):
        since = invoke(["check", "--since", "HEAD~1", "--format", fmt])
        check = invoke(["check", "serve.sh", "--format", fmt])
        assert since.exception is None
        assert (since.exit_code, since.stdout, since.stderr) == (check.exit_code, check.stdout, check.stderr)
    assert "serve.sh:" in invoke(["check", "--since", "HEAD~1"]).stdout


def test_only_changed_files_are_linted_staged_unstaged_and_untracked(repo: Path) -> None:
    assert invoke(["check", "--since", "HEAD"]).stdout.splitlines()[-1].startswith("0 files, 0 deployments")
    (repo / "serve.sh").write_text(SERVE + "\n", encoding="utf-8")  # unstaged
    (repo / "new.sh").write_text("vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp8\n", encoding="utf-8")  # untracked
    (repo / "notes.md").write_text("no\n", encoding="utf-8")  # changed but nothing relialint reads
    (repo / ".gitignore").write_text("ignored.sh\n", encoding="utf-8")
    (repo / "ignored.sh").write_text("vllm serve x\n", encoding="utf-8")
    result = invoke(["check", "--since", "HEAD", "--format", "json"])
    import json

    document = json.loads(result.stdout)
    assert document["summary"]["files"] == 2
    assert sorted({f["path"] for f in document["findings"]}) == ["new.sh", "serve.sh"]
    # named paths narrow it: only what changed under them
    narrowed = json.loads(invoke(["check", "--since", "HEAD", "new.sh", "deploy", "--format", "json"]).stdout)
    assert narrowed["summary"]["files"] == 1


def test_a_changed_env_file_brings_in_the_compose_file_that_reads_it(repo: Path) -> None:
    (repo / "deploy" / ".env").write_text("KV_DTYPE=auto\n", encoding="utf-8")
    since = invoke(["check", "--since", "HEAD", "--format", "json"])
    check = invoke(["check", "deploy/compose.yaml", "--format", "json"])
    assert since.stdout == check.stdout
    assert '"deploy/compose.yaml"' in since.stdout


def test_the_base_is_where_the_branch_forked_from_the_ref(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "serve.sh").write_text(SERVE + "\n", encoding="utf-8")
    commit_all(repo, "feature edit")
    git(repo, "checkout", "-q", "main")
    (repo / "deploy" / "compose.yaml").write_text(COMPOSE + "\n", encoding="utf-8")
    commit_all(repo, "main moves on")
    git(repo, "checkout", "-q", "feature")
    import json

    document = json.loads(invoke(["check", "--since", "main", "--format", "json"]).stdout)
    assert document["summary"]["files"] == 1  # serve.sh only: main's own change is not the branch's
    assert {f["path"] for f in document["findings"]} == {"serve.sh"}


def test_a_ref_that_does_not_exist_is_a_usage_error(repo: Path) -> None:
    result = invoke(["check", "--since", "no-such-branch"])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (f"relialint: error: --since no-such-branch: no such revision in the repository at "
                             f"{os.path.realpath(repo)} (fetched? a CI checkout needs the base branch: "
                             "fetch-depth: 0)\n")


def test_an_option_as_ref_is_refused(repo: Path) -> None:
    result = invoke(["check", "--since=--output=x", "serve.sh"])
    assert result.exit_code == 2
    assert result.stderr == "relialint: error: --since takes a git revision (a branch, a tag, a commit), not " \
                            "'--output=x'\n"
    assert not (repo / "x").exists()


def test_a_path_outside_a_repository_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outside = tmp_path / "plain"
    outside.mkdir()
    (outside / "serve.sh").write_text(SERVE, encoding="utf-8")
    monkeypatch.chdir(outside)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    result = invoke(["check", "--since", "HEAD", "serve.sh"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "relialint: error: --since: serve.sh is not inside a git repository (git rev-parse " \
                            "--show-toplevel found none)\n"


def test_no_git_is_a_usage_error(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(repo / "no-bin-here"))
    result = invoke(["check", "--since", "HEAD"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "relialint: error: --since reads the git repository, but git is not installed (not " \
                            "found on PATH)\n"


def test_since_does_not_read_standard_input(repo: Path) -> None:
    result = invoke(["check", "--since", "HEAD", "-", "--stdin-filename", "x.sh"], input="vllm serve x\n")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == "relialint: error: --since reads the files from the git repository; " \
                                             "it does not take `-`"


def test_paths_are_still_required_without_since(repo: Path) -> None:
    result = invoke(["check"])
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == "relialint: error: the following arguments are required: PATHS"


UPGRADE = """services:
  llm:
    image: vllm/vllm-openai:v0.14.1
    command: ["Qwen/Qwen3-8B", "--max-model-len", "8192"]
    environment:
      VLLM_ATTENTION_BACKEND: FLASHINFER
"""


def _upgrades(document: dict[str, object]) -> list[tuple[object, ...]]:
    items = document.get("upgrades")
    assert isinstance(items, list)
    return [(c["path"], c["line"], c["column"], c["end_column"], c["from"], c["to"], c["since"], c["kind"],
             c["change"], c["subject"], c["certainty"],
             (c["at"]["line"], c["at"]["column"]) if "at" in c else None) for c in items]


def test_a_commit_that_bumps_an_image_tag_reports_the_delta_on_that_line(repo: Path) -> None:
    import json

    (repo / "llm.yaml").write_text(UPGRADE, encoding="utf-8")
    commit_all(repo, "vLLM 0.14.1")
    (repo / "llm.yaml").write_text(UPGRADE.replace("v0.14.1", "v0.15.0"), encoding="utf-8")
    commit_all(repo, "bump vLLM")
    result = invoke(["check", "--since", "HEAD~1", "--format", "json"])
    assert result.exit_code == 1  # RL504 (a variable 0.15.0 no longer reads) is a definite major finding
    move = ("llm.yaml", 3, 12, 36, "0.14.1", "0.15.0", "HEAD~1")
    assert _upgrades(json.loads(result.stdout)) == [
        (*move, "version", "moved", "0.15.0", "definite", None),
        (*move, "record", "entered", "RL117", "possible", (4, 15)),
        (*move, "record", "entered", "RL504", "definite", (6, 7)),
        (*move, "env", "unread", "VLLM_ATTENTION_BACKEND", "definite", (6, 7)),
    ]
    text = invoke(["check", "--since", "HEAD~1"]).stdout.splitlines()
    # RL322 (Qwen/Qwen3-8B from the hub with no cache volume) is a third definite finding, on both versions
    assert text[-1] == "1 file, 1 deployment: 3 definite, 1 possible, 0 errors, 1 engine version move"
    assert [line for line in text if line.startswith("llm.yaml:3:12: upgrade")][:1] == [
        "llm.yaml:3:12: upgrade vLLM 0.14.1 -> 0.15.0 since HEAD~1 [version moved] 3 changes for the deployment at "
        "llm.yaml:3:12"]
    sarif = json.loads(invoke(["check", "--since", "HEAD~1", "--format", "sarif"]).stdout)["runs"][0]
    moved = [r for r in sarif["results"] if r["ruleId"] == "upgrade"]
    assert [(r["level"], r["properties"]["item"], r["properties"]["change"],
             r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in moved] == [
        ("note", "version", "moved", 3), ("note", "record", "entered", 3), ("warning", "record", "entered", 3),
        ("warning", "env", "unread", 3)]
    assert sarif["tool"]["driver"]["rules"][moved[0]["ruleIndex"]]["id"] == "upgrade"
    github = invoke(["check", "--since", "HEAD~1", "--format", "github"]).stdout.splitlines()
    assert sum(1 for line in github if line.startswith("::") and "title=upgrade vLLM 0.14.1 -> 0.15.0 since HEAD~1"
               in line and "file=llm.yaml,line=3,col=12," in line) == 4


def test_the_reverse_move_reports_the_mirror_image(repo: Path) -> None:
    import json

    (repo / "llm.yaml").write_text(UPGRADE.replace("v0.14.1", "v0.15.0"), encoding="utf-8")
    commit_all(repo, "vLLM 0.15.0")
    (repo / "llm.yaml").write_text(UPGRADE, encoding="utf-8")
    move = ("llm.yaml", 3, 12, 36, "0.15.0", "0.14.1", "HEAD")
    assert _upgrades(json.loads(invoke(["check", "--since", "HEAD", "--format", "json"]).stdout)) == [
        (*move, "version", "moved", "0.14.1", "definite", None),
        (*move, "record", "left", "RL117", "possible", (4, 15)),
        (*move, "record", "left", "RL504", "definite", (6, 7)),
        (*move, "env", "read", "VLLM_ATTENTION_BACKEND", "definite", (6, 7)),
    ]


def test_a_version_pinned_only_now_says_the_delta_is_not_known(repo: Path) -> None:
    import json

    (repo / "llm.yaml").write_text(UPGRADE.replace("v0.14.1", "latest"), encoding="utf-8")
    commit_all(repo, "the latest image")
    (repo / "llm.yaml").write_text(UPGRADE, encoding="utf-8")
    [item] = json.loads(invoke(["check", "--since", "HEAD", "--format", "json"]).stdout)["upgrades"]
    assert (item["from"], item["to"], item["kind"], item["line"]) == ("unknown", "0.14.1", "version", 3)
    assert item["message"] == ("the deployment at llm.yaml:3:12: the file did not pin the engine version at HEAD, so "
                               "what the move changes is not known; `relialint upgrade llm.yaml --from VERSION --to "
                               "0.14.1` says it for a version you name")


def test_a_version_from_a_changed_env_file_is_a_move_of_the_compose_file(repo: Path) -> None:
    import json

    (repo / "llm.yaml").write_text(UPGRADE.replace("v0.14.1", "${TAG}"), encoding="utf-8")
    (repo / ".env").write_text("TAG=v0.14.1\n", encoding="utf-8")
    commit_all(repo, "tag in .env")
    (repo / ".env").write_text("TAG=v0.15.0\n", encoding="utf-8")
    document = json.loads(invoke(["check", "--since", "HEAD", "--format", "json"]).stdout)
    assert {f["path"] for f in document["findings"]} == {"llm.yaml"}
    heads = [(c["path"], c["line"], c["from"], c["to"]) for c in document["upgrades"] if c["kind"] == "version"]
    assert heads == [(".env", 1, "0.14.1", "0.15.0")]


def test_the_since_hook_reports_the_delta_of_a_staged_tag_bump(repo: Path) -> None:
    """The ``relialint-since`` hook as pre-commit runs it: its entry, then the staged files it matches."""
    import re
    import shlex

    from ruamel.yaml import YAML

    hooks = YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    [hook] = [h for h in hooks if h["id"] == "relialint-since"]
    (repo / "llm.yaml").write_text(UPGRADE, encoding="utf-8")
    commit_all(repo, "vLLM 0.14.1")
    (repo / "llm.yaml").write_text(UPGRADE.replace("v0.14.1", "v0.15.0"), encoding="utf-8")
    git(repo, "add", "llm.yaml")
    staged = [n for n in git(repo, "diff", "--cached", "--name-only").split() if re.search(hook["files"], n)]
    assert staged == ["llm.yaml"]
    result = invoke([*shlex.split(hook["entry"])[1:], *staged])
    assert result.exit_code == 1
    assert "llm.yaml:3:12: upgrade vLLM 0.14.1 -> 0.15.0 since HEAD [env unread] `VLLM_ATTENTION_BACKEND`: read " \
           "by vLLM 0.14.1, not by vLLM 0.15.0" in result.stdout


def test_only_a_changed_file_others_may_read_makes_the_files_beside_it_read(repo: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Work counted: a changed README reads no other file to find who uses it; a changed .env reads each file the
    walk found that did not change itself (here the compose file), once."""
    from relialint.run import since

    real = since._reads_changed
    calls: list[str] = []

    def counted(path: Path, display: str, kind: str, changed: set[str]) -> bool:
        calls.append(display)
        return real(path, display, kind, changed)

    monkeypatch.setattr(since, "_reads_changed", counted)
    (repo / "README.md").write_text("changed\n", encoding="utf-8")
    (repo / "serve.sh").write_text(SERVE + "\n", encoding="utf-8")
    assert since.selected(["."], since.changed_repositories("HEAD", ["."])) == ["serve.sh"]
    assert calls == []
    (repo / "deploy" / ".env").write_text("KV_DTYPE=auto\n", encoding="utf-8")
    assert since.selected(["."], since.changed_repositories("HEAD", ["."])) == ["serve.sh", "deploy/compose.yaml"]
    assert calls == ["deploy/compose.yaml"]


@pytest.mark.parametrize("name", ["a b.sh", "ünïcode.sh", "line\nbreak.sh", "-dash.sh", "*glob?[x].sh", ":(top)x.sh"])
def test_file_names_git_would_quote_or_read_as_patterns_are_found_as_named(repo: Path, name: str) -> None:
    import json

    (repo / name).write_text("vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp8\n", encoding="utf-8")
    (repo / "other.sh").write_text("vllm serve Qwen/Qwen3-8B\n", encoding="utf-8")
    commit_all(repo, "two scripts")
    (repo / name).write_text("vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp8 --max-model-len 4096\n",
                             encoding="utf-8")
    named = f"./{name}"  # (a name that starts with `-` is an option to check's own parser otherwise)
    narrowed = json.loads(invoke(["check", "--since", "HEAD", "--format", "json", named, "other.sh"]).stdout)
    assert narrowed["summary"]["files"] == 1
    assert {f["path"] for f in narrowed["findings"]} == {named}
    walked = json.loads(invoke(["check", "--since", "HEAD", "--format", "json"]).stdout)
    assert walked["summary"]["files"] == 1


def test_a_renamed_file_is_compared_with_its_old_name(repo: Path) -> None:
    import json

    (repo / "llm.yaml").write_text(UPGRADE, encoding="utf-8")
    commit_all(repo, "vLLM 0.14.1")
    git(repo, "mv", "llm.yaml", "serving.yaml")
    (repo / "serving.yaml").write_text(UPGRADE.replace("v0.14.1", "v0.15.0"), encoding="utf-8")
    document = json.loads(invoke(["check", "--since", "HEAD", "--format", "json"]).stdout)
    heads = [(c["path"], c["line"], c["from"], c["to"]) for c in document["upgrades"] if c["kind"] == "version"]
    assert heads == [("serving.yaml", 3, "0.14.1", "0.15.0")]
