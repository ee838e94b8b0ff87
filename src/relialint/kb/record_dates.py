"""Records' ``published`` and ``modified`` dates, read from their git history rather than typed by hand.

``published`` is the author date of the commit that added the record file; ``modified`` is the author date of
the last commit that changed anything in it other than these two date lines (a rename alone changes nothing).
A record whose file has uncommitted changes, or is not committed yet, is modified today. Files are followed
across renames (``git log --follow``), so the history must be whole: a shallow clone is refused.

``python -m relialint.kb.record_dates`` writes the dates into the record files (only those two lines change);
``--check`` writes nothing and exits 1 when a file's dates differ from its history. ``tests/test_record_dates.py``
runs the check, so a record edited without its date fails the suite.
"""

from __future__ import annotations

import argparse
import datetime
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from relialint.base.errors import RelialintError

DATE_LINE = re.compile(r"^(published|modified):[ \t]*(\S*)[ \t]*$", re.MULTILINE)
_COMMIT_MARK = "\x1e@@commit "


class DatesError(RelialintError):
    """The history cannot be read: no git, not a checkout, or a shallow clone."""


@dataclass(frozen=True)
class Dates:
    published: datetime.date
    modified: datetime.date


def _git(root: Path, *args: str) -> str:
    try:
        proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=False)
    except OSError as exc:
        raise DatesError(f"git is not available: {exc}") from exc
    if proc.returncode != 0:
        raise DatesError(f"git {' '.join(args[:2])} failed in {root}: {proc.stderr.strip()}")
    return proc.stdout


def repo_root(path: Path) -> Path:
    """The work tree holding ``path``; a shallow clone is an error (a record's first commit may be missing)."""
    folder = path if path.is_dir() else path.parent
    root = Path(_git(folder, "rev-parse", "--show-toplevel").strip())
    if _git(root, "rev-parse", "--is-shallow-repository").strip() == "true":
        raise DatesError(f"{root} is a shallow clone: record dates need the whole history (git fetch --unshallow)")
    return root


def _content_changed(diff_lines: Sequence[str]) -> bool:
    """Whether a unified diff changes a line other than the ``published:``/``modified:`` lines."""
    for line in diff_lines:
        if line.startswith(("+++ ", "--- ")) or not line.startswith(("+", "-")):
            continue
        if not DATE_LINE.match(line[1:]):
            return True
    return False


def history(path: Path, root: Path, today: datetime.date | None = None) -> Dates:
    """The dates of one record file from the history of ``root`` (and its working copy)."""
    today = today or datetime.date.today()
    rel = path.resolve().relative_to(root.resolve()).as_posix()
    log = _git(root, "log", "--follow", "-M", "-p", "-U0", "--no-color", "--no-ext-diff",
               f"--format={_COMMIT_MARK}%as", "--", rel)
    commits: list[tuple[datetime.date, bool]] = []
    for chunk in log.split(_COMMIT_MARK)[1:]:
        head, _, body = chunk.partition("\n")
        commits.append((datetime.date.fromisoformat(head.strip()), _content_changed(body.splitlines())))
    if not commits:  # not committed yet
        return Dates(today, today)
    published = commits[-1][0]
    modified = next((d for d, changed in commits if changed), published)
    working = _git(root, "diff", "HEAD", "-U0", "--no-color", "--no-ext-diff", "--", rel)
    if _content_changed(working.splitlines()):
        modified = today
    return Dates(published, modified)


def written(text: str) -> dict[str, str]:
    """The ``published``/``modified`` values as written in a record file."""
    return {m.group(1): m.group(2) for m in DATE_LINE.finditer(text)}


def with_dates(text: str, dates: Dates) -> str:
    """The record text with its two date lines set to ``dates`` (nothing else changes)."""
    values = {"published": dates.published.isoformat(), "modified": dates.modified.isoformat()}
    return DATE_LINE.sub(lambda m: f"{m.group(1)}: {values[m.group(1)]}", text)


@dataclass(frozen=True)
class Stale:
    path: Path
    wanted: Dates
    found: dict[str, str]

    def __str__(self) -> str:
        found = ", ".join(f"{k} {v}" for k, v in sorted(self.found.items()))
        return (f"{self.path}: published {self.wanted.published}, modified {self.wanted.modified} by its history; "
                f"the file says {found or 'nothing'}")


def stale(records_dir: Path, today: datetime.date | None = None) -> list[Stale]:
    """Record files whose written dates differ from their history."""
    from relialint.kb.loader import record_files

    root = repo_root(records_dir)
    out: list[Stale] = []
    for path in record_files(records_dir):
        wanted = history(path, root, today)
        found = written(path.read_text(encoding="utf-8"))
        if found != {"published": wanted.published.isoformat(), "modified": wanted.modified.isoformat()}:
            out.append(Stale(path, wanted, found))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    from relialint.kb.loader import shipped_dir

    parser = argparse.ArgumentParser(prog="python -m relialint.kb.record_dates",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--records", type=Path, default=None, help="records folder (default: the shipped records)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a record's dates are stale")
    args = parser.parse_args(argv)
    records_dir: Path = args.records or shipped_dir()
    try:
        todo = stale(records_dir)
    except DatesError as exc:
        print(f"record dates: {exc}", file=sys.stderr)
        return 2
    for item in todo:
        if args.check:
            print(f"stale: {item}", file=sys.stderr)
        else:
            text = item.path.read_text(encoding="utf-8")
            item.path.write_text(with_dates(text, item.wanted), encoding="utf-8")
            print(f"wrote: {item.path}: published {item.wanted.published}, modified {item.wanted.modified}")
    if args.check and todo:
        print("run `python -m relialint.kb.record_dates` to set them", file=sys.stderr)
        return 1
    if not todo:
        print("up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
