"""The pre-commit hook, end to end: ``pre-commit try-repo`` against this repository in a throwaway git repository
fails on a blocker and passes once the fix is applied.

It installs relialint into pre-commit's own environment (from the package registry, like a user's machine), so it
is slow and marked; it runs in ``.ci/run`` with the rest of the suite.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.work import HANG_S

SCRIPT = (ROOT / "examples" / "serve-cmd.sh").read_text()
GIT = ["git", "-c", "user.email=test@example.invalid", "-c", "user.name=test", "-c", "commit.gpgsign=false"]


def _snapshot(dest: Path) -> Path:
    """This repository's files as they are now (committed or not, less what git ignores), committed in a fresh
    repository: pre-commit installs a hook repository from a commit."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file() and not source.is_symlink():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    subprocess.run(["git", "init", "-q", str(dest)], check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=dest, check=True)
    subprocess.run([*GIT, "commit", "-q", "-m", "snapshot"], cwd=dest, check=True)
    return dest


def _try_repo(project: Path, hooks_repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "NO_COLOR": "1"}
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(hooks_repo), "relialint",
                           "--all-files", "--color", "never"], cwd=project, env=env, capture_output=True,
                          text=True, timeout=HANG_S)


@pytest.mark.slow
def test_hook_fails_on_a_blocker_and_passes_after_the_fix(tmp_path: Path) -> None:
    pytest.importorskip("pre_commit")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    hooks_repo = _snapshot(tmp_path / "relialint")
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "serve.sh").write_text(SCRIPT)
    (project / ".relialint.toml").write_text('gpu = "RTX 4090"\nengine-version = "0.18.1"\n')
    (project / "README.md").write_text("not linted\n")
    subprocess.run([*GIT, "add", "-A"], cwd=project, check=True)
    subprocess.run([*GIT, "commit", "-q", "-m", "a deployment"], cwd=project, check=True)

    failed = _try_repo(project, hooks_repo, tmp_path / "pre-commit-home")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "relialint" in failed.stdout and "Failed" in failed.stdout
    assert "serve.sh:8:3: RL101 [blocker]" in failed.stdout

    (project / "serve.sh").write_text(SCRIPT.replace("--dtype bfloat16", "--dtype float16"))
    subprocess.run([*GIT, "commit", "-q", "-am", "the fix"], cwd=project, check=True)
    passed = _try_repo(project, hooks_repo, tmp_path / "pre-commit-home")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout
    assert "RL101 [blocker]" not in passed.stdout


def test_hook_manifest_covers_the_formats_relialint_reads() -> None:
    import re

    from ruamel.yaml import YAML

    hook, since = YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert (hook["id"], hook["entry"], hook["language"]) == ("relialint", "relialint check", "python")
    assert (since["id"], since["entry"], since["language"]) == ("relialint-since", "relialint check --since HEAD",
                                                                "python")
    assert since["files"] == hook["files"]
    files = re.compile(hook["files"])
    for name in ["deploy/serve.sh", "run.bash", "compose.yaml", "k8s/deploy.yml", ".env", "prod.env", ".env.prod",
                 "vllm.service", "llama.container", "Dockerfile", "docker/Dockerfile.cuda", "Containerfile",
                 "x.dockerfile"]:
        assert files.search(name), name
    for name in ["README.md", "main.py", "pyproject.toml"]:
        assert not files.search(name), name
