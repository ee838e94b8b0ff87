"""Samples to the host's facts: ``gpu.*`` and ``host.*`` from what the GPUs are, ``runtime.*`` from what they did.

Load-only conditions. SW Power Cap, the thermal slowdowns, HW Slowdown and HW Power Brake show only while the GPU
works. A reason seen active is a known ``true`` in any state; a reason read as not active is a known ``false``
only when some sample shows the GPU under load (GPU Idle not active, utilisation above 0 where it is read). When
every sample is idle those reasons stay unknown, and a note says why: an idle snapshot cannot show them.

Figures (clocks, power) describe the samples under load when there are any, else every sample.
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from dataclasses import dataclass, field

from relialint.core.facts import Fact, FactSet, Value
from relialint.probe.reading import Capture, Reading, Sample

LOAD_ONLY = {
    "runtime.sw_power_cap": "sw_power_cap",
    "runtime.hw_slowdown": "hw_slowdown",
    "runtime.hw_thermal_slowdown": "hw_thermal_slowdown",
    "runtime.sw_thermal_slowdown": "sw_thermal_slowdown",
    "runtime.hw_power_brake": "hw_power_brake_slowdown",
}
PARKED_BELOW = 0.5
"""An idle SM clock under this share of its maximum is parked: the clocks are not locked at a working clock."""


@dataclass(repr=False, eq=False)
class HostFacts:
    facts: FactSet = field(default_factory=FactSet)
    notes: list[str] = field(default_factory=list)
    gpus: list[str] = field(default_factory=list)
    path: str = "nvml"


def _fact(value: Value | None, reading: Reading | None, note: str | None = None) -> Fact:
    if reading is None:
        return Fact(value, "probe", note=note)
    return Fact(value, "probe", reading.path, reading.line, reading.column, reading.line, reading.column,
                note=note)


def _state(sample: Sample) -> str:
    """``idle``, ``load`` or ``unknown``."""
    idle = sample.reason("gpu_idle")
    if idle is True:
        return "idle"
    if idle is False:
        utilization = sample.get("utilization")
        return "load" if not isinstance(utilization, int | float) or utilization > 0 else "unknown"
    return "unknown"


def _identities(samples: list[Sample]) -> None:
    """Samples that name a GPU only by its index take the UUID another sample gave that index."""
    by_index = {s.index: str(s.get("uuid")) for s in samples if s.get("uuid")}
    for s in samples:
        if not s.get("uuid") and s.index in by_index:
            s.gpu = by_index[s.index]


def build(captures: list[Capture], live: bool = False) -> HostFacts:
    out = HostFacts()
    samples = [s for c in captures for s in c.samples]
    paths = [c.samples[0].path for c in captures if c.samples] or [
        r.path for c in captures for r in c.host.values()]
    out.path = paths[0] if paths else "nvml"
    _identities(samples)
    gpus: dict[str, list[Sample]] = {}
    for s in samples:
        gpus.setdefault(s.gpu, []).append(s)
    out.gpus = list(gpus)
    facts = out.facts
    host = {name: reading for c in captures for name, reading in c.host.items()}
    _host(facts, host, samples, live)
    if not samples:
        return out
    facts.set("gpu.count", _fact(len(gpus), None, f"{len(gpus)} GPU(s) in the capture"))
    _model(out, gpus)
    _first(facts, "gpu.memory_mib", samples, "memory_total_mib", out.notes)
    _first(facts, "gpu.ecc", samples, "ecc_mode", out.notes)
    _runtime(out, samples)
    return out


def _host(facts: FactSet, host: dict[str, Reading], samples: list[Sample], live: bool) -> None:
    for key, name in (("host.driver_version", "driver"), ("host.cuda_version", "cuda"), ("gpu.cc_mode", "cc_mode")):
        reading = host.get(name) or next((s.values[name] for s in samples if name in s.values), None)
        if reading is not None:
            facts.set(key, _fact(reading.value, reading))
    if live:
        os_name = {"linux": "linux", "win32": "windows", "darwin": "macos"}.get(sys.platform)
        if os_name:
            facts.set("host.os", Fact(os_name, "probe", note="the host the probe ran on"))


def _first(facts: FactSet, key: str, samples: list[Sample], name: str, notes: list[str]) -> None:
    readings = [s.values[name] for s in samples if name in s.values]
    if not readings:
        return
    values = {r.value for r in readings}
    if len(values) > 1:
        notes.append(f"{key}: the GPUs differ ({', '.join(sorted(map(str, values)))}); left unknown")
        return
    facts.set(key, _fact(readings[0].value, readings[0]))


def _model(out: HostFacts, gpus: dict[str, list[Sample]]) -> None:
    from relialint.core import hardware

    facts = out.facts
    names = {str(s.get("name")) for group in gpus.values() for s in group if s.get("name")}
    caps = [s.values["compute_cap"] for group in gpus.values() for s in group if "compute_cap" in s.values]
    arches = [s.values["arch"] for group in gpus.values() for s in group if "arch" in s.values]
    vendors = [s.values["vendor"] for group in gpus.values() for s in group if "vendor" in s.values]
    if len(names) > 1:
        out.notes.append(f"the host mixes GPUs ({', '.join(sorted(names))}); gpu.model is left unknown")
    name_reading = next((s.values["name"] for g in gpus.values() for s in g if "name" in s.values), None)
    gpu = None
    if len(names) == 1 and name_reading is not None:
        try:
            gpu = hardware.resolve(str(name_reading.value))
        except hardware.UnknownGpu:
            out.notes.append(f"GPU {name_reading.value!r} is not in the hardware catalogue; gpu.model is unknown")
    for readings in (caps, arches):
        if gpu is None and len({r.value for r in readings}) == 1:
            try:
                gpu = hardware.resolve(str(readings[0].value))
            except hardware.UnknownGpu:
                out.notes.append(f"{readings[0].path}:{readings[0].line}: {readings[0].value!r} is neither a compute "
                                 "capability nor an AMD target")
    if gpu is not None:
        where = name_reading if "gpu.model" in gpu.facts() and name_reading is not None else (
            caps[0] if caps else (arches[0] if arches else None))
        for key, value in gpu.facts().items():
            facts.set(key, _fact(value, where, f"hardware catalogue: {gpu.name}"))  # type: ignore[arg-type]
    elif vendors and len({r.value for r in vendors}) == 1:
        facts.set("gpu.vendor", _fact(vendors[0].value, vendors[0]))
    if len({r.value for r in caps}) == 1:
        from relialint.core.versions import VersionError, parse_sm

        try:
            read = parse_sm(str(caps[0].value))
        except VersionError:
            return
        known = facts.get("gpu.sm")
        if known is not None and known.value is not None and known.value != read:
            out.notes.append(f"the GPU reports compute capability {read}; the catalogue says {known.value}: the "
                             "reading is used")
        facts.set("gpu.sm", _fact(read, caps[0]))
    if len({r.value for r in arches}) == 1:
        facts.set("gpu.arch", _fact(arches[0].value, arches[0]))


def _runtime(out: HostFacts, samples: list[Sample]) -> None:
    facts = out.facts
    states = [_state(s) for s in samples]
    loaded = [s for s, st in zip(samples, states, strict=True) if st == "load"]
    idle = [s for s, st in zip(samples, states, strict=True) if st == "idle"]
    per_gpu = max(Counter(s.gpu for s in samples).values())
    facts.set("runtime.samples", _fact(per_gpu, None, f"{len(samples)} reading(s) of {len(out.gpus)} GPU(s)"))
    if any(st != "unknown" for st in states):
        facts.set("runtime.load_seen", _fact(bool(loaded), (loaded or idle)[0].values.get("reason.gpu_idle")))
    if idle or loaded:
        all_idle = not loaded and len(idle) == len(samples)
        first = (idle or loaded)[0]
        facts.set("runtime.gpu_idle", _fact(all_idle, first.values.get("reason.gpu_idle")
                                            or first.values.get("reasons_active")))
    for key, reason in LOAD_ONLY.items():
        active = [s for s in samples if s.reason(reason) is True]
        if active:
            note = _where(active, samples)
            facts.set(key, _fact(True, _reading(active[0], reason), note))
        elif any(s.reason(reason) is False for s in loaded):
            facts.set(key, _fact(False, _reading(loaded[0], reason), f"not active in {len(loaded)} sample(s) "
                                                                     "under load"))
    if not loaded and idle:
        out.notes.append("every sample shows the GPU idle (GPU Idle active): conditions that appear only under load "
                         "(SW Power Cap, HW Slowdown, thermal slowdowns, HW Power Brake) cannot be seen in it; probe "
                         "again while the GPU serves, with --duration to sample a window")
    active_names = sorted({r for s in samples for r in _reasons() if s.reason(r) is True})
    if any(s.get("reasons_active") is not None or any(s.reason(r) is not None for r in _reasons()) for s in samples):
        facts.set("runtime.clock_event_reasons", _fact(", ".join(active_names) or "none", None))
    figures = loaded or samples
    _clocks(out, figures, idle)
    _power(facts, figures)
    _highest(facts, "runtime.temperature_c", samples, "temperature")
    _highest(facts, "runtime.ecc_uncorrectable", samples, "ecc_uncorrectable")
    _highest(facts, "runtime.retired_pages", samples, "retired_pages")
    pending = [s.values["remapped_pending"] for s in samples if "remapped_pending" in s.values]
    if pending:
        hit = next((r for r in pending if r.value is True), pending[0])
        facts.set("runtime.remapped_rows_pending", _fact(hit.value, hit))


def _reasons() -> tuple[str, ...]:
    from relialint.probe.reading import REASON_BITS

    return tuple(REASON_BITS)


def _reading(sample: Sample, reason: str) -> Reading | None:
    return sample.values.get(f"reason.{reason}") or sample.values.get("reasons_active")


def _where(active: list[Sample], samples: list[Sample]) -> str:
    gpus = sorted({s.index for s in active})
    return f"active on GPU {', '.join(map(str, gpus))} in {len(active)} of {len(samples)} sample(s)"


def _clocks(out: HostFacts, figures: list[Sample], idle: list[Sample]) -> None:
    facts = out.facts
    clocks = [s.values["sm_clock"] for s in figures if isinstance(s.get("sm_clock"), int)]
    limits = [s.values["sm_clock_max"] for s in figures if isinstance(s.get("sm_clock_max"), int)]
    if clocks:
        low, high = min(int(r.value) for r in clocks), max(int(r.value) for r in clocks)
        facts.set("runtime.sm_clock_mhz", _fact(str(low) if low == high else f"{low}-{high}", clocks[0]))
    if limits:
        facts.set("runtime.sm_clock_max_mhz", _fact(max(int(r.value) for r in limits), limits[0]))
    ratios = [int(s.values["sm_clock"].value) / int(s.values["sm_clock_max"].value) for s in figures
              if isinstance(s.get("sm_clock"), int) and isinstance(s.get("sm_clock_max"), int)
              and int(s.values["sm_clock_max"].value) > 0]
    if ratios:
        facts.set("runtime.sm_clock_ratio", _fact(round(min(ratios), 3), clocks[0] if clocks else None,
                                                  "lowest SM clock over its maximum"))
    apps = [s.values["app_clock"] for s in figures if isinstance(s.get("app_clock"), int)]
    if apps:
        facts.set("runtime.app_clock_mhz", _fact(int(apps[0].value), apps[0]))
    parked = [s for s in idle if isinstance(s.get("sm_clock"), int) and isinstance(s.get("sm_clock_max"), int)
              and int(s.values["sm_clock_max"].value) > 0
              and int(s.values["sm_clock"].value) < PARKED_BELOW * int(s.values["sm_clock_max"].value)]
    if parked:
        at = min(parked, key=lambda p: int(p.values["sm_clock"].value))
        clock = at.values["sm_clock"]
        facts.set("runtime.idle_sm_clock_mhz", _fact(int(clock.value), clock))
        facts.set("runtime.clocks_locked", _fact(False, clock, f"idle SM clock {clock.value} of "
                                                 f"{at.get('sm_clock_max')} MHz: parked, so not locked at a working "
                                                 "clock"))


def _power(facts: FactSet, figures: list[Sample]) -> None:
    draws = [s.values["power_draw"] for s in figures if isinstance(s.get("power_draw"), int | float)]
    if draws:
        values = [float(r.value) for r in draws]
        try:
            mean = math.fsum(values) / len(values)
        except OverflowError:  # finite readings whose sum is not: each share is finite, and so is their sum
            mean = math.fsum(v / len(values) for v in values)
        facts.set("runtime.power_draw_w", _fact(round(mean, 1), draws[0],
                                                f"mean of {len(draws)} reading(s)" if len(draws) > 1 else None))
    limits = [s.values["power_limit"] for s in figures if isinstance(s.get("power_limit"), int | float)]
    if limits:
        facts.set("runtime.power_limit_w", _fact(float(limits[0].value), limits[0]))
    defaults = [s.values["power_default_limit"] for s in figures
                if isinstance(s.get("power_default_limit"), int | float)]
    if defaults:
        facts.set("runtime.power_default_limit_w", _fact(float(defaults[0].value), defaults[0]))


def _highest(facts: FactSet, key: str, samples: list[Sample], name: str) -> None:
    readings = [s.values[name] for s in samples if isinstance(s.get(name), int | float)
                and not isinstance(s.get(name), bool)]
    if readings:
        top = max(readings, key=lambda r: float(r.value))
        facts.set(key, _fact(top.value, top))
