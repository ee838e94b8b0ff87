"""Values as nvidia-smi and amd-smi print them: ``81.70 W``, ``345 MHz``, ``Active``, ``[N/A]``, ``0x04``."""

from __future__ import annotations

import math
import re

from relialint.probe.reading import Value

_MISSING = {"", "n/a", "[n/a]", "[not supported]", "not supported", "[unknown error]", "unknown error",
            "requested functionality has been deprecated", "none"}
_NUMBER = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(?:[A-Za-z%°]+(?:/s)?)?\s*$")
_TRUE = {"active", "enabled", "yes", "on", "true"}
_FALSE = {"not active", "disabled", "no", "off", "false"}


def missing(text: str) -> bool:
    return text.strip().lower() in _MISSING


def number(text: str) -> float | None:
    """``81.70 W`` -> 81.7; ``345 MHz`` -> 345.0; ``None`` when not a number, or one too large for a float (400
    digits read as infinity: no counter holds that, and arithmetic on it would overflow)."""
    m = _NUMBER.match(text)
    if m is None:
        return None
    value = float(m.group(1))
    return value if math.isfinite(value) else None


def integer(text: str) -> int | None:
    value = number(text)
    return int(value) if value is not None and value == int(value) else None


def flag(text: str) -> bool | None:
    word = text.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    return None


def bitmask(text: str) -> int | None:
    word = text.strip().lower()
    try:
        return int(word, 16) if word.startswith("0x") else int(word)
    except ValueError:
        return None


KINDS = {
    "int": integer,
    "float": number,
    "bool": flag,
    "mask": bitmask,
}


def convert(kind: str, text: str) -> Value | None:
    """Text as ``kind`` (``str``, ``int``, ``float``, ``bool``, ``mask``); ``None`` when missing or unreadable."""
    if missing(text):
        return None
    if kind == "str":
        return text.strip()
    return KINDS[kind](text)
