"""Capture files to samples: each file is recognised by its content and read by the one reader of its format."""

from __future__ import annotations

from pathlib import Path

from relialint.disk import read_text
from relialint.probe.reading import Capture
from relialint.readers.located import ReadError

FORMATS = ("nvidia-smi-xml", "nvidia-smi-csv", "nvidia-smi-text", "amd-smi", "rocm-smi")


def read_capture(text: str, path: str) -> Capture:
    """One capture's text, whatever tool printed it."""
    from relialint.probe import amd, nvsmi_csv, nvsmi_text, nvsmi_xml

    if nvsmi_xml.looks_like(text):
        return nvsmi_xml.read(text, path)
    if amd.looks_like(text):
        return amd.read(text, path)
    if nvsmi_csv.looks_like(text):
        return nvsmi_csv.read(text, path)
    if nvsmi_text.looks_like(text):
        return nvsmi_text.read(text, path)
    capture = Capture("unknown")
    capture.errors.append(ReadError(path, 1, 1, "not a capture relialint reads (nvidia-smi -q -x, nvidia-smi "
                                    "--query-gpu --format=csv, nvidia-smi --version / conf-compute, amd-smi static or "
                                    "metric --json/--csv, rocm-smi --json)"))
    return capture


def read_file(path: Path, display: str | None = None) -> Capture:
    shown = display or str(path)
    text, error = read_text(path, shown)
    if error is not None or text is None:
        capture = Capture("unknown")
        capture.errors.append(error or ReadError(shown, 1, 1, "cannot read"))
        return capture
    return read_capture(text, shown)
