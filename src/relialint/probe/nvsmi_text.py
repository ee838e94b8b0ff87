"""The plain-text outputs of nvidia-smi that carry host-wide facts and no samples: ``nvidia-smi --version``
(``DRIVER version : 580.159.04``, ``CUDA Version : 13.0``), the ``nvidia-smi`` table's banner (``Driver Version:
580.159.04     CUDA Version: 13.0``), and ``nvidia-smi conf-compute -f`` / ``-q`` (``CC status: OFF``,
``CC State : OFF``): the Confidential Computing mode, which neither ``-q -x`` nor ``--query-gpu`` prints."""

from __future__ import annotations

import re

from relialint.probe.reading import Capture, Reading
from relialint.readers.located import ReadError

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("driver", re.compile(r"\bDRIVER version\s*:\s*(?P<v>[0-9][0-9.]*)", re.I)),
    ("cuda", re.compile(r"\bCUDA Version\s*:\s*(?P<v>[0-9][0-9.]*)", re.I)),
    ("cc_mode", re.compile(r"\bCC (?:status|State)\s*:\s*(?P<v>ON|OFF)\b", re.I)),
]


def looks_like(text: str) -> bool:
    return any(p.search(text) for _, p in _PATTERNS)


def read(text: str, path: str) -> Capture:
    capture = Capture("nvidia-smi-text")
    for number, line in enumerate(text.splitlines(), start=1):
        for name, pattern in _PATTERNS:
            for m in pattern.finditer(line):
                raw = m.group("v")
                value: str | bool = raw.upper() != "OFF" if name == "cc_mode" else raw
                seen = capture.host.get(name)
                if seen is not None and seen.value != value:
                    capture.errors.append(ReadError(path, number, m.start("v") + 1,
                                                    f"{name} is {raw} here and {seen.value} on line {seen.line}"))
                    continue
                capture.host.setdefault(name, Reading(value, path, number, m.start("v") + 1))
    if not capture.host:
        capture.errors.append(ReadError(path, 1, 1, "no driver, CUDA or Confidential Computing state found"))
    return capture
