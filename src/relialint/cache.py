"""A small on-disk cache of derived data (compiled records, the parsed hardware catalogue).

Entries live under ``$XDG_CACHE_HOME/relialint`` (``~/.cache/relialint``), named by a digest of the source
files' paths, sizes and modification times and the relialint version, so a changed source is never served
stale. A cache that cannot be written is simply not used.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from relialint import __version__


def digest(files: list[Path]) -> str:
    hasher = hashlib.sha256(__version__.encode())
    for path in files:
        try:
            stat = path.stat()
        except OSError:
            continue
        hasher.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
    return hasher.hexdigest()[:24]


def _file(name: str, key: str) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "relialint" / f"{name}-{__version__}-{key}.json"


def read(name: str, key: str) -> Any | None:
    try:
        return json.loads(_file(name, key).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def write(name: str, key: str, value: Any) -> None:
    target = _file(name, key)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(value), encoding="utf-8")
        tmp.replace(target)
    except OSError:
        pass
