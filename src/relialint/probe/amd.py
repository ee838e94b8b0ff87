"""AMD captures: ``amd-smi static`` / ``amd-smi metric`` (``--json`` or ``--csv``) and ``rocm-smi ... --json``.

* ``amd-smi static --json``: a list of GPUs, or ``{"gpu_data": [...]}`` in newer releases, each with ``gpu`` (the
  index) and ``asic`` (``market_name``, ``target_graphics_version`` such as ``gfx942``), ``vram``
  (``size`` as ``{"value": ..., "unit": "MB"}``), ``driver`` (``version``).
* ``amd-smi metric --json``: the same list with ``clock`` (``gfx_0``: ``clk``, ``max_clk``), ``power``
  (``socket_power``, ``power_limit`` in newer releases), ``temperature`` (``hotspot``/``edge``), ``usage``
  (``gfx_activity``). A value is ``{"value": 131, "unit": "MHz"}``, a bare number, or text (``131 MHz``, ``N/A``).
* ``amd-smi ... --csv``: one row per GPU under a header of flattened keys (``gpu``, ``market_name``,
  ``target_graphics_version``, ``gfx_0_clk``, ...).
* ``rocm-smi --showproductname --json`` (and ``--showclocks``, ``--showpower``): ``{"card0": {"Card Series": ...,
  "GFX Version": "gfx942", "sclk clock speed:": "(131Mhz)", ...}}``.

Values are located at the line where their key is written (JSON keeps no positions, so the key is searched in
the text after the GPU's own line).
"""

from __future__ import annotations

import math
import re
from typing import Any

from relialint.base import bounds
from relialint.probe.reading import Capture, Sample
from relialint.probe.units import convert
from relialint.readers.located import ReadError


def looks_like(text: str) -> bool:
    head = text[:8192]
    keys = ("target_graphics_version", '"asic"', "gfx_0", "market_name", '"gpu_data"')
    return any(k in head for k in keys) or re.search(r'"card\d+"\s*:', head) is not None


def _value(raw: Any) -> str | None:
    """A JSON value as text: ``{"value": 131, "unit": "MHz"}`` -> ``131``."""
    if isinstance(raw, dict):
        raw = raw.get("value")
    if raw is None or isinstance(raw, dict | list):
        return None
    return str(raw)


def _mib(raw: Any) -> int | None:
    unit = str(raw.get("unit", "MB")).upper() if isinstance(raw, dict) else "MB"
    text = _value(raw)
    value = convert("float", text) if text is not None else None
    if not isinstance(value, float):
        return None
    factor = {"B": 1 / (1024 * 1024), "KB": 1 / 1024, "MB": 1, "MIB": 1, "GB": 1024, "GIB": 1024}.get(unit, 1)
    mib = value * factor
    return int(mib) if math.isfinite(mib) else None


class _Locator:
    """Line and column of a key in the JSON text, searching forward from where the GPU's block starts."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()

    def find(self, key: str, start: int) -> tuple[int, int]:
        needle = f'"{key}"'
        for number in range(max(start, 1), len(self.lines) + 1):
            column = self.lines[number - 1].find(needle)
            if column >= 0:
                return number, column + 1
        return start, 1


def read(text: str, path: str) -> Capture:
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            data = bounds.json_loads(text)
        except bounds.BoundError as exc:
            capture = Capture("amd-smi")
            where = bounds.long_integer_at(text) if str(exc).startswith("integer") else None
            capture.errors.append(ReadError(path, *where, f"{exc}; not read") if where is not None
                                  else ReadError(path, 1, 1, "JSON nested too deeply"))
            return capture
        except ValueError as exc:
            line, column = getattr(exc, "lineno", 1), getattr(exc, "colno", 1)
            capture = Capture("amd-smi")
            capture.errors.append(ReadError(path, line, column, f"not valid JSON: {getattr(exc, 'msg', exc)}"))
            return capture
        if isinstance(data, dict) and any(re.fullmatch(r"card\d+", str(k)) for k in data):
            return _rocm_smi(data, text, path)
        return _amd_smi_json(data, text, path)
    return _amd_smi_csv(text, path)


def _gpus(data: Any) -> list[dict[str, Any]]:
    if isinstance(data, dict):
        data = data.get("gpu_data", [data])
    return [g for g in data if isinstance(g, dict)] if isinstance(data, list) else []


# (field, section, sub-section, key, kind)
_JSON_FIELDS: list[tuple[str, str, str | None, str, str]] = [
    ("name", "asic", None, "market_name", "str"),
    ("arch", "asic", None, "target_graphics_version", "str"),
    ("memory_total_mib", "vram", None, "size", "int"),
    ("driver", "driver", None, "version", "str"),
    ("sm_clock", "clock", "gfx_0", "clk", "int"),
    ("sm_clock_max", "clock", "gfx_0", "max_clk", "int"),
    ("power_draw", "power", None, "socket_power", "float"),
    ("power_limit", "power", None, "power_limit", "float"),
    ("temperature", "temperature", None, "hotspot", "int"),
    ("utilization", "usage", None, "gfx_activity", "int"),
]


def _table(data: Any, key: str) -> dict[str, Any]:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else {}


def _amd_smi_json(data: Any, text: str, path: str) -> Capture:
    capture = Capture("amd-smi")
    where = _Locator(text)
    cursor = 1
    for position, gpu in enumerate(_gpus(data)):
        number = gpu.get("gpu")
        index = number if isinstance(number, int) and not isinstance(number, bool) else position
        line, _ = where.find("gpu", cursor)
        cursor = line + 1
        sample = Sample(gpu=str(index), index=index, path=path, line=line)
        sample.put("vendor", "amd")
        for name, section, sub, key, kind in _JSON_FIELDS:
            block = _table(gpu, section)
            raw = _table(block, sub).get(key) if sub else block.get(key)
            if key == "size":
                value: Any = _mib(raw) if raw is not None else None
            else:
                value = convert(kind, _value(raw) or "")
            if value is not None:
                sample.put(name, value, *where.find(key, line))
        capture.samples.append(sample)
    if not capture.samples:
        capture.errors.append(ReadError(path, 1, 1, "amd-smi JSON with no GPU"))
    return capture


_CSV_COLUMNS = {
    "market_name": ("name", "str"),
    "target_graphics_version": ("arch", "str"),
    "gfx_0_clk": ("sm_clock", "int"),
    "gfx_clk": ("sm_clock", "int"),
    "gfx_0_max_clk": ("sm_clock_max", "int"),
    "socket_power": ("power_draw", "float"),
    "power_limit": ("power_limit", "float"),
    "hotspot": ("temperature", "int"),
    "gfx_activity": ("utilization", "int"),
}


def _amd_smi_csv(text: str, path: str) -> Capture:
    capture = Capture("amd-smi")
    lines = text.splitlines()
    header_at = next((i for i, line in enumerate(lines) if line.strip()), None)
    if header_at is None:
        capture.errors.append(ReadError(path, 1, 1, "empty amd-smi capture"))
        return capture
    header = [h.strip().lower() for h in lines[header_at].split(",")]
    if "gpu" not in header:
        capture.errors.append(ReadError(path, header_at + 1, 1, "amd-smi CSV without its gpu column"))
        return capture
    for number, line in enumerate(lines[header_at + 1 :], start=header_at + 2):
        if not line.strip():
            continue
        cells = line.split(",")
        if len(cells) != len(header):
            capture.errors.append(ReadError(path, number, 1, f"{len(cells)} values for {len(header)} fields"))
            continue
        offsets = [0]
        for cell in cells[:-1]:
            offsets.append(offsets[-1] + len(cell) + 1)
        index = convert("int", cells[header.index("gpu")])
        sample = Sample(gpu=str(index), index=index if isinstance(index, int) else 0, path=path, line=number)
        sample.put("vendor", "amd")
        for name, cell, offset in zip(header, cells, offsets, strict=True):
            target = _CSV_COLUMNS.get(name)
            if target is not None:
                sample.put(target[0], convert(target[1], cell), number, offset + 1)
        capture.samples.append(sample)
    if not capture.samples and not capture.errors:
        capture.errors.append(ReadError(path, header_at + 1, 1, "amd-smi CSV with a header and no rows"))
    return capture


_ROCM_KEYS = {
    "card series": ("name", "str"),
    "gfx version": ("arch", "str"),
    "sclk clock speed:": ("sm_clock", "int"),
    "max graphics package power (w)": ("power_limit", "float"),
    "average graphics package power (w)": ("power_draw", "float"),
    "current socket graphics package power (w)": ("power_draw", "float"),
    "temperature (sensor junction) (c)": ("temperature", "int"),
    "gpu use (%)": ("utilization", "int"),
}


def _rocm_smi(data: dict[str, Any], text: str, path: str) -> Capture:
    capture = Capture("rocm-smi")
    where = _Locator(text)
    for card, block in data.items():
        m = re.fullmatch(r"card(\d+)", str(card))
        if m is None or not isinstance(block, dict):
            continue
        line, _ = where.find(card, 1)
        index = int(m.group(1))
        sample = Sample(gpu=str(index), index=index, path=path, line=line)
        sample.put("vendor", "amd")
        for key, raw in block.items():
            target = _ROCM_KEYS.get(str(key).strip().lower())
            if target is None or not isinstance(raw, str | int | float):
                continue
            text_value = str(raw).strip().strip("()")
            sample.put(target[0], convert(target[1], text_value), *where.find(str(key), line))
        capture.samples.append(sample)
    if not capture.samples:
        capture.errors.append(ReadError(path, 1, 1, "rocm-smi JSON with no card"))
    return capture
