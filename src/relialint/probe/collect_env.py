"""The text ``vllm collect-env`` prints (``python -m vllm.collect_env``), which users attach to bug reports.

Its lines are ``Label : value`` (recent vLLM pads the label: ``vLLM Version                 : 0.11.0``; older
releases print ``vLLM Version: 0.6.3``). Read here: the vLLM version (a dev build's ``(git sha: ...)`` suffix is
dropped, ``N/A (dev)`` stays unknown), the GPUs (``GPU models and configuration``: ``GPU 0: NVIDIA H200`` lines from
``nvidia-smi -L``, or on ROCm the device name with its ``(gfx942:...)`` target), the NVIDIA driver version, the CUDA
runtime version, and the host OS from ``Python platform`` (``Linux-...``, ``Windows-...``, ``macOS-...``).
"""

from __future__ import annotations

import re

from relialint.probe.entries import Entry, FactsFile

_LINE = re.compile(r"^(?P<label>[A-Za-z][A-Za-z0-9 _/().+-]*?)\s*:\s?(?P<value>.*)$")
_GPU_LINE = re.compile(r"^\s*GPU (?P<index>\d+): (?P<name>.+?)\s*(?:\(UUID: [^)]*\))?\s*$")
_MISSING = {"", "n/a", "could not collect", "none", "no cuda"}


def looks_like(text: str) -> bool:
    return re.search(r"^vLLM Version\s*:", text, re.M) is not None or "Collecting environment information" in text


def read(text: str, path: str) -> FactsFile:
    out = FactsFile(path, "vllm collect-env")
    lines = text.splitlines()
    gpus: list[tuple[str, int, int]] = []
    for number, line in enumerate(lines, start=1):
        m = _LINE.match(line)
        if m is None:
            continue
        label, value = m.group("label").strip().lower(), m.group("value").strip()
        column = m.start("value") + 1
        if value.lower() in _MISSING and label != "gpu models and configuration":
            continue
        if label == "vllm version":
            version = value.split(" ", 1)[0]
            if version.lower() not in ("n/a", "dev"):
                out.entries.append(Entry("engine.version", version, number, column))
        elif label == "nvidia driver version":
            out.entries.append(Entry("host.driver_version", value, number, column))
        elif label == "cuda runtime version":
            out.entries.append(Entry("host.cuda_runtime_version", value, number, column))
        elif label == "python platform":
            os_name = {"linux": "linux", "windows": "windows", "macos": "macos", "darwin": "macos"}.get(
                value.split("-", 1)[0].lower())
            if os_name:
                out.entries.append(Entry("host.os", os_name, number, column))
        elif label == "gpu models and configuration":
            if value:
                gpus.extend(_gpus([value], number, column))
            else:  # several GPUs: on the following lines
                follow: list[int] = []
                for later in range(number, min(number + 1024, len(lines))):
                    if not lines[later].strip():
                        if follow:
                            break
                        continue
                    if _GPU_LINE.match(lines[later]) is None:
                        break
                    follow.append(later)
                gpus.extend(g for i in follow for g in _gpus([lines[i]], i + 1, 1))
    _gpu_entries(out, gpus)
    return out


def _gpus(values: list[str], line: int, column: int) -> list[tuple[str, int, int]]:
    found = []
    for value in values:
        m = _GPU_LINE.match(value)
        if m is not None:
            found.append((m.group("name"), line, column + m.start("name")))
        elif value.strip().lower() not in _MISSING:
            found.append((value.strip(), line, column))
    return found


def _gpu_entries(out: FactsFile, gpus: list[tuple[str, int, int]]) -> None:
    if not gpus:
        return
    names = {name for name, _, _ in gpus}
    name, line, column = gpus[0]
    if len(names) > 1:
        out.notes.append(f"{out.path}:{line}: the host mixes GPUs ({', '.join(sorted(names))}); no GPU is set")
    else:
        arch = re.search(r"\((gfx[0-9a-f]+)[^)]*\)", name)
        product = name.split(" (", 1)[0].strip()
        out.entries.append(Entry("gpu", product, line, column))
        if arch:
            out.entries.append(Entry("gpu.arch", arch.group(1), line, column + arch.start(1)))
    out.entries.append(Entry("gpu.count", str(len(gpus)), line, column))
