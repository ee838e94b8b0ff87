"""What a probe reads: samples of GPU counters, each value with where it was read."""

from __future__ import annotations

from dataclasses import dataclass, field

from relialint.base.errors import InternalError
from relialint.readers.located import ReadError

Value = str | bool | int | float

# NVML clocks event reasons (nvmlClocksEventReason*, formerly nvmlClocksThrottleReason*): the bit of each reason.
REASON_BITS: dict[str, int] = {
    "gpu_idle": 0x1,
    "applications_clocks_setting": 0x2,
    "sw_power_cap": 0x4,
    "hw_slowdown": 0x8,
    "sync_boost": 0x10,
    "sw_thermal_slowdown": 0x20,
    "hw_thermal_slowdown": 0x40,
    "hw_power_brake_slowdown": 0x80,
}

FIELDS = (
    "name", "uuid", "bus_id", "vendor", "arch", "compute_cap", "driver", "cuda", "memory_total_mib", "cc_mode",
    "reasons_active", "sm_clock", "sm_clock_max", "app_clock", "power_draw", "power_limit", "power_default_limit",
    "temperature", "utilization", "ecc_mode", "ecc_uncorrectable", "retired_pages", "remapped_pending",
    "timestamp", *(f"reason.{r}" for r in REASON_BITS),
)
"""The normalised names of what a sample can hold (each reader maps its own field names onto these)."""


@dataclass(frozen=True)
class Reading:
    """One value read, with where: a file position, or ``None`` for a live read."""

    value: Value
    path: str
    line: int | None = None
    column: int | None = None


@dataclass(repr=False, eq=False)
class Sample:
    """The counters of one GPU at one moment."""

    gpu: str
    """What identifies the GPU across samples: its UUID, bus id or index."""
    index: int
    path: str
    line: int = 1
    values: dict[str, Reading] = field(default_factory=dict)

    def get(self, name: str) -> Value | None:
        reading = self.values.get(name)
        return reading.value if reading is not None else None

    def put(self, name: str, value: Value | None, line: int | None = None, column: int | None = None) -> None:
        if name not in FIELDS:
            raise InternalError(f"a reading of {name!r}, which is not in FIELDS")
        if value is not None:
            self.values[name] = Reading(value, self.path, line, column)

    def reason(self, name: str) -> bool | None:
        """A clock event reason: its own field, else its bit of the active bitmask, else unknown."""
        own = self.get(f"reason.{name}")
        if isinstance(own, bool):
            return own
        mask = self.get("reasons_active")
        if isinstance(mask, int) and not isinstance(mask, bool):
            return bool(mask & REASON_BITS[name])
        return None


@dataclass(repr=False, eq=False)
class Capture:
    """Everything read from one source: samples in time order, and problems met on the way."""

    source: str
    """``nvml``, ``nvidia-smi-xml``, ``nvidia-smi-csv``, ``amd-smi``, ``rocm-smi``."""
    samples: list[Sample] = field(default_factory=list)
    host: dict[str, Reading] = field(default_factory=dict)
    """Host-wide values (``driver``, ``cuda``, ``cc_mode``) read outside any one GPU's sample."""
    errors: list[ReadError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    interval_s: float | None = None
    """The sampling interval when it is known (live sampling)."""
