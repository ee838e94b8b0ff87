"""A small on-disk cache of derived data (compiled records, the parsed hardware catalogue).

Entries live under ``$XDG_CACHE_HOME/relialint`` (``~/.cache/relialint``), named by a digest of the source
files' paths, sizes and modification times and the relialint version, so a changed source is never served
stale. A cache that cannot be written is simply not used.
"""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path
from typing import Any

from relialint import __version__


def digest(files: list[Path]) -> str:
    """A key for these files as they are now (CRC-32 and Adler-32 of their paths, sizes and mtimes: a change
    of any of them changes the key; zlib is already loaded, hashlib would cost a start-up import)."""
    parts = [__version__]
    for path in files:
        try:
            stat = path.stat()
        except OSError:
            continue
        parts.append(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}")
    data = "\n".join(parts).encode()
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}{len(parts):04x}"


def _file(name: str, key: str) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "relialint" / f"{name}-{__version__}-{key}.json"


def read(name: str, key: str) -> Any | None:
    text = read_text(name, key)
    try:
        return None if text is None else json.loads(text)
    except ValueError:
        return None


def read_text(name: str, key: str) -> str | None:
    """An entry's JSON text, unparsed (``None``: no entry)."""
    try:
        return _file(name, key).read_text(encoding="utf-8")
    except OSError:
        return None


def write(name: str, key: str, value: Any) -> None:
    write_text(name, key, json.dumps(value))


def write_text(name: str, key: str, text: str) -> None:
    """Write an entry's JSON text (made by the caller: one that keeps it too need not make it twice)."""
    target = _file(name, key)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(target)
    except OSError:
        pass
