"""The committed serialisation of the generated flag tables, shared by the generators: one option per line, so
diffs stay readable and loading stays one ``json.loads``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def dumps(table: dict[str, Any], nested: tuple[str, ...]) -> str:
    """``table`` as JSON; the mappings named in ``nested`` get one entry per line, everything else one line each."""
    lines = ["{"]
    keys = list(table)
    for i, key in enumerate(keys):
        comma = "," if i < len(keys) - 1 else ""
        value = table[key]
        if isinstance(value, dict) and key in nested:
            lines.append(f"{json.dumps(key)}: {{")
            items = list(value.items())
            for j, (name, entry) in enumerate(items):
                sep = "," if j < len(items) - 1 else ""
                lines.append(f"{json.dumps(name)}: {json.dumps(entry, separators=(',', ':'))}{sep}")
            lines.append("}" + comma)
        else:
            lines.append(f"{json.dumps(key)}: {json.dumps(value, separators=(',', ':'))}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write(text: str, out: Path) -> None:
    """The table to ``out``, or to standard output when ``out`` is ``-``."""
    if str(out) == "-":
        sys.stdout.write(text)
    else:
        out.write_text(text, encoding="utf-8")
