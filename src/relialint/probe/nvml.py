"""The live host through NVML (``nvidia-ml-py``, module ``pynvml``; ``pip install relialint[probe]``).

Imported only by ``relialint probe`` without capture files, so the linter never loads it. Static values (name,
compute capability, memory, driver, CUDA, Confidential Computing, ECC) are read once; the counters (clock event
reasons, clocks, power, temperature, utilisation) once per sample, ``interval`` seconds apart for ``duration``
seconds. A call the GPU does not support leaves its value unknown.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from relialint.base.errors import RelialintError
from relialint.probe.reading import Capture, Reading, Sample
from relialint.readers.located import ReadError

SOURCE = "nvml"


class NvmlUnavailable(RelialintError, RuntimeError):
    """NVML cannot be used here: the binding is not installed, or the driver library does not load."""


def load() -> Any:
    try:
        import pynvml
    except ImportError as exc:
        raise NvmlUnavailable("NVML is not available: install the probe extra (pip install 'relialint[probe]') "
                              "or give captures with --from-nvidia-smi FILE") from exc
    try:
        pynvml.nvmlInit()
    except Exception as exc:  # NVMLError_LibraryNotFound, DriverNotLoaded, ...
        raise NvmlUnavailable(f"NVML does not start on this host ({exc}); give captures with --from-nvidia-smi "
                              "FILE") from exc
    return pynvml


def _try(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except Exception:  # NVMLError_NotSupported and friends: the value stays unknown
        return None


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value.decode() if isinstance(value, bytes) else str(value)


def read(duration: float = 0.0, interval: float = 1.0, nvml: Any = None,
         sleep: Callable[[float], None] = time.sleep) -> Capture:
    """Sample every GPU of the host; ``nvml`` is the binding (``load()`` when ``None``)."""
    nv = nvml if nvml is not None else load()
    capture = Capture(SOURCE, interval_s=interval if duration > 0 else None)
    try:
        count = int(nv.nvmlDeviceGetCount())
        host: dict[str, Any] = {
            "driver": _text(_try(nv.nvmlSystemGetDriverVersion)),
            "cuda": _cuda(_try(nv.nvmlSystemGetCudaDriverVersion_v2) or _try(nv.nvmlSystemGetCudaDriverVersion)),
            "cc_mode": _cc(_try(nv.nvmlSystemGetConfComputeState)),
        }
        for name, value in host.items():
            if value is not None:
                capture.host[name] = Reading(value, SOURCE)
        handles = [nv.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
        static = [_static(nv, h) for h in handles]
        rounds = max(1, int(duration / interval) + 1) if duration > 0 and interval > 0 else 1
        for n in range(rounds):
            if n:
                sleep(interval)
            for index, handle in enumerate(handles):
                sample = Sample(gpu=str(static[index].get("uuid") or index), index=index, path=SOURCE)
                for name, value in static[index].items():
                    sample.put(name, value)
                for name, value in _counters(nv, handle).items():
                    sample.put(name, value)
                capture.samples.append(sample)
    except Exception as exc:
        capture.errors.append(ReadError(SOURCE, 1, 1, f"NVML: {exc}"))
    finally:
        _try(nv.nvmlShutdown)
    if not capture.samples and not capture.errors:
        capture.errors.append(ReadError(SOURCE, 1, 1, "NVML sees no GPU on this host"))
    return capture


def _cuda(raw: Any) -> str | None:
    if not isinstance(raw, int):
        return None
    return f"{raw // 1000}.{(raw % 1000) // 10}"


def _cc(state: Any) -> bool | None:
    feature = getattr(state, "ccFeature", None)
    return bool(feature) if isinstance(feature, int) else None


def _static(nv: Any, handle: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"vendor": "nvidia", "name": _text(_try(lambda: nv.nvmlDeviceGetName(handle))),
                           "uuid": _text(_try(lambda: nv.nvmlDeviceGetUUID(handle)))}
    cap = _try(lambda: nv.nvmlDeviceGetCudaComputeCapability(handle))
    if isinstance(cap, tuple | list) and len(cap) == 2:
        out["compute_cap"] = f"{cap[0]}.{cap[1]}"
    memory = _try(lambda: nv.nvmlDeviceGetMemoryInfo(handle))
    if memory is not None and isinstance(getattr(memory, "total", None), int):
        out["memory_total_mib"] = memory.total // (1024 * 1024)
    out["sm_clock_max"] = _try(lambda: nv.nvmlDeviceGetMaxClockInfo(handle, nv.NVML_CLOCK_SM))
    out["app_clock"] = _try(lambda: nv.nvmlDeviceGetApplicationsClock(handle, nv.NVML_CLOCK_GRAPHICS))
    default = _try(lambda: nv.nvmlDeviceGetPowerManagementDefaultLimit(handle))
    out["power_default_limit"] = default / 1000 if isinstance(default, int) else None
    ecc = _try(lambda: nv.nvmlDeviceGetEccMode(handle))
    if isinstance(ecc, tuple | list) and ecc:
        out["ecc_mode"] = bool(ecc[0])
        if ecc[0]:
            out["ecc_uncorrectable"] = _try(lambda: nv.nvmlDeviceGetTotalEccErrors(
                handle, nv.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, nv.NVML_AGGREGATE_ECC))
    pages = [_try(lambda c=cause: nv.nvmlDeviceGetRetiredPages(handle, c))  # type: ignore[misc]
             for cause in (nv.NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS,
                           nv.NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR)]
    if all(isinstance(p, list) for p in pages):
        out["retired_pages"] = sum(len(p) for p in pages)
    return {k: v for k, v in out.items() if v is not None}


def _counters(nv: Any, handle: Any) -> dict[str, Any]:
    reasons = _try(lambda: nv.nvmlDeviceGetCurrentClocksEventReasons(handle))
    if reasons is None:
        reasons = _try(lambda: nv.nvmlDeviceGetCurrentClocksThrottleReasons(handle))
    power = _try(lambda: nv.nvmlDeviceGetPowerUsage(handle))
    limit = _try(lambda: nv.nvmlDeviceGetEnforcedPowerLimit(handle))
    utilization = _try(lambda: nv.nvmlDeviceGetUtilizationRates(handle))
    out: dict[str, Any] = {
        "reasons_active": reasons if isinstance(reasons, int) else None,
        "sm_clock": _try(lambda: nv.nvmlDeviceGetClockInfo(handle, nv.NVML_CLOCK_SM)),
        "power_draw": power / 1000 if isinstance(power, int) else None,
        "power_limit": limit / 1000 if isinstance(limit, int) else None,
        "temperature": _try(lambda: nv.nvmlDeviceGetTemperature(handle, nv.NVML_TEMPERATURE_GPU)),
        "utilization": getattr(utilization, "gpu", None),
    }
    return {k: v for k, v in out.items() if v is not None}
