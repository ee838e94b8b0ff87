"""Records' published/modified dates come from their git history (relialint.kb.record_dates)."""

from __future__ import annotations

import datetime
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from relialint.kb import record_dates
from tests.conftest import ROOT

RECORDS = ROOT / "records"
TODAY = datetime.date(2026, 12, 24)


def _in_checkout() -> bool:
    if shutil.which("git") is None:
        return False
    proc = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--is-inside-work-tree"], capture_output=True,
                          text=True, check=False)
    return proc.returncode == 0 and proc.stdout.strip() == "true"


@pytest.mark.skipif(not _in_checkout(), reason="not a git checkout (record dates come from its history)")
def test_every_record_date_is_its_history() -> None:
    problems = [str(s) for s in record_dates.stale(RECORDS)]
    assert problems == [], "run `python -m relialint.kb.record_dates`:\n" + "\n".join(problems)


def _git(repo: Path, *args: str, date: str | None = None) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org"}
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"{date}T12:00:00+00:00"
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


RECORD = """id: RL199
slug: a-test-record
published: 2000-01-01
modified: 2000-01-01
summary: first words
"""


@pytest.mark.skipif(shutil.which("git") is None, reason="no git")
def test_dates_follow_content_changes_not_date_edits_or_renames(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    records = repo / "records"
    records.mkdir(parents=True)
    _git(repo, "init", "-q")
    first = records / "RL199-a-test-record.yaml"
    first.write_text(RECORD, encoding="utf-8")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "add", date="2026-01-02")
    first.write_text(RECORD.replace("first words", "second words"), encoding="utf-8")
    _git(repo, "commit", "-q", "-am", "edit", date="2026-02-03")
    # A commit that only sets the date lines, and a rename, are not modifications.
    first.write_text(RECORD.replace("first words", "second words").replace("2000-01-01", "2026-02-03"),
                     encoding="utf-8")
    _git(repo, "commit", "-q", "-am", "dates", date="2026-03-04")
    _git(repo, "mv", "records/RL199-a-test-record.yaml", "records/RL199-renamed.yaml")
    _git(repo, "commit", "-q", "-m", "rename", date="2026-04-05")
    moved = records / "RL199-renamed.yaml"
    root = record_dates.repo_root(records)

    assert record_dates.history(moved, root, TODAY) == record_dates.Dates(datetime.date(2026, 1, 2),
                                                                          datetime.date(2026, 2, 3))
    stale = record_dates.stale(records, TODAY)
    assert [str(s) for s in stale] == [
        f"{moved}: published 2026-01-02, modified 2026-02-03 by its history; "
        "the file says modified 2026-02-03, published 2026-02-03"]

    # An uncommitted change is a modification today; a new file is published today.
    moved.write_text(moved.read_text(encoding="utf-8").replace("second", "third"), encoding="utf-8")
    (records / "RL198-new.yaml").write_text(RECORD.replace("RL199", "RL198"), encoding="utf-8")
    assert record_dates.history(moved, root, TODAY) == record_dates.Dates(datetime.date(2026, 1, 2), TODAY)
    assert record_dates.history(records / "RL198-new.yaml", root, TODAY) == record_dates.Dates(TODAY, TODAY)


@pytest.mark.skipif(shutil.which("git") is None, reason="no git")
def test_the_tool_writes_only_the_date_lines_and_check_then_passes(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    repo = tmp_path / "repo"
    records = repo / "records"
    records.mkdir(parents=True)
    _git(repo, "init", "-q")
    path = records / "RL199-a-test-record.yaml"
    path.write_text(RECORD, encoding="utf-8")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "add", date="2026-05-06")
    assert record_dates.main(["--records", str(records), "--check"]) == 1
    assert "stale: " in capsys.readouterr().err
    assert record_dates.main(["--records", str(records)]) == 0
    assert path.read_text(encoding="utf-8") == RECORD.replace("2000-01-01", "2026-05-06")
    assert record_dates.main(["--records", str(records), "--check"]) == 0


@pytest.mark.skipif(shutil.which("git") is None, reason="no git")
def test_a_shallow_clone_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    origin = tmp_path / "origin"
    (origin / "records").mkdir(parents=True)
    _git(origin, "init", "-q")
    (origin / "records" / "RL199-a.yaml").write_text(RECORD, encoding="utf-8")
    _git(origin, "add", ".")
    _git(origin, "commit", "-q", "-m", "one", date="2026-01-01")
    (origin / "records" / "RL199-a.yaml").write_text(RECORD + "x: 1\n", encoding="utf-8")
    _git(origin, "commit", "-q", "-am", "two", date="2026-01-02")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{origin}", str(clone)], check=True,
                   capture_output=True)
    assert record_dates.main(["--records", str(clone / "records"), "--check"]) == 2
    assert "shallow clone" in capsys.readouterr().err
