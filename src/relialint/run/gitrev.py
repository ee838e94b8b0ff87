"""Reading a git repository for ``check --since REF``: which files changed since a revision, and their text there.

``git`` runs as a subprocess that only reads the repository (``rev-parse``, ``merge-base``, ``diff``, ``ls-files``,
``cat-file``); nothing it reads is executed. Each call runs with the repository's file-system monitor off
(``core.fsmonitor`` names a program git would start), no external diff or text conversion, no pager, no prompt, and
no lazy fetch of a missing object (``GIT_NO_LAZY_FETCH``: a partial clone never goes to the network). Every failure
is a :class:`GitError` (a usage error: exit 2, one line), never a traceback.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from relialint.base.errors import UsageError
from relialint.readers.located import MAX_FILE_BYTES

GIT_TIMEOUT_S = 120
"""The longest one git call may take (a huge repository on a slow disk); past it, a usage error says so."""
_SAFE = ("-c", "core.fsmonitor=false", "-c", "core.quotepath=off", "-c", "diff.external=", "--no-pager")


class GitError(UsageError):
    """``--since`` cannot be used: no git, a path outside a repository, a revision that does not exist."""


class FileChange:
    """One file that differs from the base revision: ``path`` its absolute path in the working tree now;
    ``old`` its path at the base, relative to the repository root (``None``: it is new there, added or untracked)."""

    path: str
    old: str | None

    def __init__(self, path: str, old: str | None) -> None:
        self.path = path
        self.old = old


class Changes:
    """What changed in one repository since a revision: the repository root, the base commit the working tree is
    compared with (the merge base of ``REF`` and ``HEAD``, as ``git diff REF...`` takes it; ``REF`` itself where
    they share no history) and the changed files by absolute path."""

    root: Path
    ref: str
    base: str
    files: dict[str, FileChange]

    def __init__(self, root: Path, ref: str, base: str, files: dict[str, FileChange]) -> None:
        self.root = root
        self.ref = ref
        self.base = base
        self.files = files

    def old_text(self, path: str) -> bytes | None:
        """The bytes of the file at absolute ``path`` as it was at the base (``None``: no such file there, or larger
        than relialint reads)."""
        rel = self.relative(path)
        if rel is None:
            return None
        change = self.files.get(real_name(path))
        if change is not None:
            if change.old is None:
                return None
            rel = change.old
        return blob(self.root, self.base, rel)

    def relative(self, path: str) -> str | None:
        """``path`` relative to the repository root (POSIX), or ``None`` outside it."""
        try:
            return Path(real_name(path)).relative_to(self.root).as_posix()
        except ValueError:
            return None


def _git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_NO_LAZY_FETCH": "1", "GIT_OPTIONAL_LOCKS": "0",
           "LC_ALL": "C"}
    try:
        done = subprocess.run(["git", *_SAFE, *args], cwd=root, env=env, capture_output=True, stdin=subprocess.DEVNULL,
                              timeout=GIT_TIMEOUT_S, check=False)
    except FileNotFoundError:
        raise GitError("--since reads the git repository, but git is not installed (not found on PATH)") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"--since: git {args[0]} took longer than {GIT_TIMEOUT_S} s; stopped") from None
    except OSError as exc:
        raise GitError(f"--since: git could not be started: {exc.strerror or exc}") from None
    if check and done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"--since: git {args[0]} failed: {why[-1] if why else f'exit {done.returncode}'}")
    return done


def repository(path: str) -> Path:
    """The root of the git working tree that holds ``path`` (a file or a folder)."""
    here = Path(os.path.abspath(path))
    folder = here if here.is_dir() else here.parent
    if not folder.is_dir():
        raise GitError(f"--since: {path} does not exist")
    done = _git(folder, "rev-parse", "--show-toplevel", check=False)
    if done.returncode != 0:
        raise GitError(f"--since: {path} is not inside a git repository (git rev-parse --show-toplevel found none)")
    return Path(os.path.realpath(done.stdout.decode("utf-8", "surrogateescape").strip()))


def commit(root: Path, ref: str) -> str:
    """The commit ``ref`` names in the repository at ``root``."""
    if not ref or ref.startswith("-") or "\0" in ref:
        raise GitError(f"--since takes a git revision (a branch, a tag, a commit), not {ref!r}")
    done = _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
    if done.returncode != 0:
        raise GitError(f"--since {ref}: no such revision in the repository at {root} (fetched? a CI checkout "
                       "needs the base branch: fetch-depth: 0)")
    return done.stdout.decode("ascii", "replace").strip()


def base_commit(root: Path, ref: str) -> str:
    """The merge base of ``ref`` and ``HEAD`` (the fork point of a branch), or ``ref``'s commit where there is no
    ``HEAD`` yet or no shared history."""
    target = commit(root, ref)
    done = _git(root, "merge-base", target, "HEAD", check=False)
    found = done.stdout.decode("ascii", "replace").strip()
    return found if done.returncode == 0 and found else target


def _split(raw: bytes) -> list[str]:
    return [part.decode("utf-8", "surrogateescape") for part in raw.split(b"\0") if part]


def changes(root: Path, ref: str, paths: list[str]) -> Changes:
    """The files under ``paths`` that differ between the base of ``ref`` and the working tree (staged or not), and
    the untracked files git does not ignore (new since ``ref`` as the author sees them). Deleted files are left out:
    nothing of them is left to lint."""
    base = base_commit(root, ref)
    specs = [f":(top,literal){rel}" if rel != "." else ":(top)" for rel in _pathspecs(root, paths)]
    files: dict[str, FileChange] = {}
    diff = _split(_git(root, "diff", "--name-status", "-z", "-M", "--no-ext-diff",
                       "--no-textconv", base, "--", *specs).stdout)
    index = 0
    while index < len(diff):
        status = diff[index]
        if status[:1] in ("R", "C"):
            old, new = diff[index + 1], diff[index + 2]
            index += 3
        else:
            old = new = diff[index + 1]
            index += 2
        if status[:1] == "D":
            continue
        absolute = os.path.join(str(root), new)
        files[absolute] = FileChange(absolute, None if status[:1] == "A" else old)
    for new in _split(_git(root, "ls-files", "--others", "--exclude-standard", "-z", "--", *specs).stdout):
        absolute = os.path.join(str(root), new)
        files[absolute] = FileChange(absolute, None)
    return Changes(root, ref, base, files)


def _pathspecs(root: Path, paths: list[str]) -> list[str]:
    return [Path(os.path.relpath(real_name(path), root)).as_posix() for path in paths]


def real_name(path: str) -> str:
    """``path`` absolute with its folders' symlinks resolved but not its last name (a symlinked file is the entry
    git tracks, not its target)."""
    absolute = os.path.abspath(path)
    return os.path.join(os.path.realpath(os.path.dirname(absolute)), os.path.basename(absolute)) \
        if os.path.basename(absolute) else os.path.realpath(absolute)


def blob(root: Path, base: str, rel: str) -> bytes | None:
    """The bytes of ``rel`` (relative to the root) at commit ``base``; ``None`` where it is not a file there or is
    larger than relialint reads (``MAX_FILE_BYTES``)."""
    spec = f"{base}:{rel}"
    size = _git(root, "cat-file", "-s", spec, check=False)
    kind = _git(root, "cat-file", "-t", spec, check=False)
    if size.returncode != 0 or kind.stdout.strip() != b"blob":
        return None
    try:
        if int(size.stdout.strip()) > MAX_FILE_BYTES:
            return None
    except ValueError:
        return None
    done = _git(root, "cat-file", "blob", spec, check=False)
    return done.stdout if done.returncode == 0 else None
