"""AMD captures (``amd-smi static|metric --json|--csv``, ``rocm-smi --json``): architecture, count, clocks."""

from __future__ import annotations

from pathlib import Path

import pytest

from relialint.core.facts import json_value
from relialint.run.probing import ProbeOptions, probe
from tests.cli_run import invoke
from tests.conftest import ROOT

PROBE = ROOT / "tests" / "fixtures" / "probe"


def _facts(*names: str) -> dict[str, tuple[object, int | None, int | None]]:
    host, run = probe(ProbeOptions(files=[PROBE / n for n in names]))
    assert run.errors == []
    return {k: (json_value(f.value), f.line, f.column) for k, f in host.facts.items() if f.origin == "probe"}


def test_amd_smi_static() -> None:
    assert _facts("amd-smi-static.json") == {
        "gpu.arch": ("gfx942", 9, 17), "gpu.cc_capable": (False, 6, 17), "gpu.count": (2, None, None),
        "gpu.memory_gb": (192, 6, 17), "gpu.memory_mib": (196592, 13, 17),
        "gpu.model": ("MI300X", 6, 17), "gpu.sm": (None, 6, 17), "gpu.vendor": ("amd", 6, 17),
        "host.driver_version": ("6.10.5", 15, 42), "runtime.samples": (1, None, None),
    }


@pytest.mark.parametrize("name", ["amd-smi-metric.json", "amd-smi-metric.csv"])
def test_amd_smi_metric(name: str) -> None:
    got = _facts(name)
    located = {k: v[0] for k, v in got.items()}
    assert located == {
        "gpu.count": 2, "gpu.vendor": "amd", "runtime.power_draw_w": 647.5, "runtime.power_limit_w": 750.0,
        "runtime.samples": 1, "runtime.sm_clock_max_mhz": 2100, "runtime.sm_clock_mhz": "1650-1700",
        "runtime.sm_clock_ratio": 0.786, "runtime.temperature_c": 73,
    }
    if name.endswith(".csv"):
        assert got["runtime.sm_clock_mhz"][1:] == (2, 14)
        assert got["runtime.temperature_c"][1:] == (3, 24)


def test_static_and_metric_together() -> None:
    got = {k: v[0] for k, v in _facts("amd-smi-static.json", "amd-smi-metric.json").items()}
    assert (got["gpu.model"], got["gpu.arch"], got["gpu.count"], got["runtime.sm_clock_mhz"]) == (
        "MI300X", "gfx942", 2, "1650-1700")


def test_rocm_smi() -> None:
    assert _facts("rocm-smi.json") == {
        "gpu.arch": ("gfx942", 6, 9), "gpu.cc_capable": (False, 3, 9), "gpu.count": (2, None, None),
        "gpu.memory_gb": (192, 3, 9), "gpu.model": ("MI300X", 3, 9),
        "gpu.sm": (None, 3, 9), "gpu.vendor": ("amd", 3, 9), "runtime.samples": (1, None, None),
        "runtime.sm_clock_mhz": ("131-132", 7, 9),
    }


def test_amd_facts_file_for_check(tmp_path: Path) -> None:
    facts = tmp_path / "mi300x.toml"
    result = invoke(["probe", "--from-nvidia-smi", str(PROBE / "amd-smi-static.json"), "--write-facts", str(facts)])
    assert result.exit_code == 0, result.output
    serve = tmp_path / "serve.sh"
    serve.write_text("vllm serve m --kv-cache-dtype fp8\n", encoding="utf-8")
    with_file = invoke(["check", str(serve), "--isolated", "--format", "json", "--facts", str(facts)]).output
    with_options = invoke(["check", str(serve), "--isolated", "--format", "json", "--gpu", "MI300X",
                           "--fact", "gpu.count=2", "--fact", "gpu.memory_mib=196592", "--fact",
                           "host.driver_version=6.10.5", "--fact", "runtime.samples=1",
                           "--fact", "gpu.arch=gfx942"]).output
    assert with_file == with_options
