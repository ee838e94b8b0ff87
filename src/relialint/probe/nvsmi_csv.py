"""``nvidia-smi --query-gpu=FIELDS --format=csv`` output: one sample per row, rows in time order.

The header names the fields (``power.draw [W]``); nvidia-smi answers the legacy ``clocks_throttle_reasons.*``
names under ``clocks_event_reasons.*``, and both are read. Values carry their units (``81.70 W``) unless
``nounits`` was asked; ``[N/A]`` is a value that is not there. A capture without its header cannot be read, since
nothing says which column is which.
"""

from __future__ import annotations

import re

from relialint.probe.reading import REASON_BITS, Capture, Sample
from relialint.probe.units import convert
from relialint.readers.located import ReadError

_COLUMNS: dict[str, tuple[str, str]] = {
    "index": ("index", "int"),
    "name": ("name", "str"),
    "gpu_name": ("name", "str"),
    "uuid": ("uuid", "str"),
    "gpu_uuid": ("uuid", "str"),
    "pci.bus_id": ("bus_id", "str"),
    "gpu_bus_id": ("bus_id", "str"),
    "compute_cap": ("compute_cap", "str"),
    "driver_version": ("driver", "str"),
    "timestamp": ("timestamp", "str"),
    "memory.total": ("memory_total_mib", "int"),
    "temperature.gpu": ("temperature", "int"),
    "utilization.gpu": ("utilization", "int"),
    "power.draw": ("power_draw", "float"),
    "power.draw.average": ("power_draw", "float"),
    "gpu.power.draw.average": ("power_draw", "float"),
    "power.limit": ("power_limit", "float"),
    "gpu.power.requested_limit": ("power_limit", "float"),
    "enforced.power.limit": ("power_limit", "float"),
    "gpu.power.current_limit": ("power_limit", "float"),
    "power.default_limit": ("power_default_limit", "float"),
    "gpu.power.default_limit": ("power_default_limit", "float"),
    "clocks.current.sm": ("sm_clock", "int"),
    "clocks.sm": ("sm_clock", "int"),
    "clocks.max.sm": ("sm_clock_max", "int"),
    "clocks.applications.graphics": ("app_clock", "int"),
    "clocks.applications.gr": ("app_clock", "int"),
    "ecc.mode.current": ("ecc_mode", "bool"),
    "ecc.errors.uncorrected.aggregate.total": ("ecc_uncorrectable", "int"),
    "remapped_rows.pending": ("remapped_pending", "bool"),
    "clocks_event_reasons.active": ("reasons_active", "mask"),
    "clocks_throttle_reasons.active": ("reasons_active", "mask"),
}
for _reason in REASON_BITS:
    for _family in ("clocks_event_reasons", "clocks_throttle_reasons"):
        _COLUMNS[f"{_family}.{_reason}"] = (f"reason.{_reason}", "bool")
# The enforced limit is what the GPU runs under; it wins over the requested one when both are queried.
_PREFERRED = {"enforced.power.limit", "gpu.power.current_limit"}
_RETIRED = {"retired_pages.single_bit_ecc.count", "retired_pages.sbe", "retired_pages.double_bit.count",
            "retired_pages.dbe"}
_UNIT = re.compile(r"\s*\[[^\]]*\]\s*$")


def looks_like(text: str) -> bool:
    first = text.lstrip().split("\n", 1)[0]
    return "," in first and any(_UNIT.sub("", c.strip()) in _COLUMNS for c in first.split(","))


def _cells(line: str) -> list[tuple[str, int]]:
    """A CSV line split at commas, each cell with its 1-based column (nvidia-smi never quotes a cell)."""
    out: list[tuple[str, int]] = []
    start = 0
    for part in line.split(","):
        lead = len(part) - len(part.lstrip())
        out.append((part.strip(), start + lead + 1))
        start += len(part) + 1
    return out


def read(text: str, path: str) -> Capture:
    capture = Capture("nvidia-smi-csv")
    lines = text.splitlines()
    header_at = next((i for i, line in enumerate(lines) if line.strip()), None)
    if header_at is None:
        capture.errors.append(ReadError(path, 1, 1, "empty nvidia-smi capture"))
        return capture
    header = [(_UNIT.sub("", name), column) for name, column in _cells(lines[header_at])]
    names = [name for name, _ in header]
    if not any(name in _COLUMNS or name in _RETIRED for name in names):
        capture.errors.append(ReadError(path, header_at + 1, 1, "not an nvidia-smi --query-gpu CSV with its header "
                                        "(run it with --format=csv, not csv,noheader)"))
        return capture
    for number, line in enumerate(lines[header_at + 1 :], start=header_at + 2):
        if not line.strip():
            continue
        if line.strip() == lines[header_at].strip():  # a repeated header between loops
            continue
        cells = _cells(line)
        if len(cells) != len(header):
            capture.errors.append(ReadError(path, number, 1, f"{len(cells)} values for {len(header)} fields"))
            continue
        sample = Sample(gpu="", index=0, path=path, line=number)
        retired: list[int] = []
        for (name, _), (text_value, column) in zip(header, cells, strict=True):
            if name in _RETIRED:
                value = convert("int", text_value)
                if isinstance(value, int):
                    retired.append(value)
                continue
            target = _COLUMNS.get(name)
            if target is None:
                continue
            field, kind = target
            value = convert(kind, text_value)
            if field == "power_limit" and "power_limit" in sample.values and name not in _PREFERRED:
                continue
            if field == "index":
                sample.index = value if isinstance(value, int) else 0
                continue
            sample.put(field, value, number, column)
        if retired:
            sample.put("retired_pages", sum(retired), number, 1)
        identity = sample.get("uuid") or sample.get("bus_id") or str(sample.index)
        sample.gpu = str(identity)
        sample.put("vendor", "nvidia")
        capture.samples.append(sample)
    if not capture.samples and not capture.errors:
        capture.errors.append(ReadError(path, header_at + 1, 1, "nvidia-smi capture with a header and no rows"))
    return capture
