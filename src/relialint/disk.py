"""The one guarded read of the disk: every file relialint opens, named on the command line, found in a folder or
named by another file (through the run's ``files.DiskOpener``), goes through ``read_bytes``.

Readers and engines never read the disk (``relialint.readers.opener``): this module and the run layer do.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from relialint.readers.located import MAX_FILE_BYTES, ReadError, decode


def _kind_of(mode: int) -> str | None:
    """What a non-regular file is, in words (``None`` for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_bytes(path: Path | str, display: str, limit: int = MAX_FILE_BYTES,
               head: bool = False) -> tuple[bytes | None, ReadError | None]:
    """The one guarded read every file relialint opens goes through.

    Only regular files are read, decided by ``stat`` type (a FIFO, a device, a socket or a folder is a located
    error, never opened for a blocking read); at most ``limit`` bytes are read, counted as they are read rather
    than trusted from ``st_size`` (a file that grows, ``/proc`` files). ``head``: the first ``limit`` bytes of a
    file of any size (sniffing a file's kind)."""
    try:
        info = os.stat(path)
        kind = _kind_of(info.st_mode)
        if kind is not None:
            return None, ReadError(display, 1, 1, f"not a regular file ({kind}); not read")
        if info.st_size > limit and not head:
            return None, ReadError(display, 1, 1, f"file too large ({info.st_size} bytes; the limit is {limit})")
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
        try:
            kind = _kind_of(os.fstat(fd).st_mode)  # the file may have been swapped since the stat
            if kind is not None:
                return None, ReadError(display, 1, 1, f"not a regular file ({kind}); not read")
            return _read_fd(fd, limit, display, head)
        finally:
            os.close(fd)
    except FileNotFoundError:
        return None, ReadError(display, 1, 1, "no such file")
    except PermissionError:
        return None, ReadError(display, 1, 1, "permission denied")
    except (OSError, ValueError) as exc:
        return None, ReadError(display, 1, 1, f"cannot read: {getattr(exc, 'strerror', None) or 'invalid path'}")


def _read_fd(fd: int, limit: int, display: str, head: bool) -> tuple[bytes | None, ReadError | None]:
    """At most ``limit`` bytes of an open file, read with plain ``os.read`` (no buffered file object: most inputs
    are a few kilobytes, read in one call); more than ``limit`` is a located error unless ``head``."""
    chunks: list[bytes] = []
    total = 0
    want = limit if head else limit + 1
    while total < want:
        chunk = os.read(fd, min(1 << 20, want - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total > limit:
        return None, ReadError(display, 1, 1, f"file too large (more than {limit} bytes; the limit is {limit})")
    return b"".join(chunks), None


def bounded(stream: BinaryIO, display: str, limit: int = MAX_FILE_BYTES) -> tuple[bytes | None, ReadError | None]:
    """At most ``limit`` bytes of a stream (a file, standard input): more is a located error, never read."""
    chunks: list[bytes] = []
    total = 0
    while total <= limit:
        chunk = stream.read(min(1 << 20, limit + 1 - total))
        if not chunk:
            return b"".join(chunks), None
        chunks.append(chunk)
        total += len(chunk)
    return None, ReadError(display, 1, 1, f"file too large (more than {limit} bytes; the limit is {limit})")


def read_text(path: Path | str, display: str) -> tuple[str | None, ReadError | None]:
    """Read a file as text through ``read_bytes``: UTF-8 (a BOM is dropped) or UTF-16 with its BOM, never more than
    ``MAX_FILE_BYTES``. Binary and undecodable files are errors located at the first bad byte."""
    data, error = read_bytes(path, display)
    if data is None:
        return None, error
    return decode(data, display)

