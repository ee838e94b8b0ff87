"""Facts files: what ``relialint probe --write-facts FILE`` writes and ``relialint check --facts FILE`` reads.

By suffix: ``.json`` is ``{"relialint": VERSION, "sources": [...], "facts": {KEY: VALUE}}``; ``.toml`` is a
``[facts]`` table of quoted keys (``"gpu.model" = "H200"``). Values are typed scalars (strings, booleans, numbers);
a fact known to be unset is left out. Any other file is read as the text ``vllm collect-env`` prints. Reading
never raises: problems come back located, and the caller decides (``check`` exits 2).
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path
from typing import Any

from relialint.base import bounds
from relialint.core.facts import FactSet, json_value
from relialint.disk import read_text
from relialint.probe.entries import Entry, FactsFile
from relialint.readers.located import ReadError

SUFFIXES = (".json", ".toml")


def read(path: Path, display: str | None = None) -> FactsFile:
    shown = display or str(path)
    text, error = read_text(path, shown)
    if error is not None or text is None:
        out = FactsFile(shown, "unknown")
        out.errors.append(error or ReadError(shown, 1, 1, "cannot read"))
        return out
    return read_text_as(text, shown, path.suffix.lower())


def read_text_as(text: str, path: str, suffix: str) -> FactsFile:
    if suffix == ".json":
        return _json(text, path)
    if suffix == ".toml":
        return _toml(text, path)
    from relialint.probe import collect_env

    if collect_env.looks_like(text):
        return collect_env.read(text, path)
    out = FactsFile(path, "unknown")
    out.errors.append(ReadError(path, 1, 1, "not a facts file: give a .json or .toml file written by relialint "
                                "probe --write-facts, or the output of vllm collect-env"))
    return out


_KEY_AT = re.compile(r"[\"']([^\"'\n]*)[\"']\s*[:=]")


def _positions(text: str) -> dict[str, tuple[int, int]]:
    """Where each quoted key is first written (``"gpu.model" =``, ``"facts":``), found in one pass over the text:
    looking each key up again would take time quadratic in the number of keys."""
    out: dict[str, tuple[int, int]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        for m in _KEY_AT.finditer(line):
            out.setdefault(m.group(1), (number, m.start() + 1))
    return out


def _entries(out: FactsFile, table: Any, text: str) -> None:
    positions = _positions(text)
    if not isinstance(table, dict):
        out.errors.append(ReadError(out.path, *positions.get("facts", (1, 1)), "facts must be a table of KEY = VALUE"))
        return
    for key, value in table.items():
        line, column = positions.get(str(key), (1, 1))
        if isinstance(value, bool):
            raw = "true" if value else "false"
        elif isinstance(value, int | float | str):
            raw = str(value)
        else:
            out.errors.append(ReadError(out.path, line, column, f"{key}: takes a string, boolean or number"))
            continue
        out.entries.append(Entry(str(key), raw, line, column))


def _json(text: str, path: str) -> FactsFile:
    out = FactsFile(path, "json")
    try:
        data = bounds.json_loads(text)
    except bounds.BoundError as exc:
        where = bounds.long_integer_at(text) if str(exc).startswith("integer") else None
        out.errors.append(ReadError(path, *where, f"{exc}; not read") if where is not None
                          else ReadError(path, 1, 1, "JSON nested too deeply"))
        return out
    except ValueError as exc:
        out.errors.append(ReadError(path, getattr(exc, "lineno", 1), getattr(exc, "colno", 1),
                                    f"not valid JSON: {getattr(exc, 'msg', exc)}"))
        return out
    if not isinstance(data, dict) or "facts" not in data:
        out.errors.append(ReadError(path, 1, 1, 'a facts file is a JSON object with a "facts" object'))
        return out
    _entries(out, data["facts"], text)
    return out


def _toml(text: str, path: str) -> FactsFile:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    out = FactsFile(path, "toml")
    if bounds.depth(text, toml=True) > bounds.MAX_DEPTH:
        out.errors.append(ReadError(path, 1, 1, "TOML nested too deeply"))
        return out
    try:
        data = tomllib.loads(text)
    except RecursionError:
        out.errors.append(ReadError(path, 1, 1, "TOML nested too deeply"))
        return out
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        line, column = (int(m.group(1)), int(m.group(2))) if m else (1, 1)
        out.errors.append(ReadError(path, line, column, f"invalid TOML: {str(exc).split(' (at line')[0]}"))
        return out
    except ValueError:  # an integer past Python's conversion limit
        out.errors.append(ReadError(path, *(bounds.long_integer_at(text) or (1, 1)),
                                    f"integer of more than {bounds.MAX_INT_DIGITS} digits; not read"))
        return out
    if "facts" not in data:
        out.errors.append(ReadError(path, 1, 1, "a facts file has a [facts] table"))
        return out
    _entries(out, data["facts"], text)
    return out


# -- writing --------------------------------------------------------------------------------------------------------


def _written(value: object) -> bool:
    """Whether a fact's value goes into a facts file: not one known to be unset, and not a number that is not
    finite (no fact takes one, so ``check --facts`` would refuse the file)."""
    return value is not None and not (isinstance(value, float) and not math.isfinite(value))


def render(facts: FactSet, suffix: str, sources: list[str]) -> str:
    """The facts as a facts file of this suffix; facts known to be unset, and numbers that are not finite, are
    left out."""
    from relialint import __version__

    values = {key: json_value(fact.value) for key, fact in facts.items() if _written(fact.value)}
    if suffix == ".json":
        return json.dumps({"relialint": __version__, "sources": sources, "facts": values}, indent=2,
                          ensure_ascii=False) + "\n"
    lines = [f"# relialint facts, written by relialint probe {__version__}",
             f"# from: {', '.join(sources) if sources else 'NVML on this host'}", "", "[facts]"]
    for key, value in values.items():
        text = ("true" if value else "false") if isinstance(value, bool) else json.dumps(value, ensure_ascii=False)
        lines.append(f"{json.dumps(key)} = {text}")
    return "\n".join(lines) + "\n"


def write(path: Path, facts: FactSet, sources: list[str]) -> None:
    """Write a facts file; ``ValueError`` for a suffix other than ``.json`` / ``.toml``, ``OSError`` as raised."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise ValueError(f"--write-facts {path}: the file name ends in .json or .toml")
    from relialint.base.safewrite import write_text

    write_text(path, render(facts, suffix, sources))
