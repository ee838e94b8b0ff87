"""The one way relialint writes a file (``--write-baseline``, ``--write-facts``): atomically, never through a
symlink, never into a FIFO or a device.

The text goes to a new temporary file in the target's folder (created exclusively, so never an existing file or a
symlink), is flushed to disk, and is renamed over the target: a reader sees the old file or the new one, never half
of one, and a run stopped midway leaves the old file as it was. A rename replaces the directory entry itself, so a
symlink put at the target's name is replaced, not followed. Before that, a target that is a symlink or not a regular
file (a FIFO, a device, a socket, a folder) is refused with a clear error: writing through a symlink would change a
file elsewhere, and opening a FIFO for writing blocks until a reader comes, forever in a CI job.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from relialint.base.errors import RelialintError


class RefusedTarget(RelialintError, OSError):
    """A target relialint will not write (``strerror`` says why, in words)."""


def refusal(path: Path) -> str | None:
    """Why ``path`` will not be written (checked again when it is), for a command that checks before it works."""
    refused = _refusal(path)
    return refused.strerror if refused is not None else None


def _refusal(path: Path) -> RefusedTarget | None:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        return RefusedTarget(errno.ELOOP, "it is a symlink; relialint does not write through one (name the file it "
                                          "points to, or remove the link)")
    if stat.S_ISREG(info.st_mode):
        return None
    kind = ("a folder" if stat.S_ISDIR(info.st_mode) else "a FIFO" if stat.S_ISFIFO(info.st_mode)
            else "a socket" if stat.S_ISSOCK(info.st_mode) else "a device")
    return RefusedTarget(errno.EINVAL, f"not a regular file ({kind}); not written")


def write_text(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically; ``RefusedTarget`` for a symlink or a file that is not regular,
    ``OSError`` as the system raises it otherwise. An existing file keeps its permissions; a new one gets those the
    umask gives (the kernel applies it when the temporary file is created)."""
    refused = _refusal(path)
    if refused is not None:
        raise refused
    try:
        mode: int | None = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = None
    temporary = path.parent / f".{path.name}.{os.urandom(6).hex()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(temporary, flags, 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
            if mode is not None:
                os.fchmod(out.fileno(), mode)
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        _remove(temporary)
        raise


def _remove(temporary: Path) -> None:
    """Remove the temporary file of a failed write (gone already: nothing to do)."""
    with contextlib.suppress(OSError):
        os.unlink(temporary)
