"""``relialint probe``: exact facts with their origin and position from the real H200 captures, the runtime
findings with their figures, sampling over several captures and over NVML, and bad captures."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from relialint.core.facts import json_value
from relialint.run.probing import ProbeOptions, probe
from tests.cli_run import invoke
from tests.conftest import H200

LOAD, IDLE, XML, ENV = (H200 / "query-gpu-load.csv", H200 / "query-gpu-idle.csv", H200 / "nvidia-smi-q.xml",
                        H200 / "env.txt")


def _facts(files: list[Path]) -> dict[str, tuple[object, str, int | None, int | None]]:
    host, _ = probe(ProbeOptions(files=files))
    return {k: (json_value(f.value), f.origin, f.line, f.column) for k, f in host.facts.items()}


def _cli(*args: str) -> tuple[int, str]:
    result = invoke(list(args))
    return result.exit_code, result.output


def _findings(output: str) -> list[tuple[str, str, int, int, list[str]]]:
    data = json.loads(output)
    return [(f["code"], f["certainty"], f["line"], f["column"], f["missing_facts"]) for f in data["findings"]]


def test_load_capture_facts() -> None:
    assert _facts([LOAD]) == {
        "gpu.arch": (None, "probe", 2, 4),
        "gpu.cc_capable": (True, "probe", 2, 4),
        "gpu.count": (1, "probe", None, None),
        "gpu.memory_gb": (141, "probe", 2, 4),
        "gpu.memory_mib": (143771, "probe", 2, 319),
        "gpu.model": ("H200", "probe", 2, 4),
        "gpu.native_fp4": (False, "probe", 2, 4),
        "gpu.native_fp8": (True, "probe", 2, 4),
        "gpu.sm": ("9.0", "probe", 2, 77),
        "gpu.vendor": ("nvidia", "probe", 2, 4),
        "host.driver_version": ("580.159.04", "probe", 2, 82),
        "runtime.app_clock_mhz": (1980, "probe", 2, 197),
        "runtime.clock_event_reasons": ("sw_power_cap", "probe", None, None),
        "runtime.gpu_idle": (False, "probe", 2, 227),
        "runtime.hw_power_brake": (False, "probe", 2, 283),
        "runtime.hw_slowdown": (False, "probe", 2, 259),
        "runtime.hw_thermal_slowdown": (False, "probe", 2, 271),
        "runtime.load_seen": (True, "probe", 2, 227),
        "runtime.power_draw_w": (690.5, "probe", 2, 127),  # mean of the 13 rows: 690.507 W
        "runtime.power_limit_w": (700.0, "probe", 2, 147),
        "runtime.samples": (13, "probe", None, None),
        "runtime.sm_clock_max_mhz": (1980, "probe", 2, 167),
        "runtime.sm_clock_mhz": ("1425-1455", "probe", 2, 157),
        "runtime.sm_clock_ratio": (0.72, "probe", 2, 157),  # 1425 / 1980
        "runtime.sw_power_cap": (True, "probe", 2, 251),
        "runtime.sw_thermal_slowdown": (False, "probe", 2, 295),
        "runtime.temperature_c": (59, "probe", 6, 123),
    }


def test_idle_xml_and_conf_compute_facts() -> None:
    """``-q -x`` holds no compute capability and no CC state: the catalogue gives the first, ``conf-compute -f``
    (in env.txt) the second, and ``nvidia-smi --version`` the CUDA version."""
    assert _facts([XML, ENV]) == {
        "gpu.arch": (None, "probe", 9, 3),
        "gpu.cc_mode": (False, "probe", 9, 12),
        "gpu.cc_capable": (True, "probe", 9, 3),
        "gpu.count": (1, "probe", None, None),
        "gpu.ecc": (True, "probe", 168, 4),
        "gpu.memory_gb": (141, "probe", 9, 3),
        "gpu.memory_mib": (143771, "probe", 129, 4),
        "gpu.model": ("H200", "probe", 9, 3),
        "gpu.native_fp4": (False, "probe", 9, 3),
        "gpu.native_fp8": (True, "probe", 9, 3),
        "gpu.sm": ("9.0", "probe", 9, 3),
        "gpu.vendor": ("nvidia", "probe", 9, 3),
        "host.cuda_version": ("13.0", "probe", 7, 23),
        "host.driver_version": ("580.159.04", "probe", 6, 23),
        "runtime.app_clock_mhz": (1980, "probe", 275, 4),
        "runtime.clock_event_reasons": ("gpu_idle", "probe", None, None),
        "runtime.clocks_locked": (False, "probe", 270, 4),
        "runtime.ecc_uncorrectable": (0, "probe", 179, 4),
        "runtime.gpu_idle": (True, "probe", 110, 4),
        "runtime.idle_sm_clock_mhz": (345, "probe", 270, 4),
        "runtime.load_seen": (False, "probe", 110, 4),
        "runtime.power_default_limit_w": (700.0, "probe", 245, 4),
        "runtime.power_draw_w": (81.7, "probe", 241, 4),
        "runtime.power_limit_w": (700.0, "probe", 243, 4),
        "runtime.remapped_rows_pending": (False, "probe", 215, 4),
        "runtime.samples": (1, "probe", None, None),
        "runtime.sm_clock_max_mhz": (1980, "probe", 287, 4),
        "runtime.sm_clock_mhz": ("345", "probe", 270, 4),
        "runtime.sm_clock_ratio": (0.174, "probe", 270, 4),
        "runtime.temperature_c": (34, "probe", 226, 4),
    }


def test_load_capture_reports_the_software_power_cap_on_a_benchmark_host_with_its_figures() -> None:
    """SW Power Cap under sustained load is the normal state of a power-bound GPU: RL202 is definite only on a host
    stated to run benchmarks, and possible (shown: the reading points at it) otherwise; neither fails the run then."""
    code, out = _cli("probe", "--from-nvidia-smi", str(LOAD), "--format", "json")
    assert code == 0
    assert _findings(out) == [
        ("RL203", "possible", 1, 1, ["host.psu_offline", "host.system"]),
        ("RL205", "possible", 1, 1, ["host.runs_benchmarks", "runtime.clocks_locked"]),
        ("RL202", "possible", 2, 251, ["host.runs_benchmarks"]),
    ]
    assert json.loads(out)["findings"][2]["shown"] is True
    code, out = _cli("probe", "--from-nvidia-smi", str(LOAD), "--fact", "host.runs_benchmarks=true", "--format",
                     "json")
    assert code == 1
    assert _findings(out) == [
        ("RL203", "possible", 1, 1, ["host.psu_offline", "host.system"]),
        ("RL205", "possible", 1, 1, ["runtime.clocks_locked"]),
        ("RL202", "definite", 2, 251, []),
    ]
    rl202 = json.loads(out)["findings"][2]
    assert rl202["message"].startswith(
        "SW Power Cap is active under load on this benchmark host: 690.5 W of a 700.0 W limit, SM clock 1425-1455 "
        "of 1980 MHz;")
    assert rl202["path"] == str(LOAD)


def test_idle_snapshot_says_it_cannot_show_load_only_conditions() -> None:
    bench = ("--fact", "host.runs_benchmarks=true")
    code, out = _cli("probe", "--from-nvidia-smi", str(IDLE), *bench, "--format", "json")
    assert code == 1
    assert _findings(out) == [
        ("RL201", "possible", 1, 1, ["runtime.hw_thermal_slowdown"]),
        ("RL202", "possible", 1, 1, ["runtime.sw_power_cap"]),
        ("RL203", "possible", 1, 1, ["host.psu_offline", "host.system"]),
        ("RL204", "possible", 1, 1, ["runtime.hw_power_brake"]),
        ("RL205", "definite", 2, 156, []),
    ]
    data = json.loads(out)
    assert data["findings"][4]["message"].startswith("GPU clocks are free-running on this benchmark host: idle, the "
                                                     "SM clock is parked at 345 of 1980 MHz")
    assert "an idle snapshot cannot show a load-only condition" in data["findings"][1]["message"]
    assert any(n.startswith("every sample shows the GPU idle") for n in data["notes"])
    # the load-only findings alone do not fail the run; --strict makes them count
    assert _cli("probe", "--from-nvidia-smi", str(IDLE), *bench, "--ignore", "RL205")[0] == 0
    assert _cli("probe", "--from-nvidia-smi", str(IDLE), *bench, "--ignore", "RL205", "--strict")[0] == 1
    # parked clocks are the normal state of a serving host: without the host's role RL205 is possible only
    code, out = _cli("probe", "--from-nvidia-smi", str(IDLE), "--format", "json")
    assert code == 0 and _findings(out)[4] == ("RL205", "possible", 2, 156, ["host.runs_benchmarks"])
    code, out = _cli("probe", "--from-nvidia-smi", str(IDLE), "--fact", "host.runs_benchmarks=false", "--format",
                     "json")
    assert code == 0 and [f[0] for f in _findings(out)] == ["RL201", "RL203", "RL204"]


def test_captures_in_order_count_as_samples() -> None:
    host, run = probe(ProbeOptions(files=[IDLE, LOAD], facts={"host.runs_benchmarks": "true"}))
    facts = host.facts
    assert [(k, json_value(facts.facts[k].value)) for k in ("runtime.samples", "runtime.load_seen",
                                                            "runtime.sw_power_cap", "runtime.clocks_locked",
                                                            "runtime.sm_clock_mhz", "runtime.gpu_idle")] == [
        ("runtime.samples", 14), ("runtime.load_seen", True), ("runtime.sw_power_cap", True),
        ("runtime.clocks_locked", False), ("runtime.sm_clock_mhz", "1425-1455"), ("runtime.gpu_idle", False)]
    assert facts.facts["runtime.sw_power_cap"].note == "active on GPU 0 in 13 of 14 sample(s)"
    assert [(f.code, f.certainty, f.path, f.line, f.column) for f in run.findings] == [
        ("RL203", "possible", str(IDLE), 1, 1), ("RL205", "definite", str(IDLE), 2, 156),
        ("RL202", "definite", str(LOAD), 2, 251)]
    assert run.failing == 2


def test_probe_fact_fills_what_no_counter_reads() -> None:
    code, out = _cli("probe", "--from-nvidia-smi", str(LOAD), "--fact", "runtime.clocks_locked=true", "--fact",
                     "host.runs_benchmarks=true", "--format", "json")
    assert (code, _findings(out)) == (1, [("RL203", "possible", 1, 1, ["host.psu_offline", "host.system"]),
                                          ("RL202", "definite", 2, 251, [])])
    code, out = _cli("probe", "--from-nvidia-smi", str(IDLE), "--fact", "bogus.key=1")
    assert (code, out) == (2, "relialint: error: unknown fact 'bogus.key'; see `relialint facts --help` or "
                              "docs/reference/facts.md\n")


def test_text_and_sarif_formats() -> None:
    bench = ("--fact", "host.runs_benchmarks=true")
    code, out = _cli("probe", "--from-nvidia-smi", str(LOAD), *bench, "--select", "RL202")
    assert code == 1
    assert out.splitlines()[0].startswith(f"{LOAD}:2:251: RL202 [major] SW Power Cap is active under load")
    assert out.splitlines()[-1] == "1 file, 1 deployment: 1 definite, 0 possible, 0 errors"
    code, out = _cli("probe", "--from-nvidia-smi", str(LOAD), *bench, "--format", "sarif")
    results = json.loads(out)["runs"][0]["results"]
    assert code == 1 and [r["ruleId"] for r in results] == ["RL203", "RL205", "RL202"]


# -- NVML ----------------------------------------------------------------------------------------------------------


def _fake_nvml(readings: list[dict[str, Any]]) -> types.ModuleType:
    """A stand-in for ``pynvml`` that answers from the H200 capture ``nvml.json``, one reading per sample."""
    capture = json.loads((H200 / "nvml.json").read_text())
    nv = types.ModuleType("pynvml")
    state = {"calls": 0, "shutdown": 0}
    nv.NVML_CLOCK_SM, nv.NVML_CLOCK_GRAPHICS, nv.NVML_TEMPERATURE_GPU = 1, 0, 0  # type: ignore[attr-defined]
    nv.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, nv.NVML_AGGREGATE_ECC = 1, 1  # type: ignore[attr-defined]
    nv.NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0  # type: ignore[attr-defined]
    nv.NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1  # type: ignore[attr-defined]

    def unsupported(*_: object) -> object:
        raise RuntimeError("Not Supported")

    def reading() -> dict[str, Any]:
        return readings[min(state["calls"], len(readings) - 1)]

    def temperature(_h: object, _sensor: object) -> int:
        value = int(reading()["temp_c"])  # the last counter of a sample: the next call reads the next sample
        state["calls"] += 1
        return value

    members: dict[str, Any] = {
        "nvmlInit": lambda: None,
        "nvmlShutdown": lambda: state.__setitem__("shutdown", state["shutdown"] + 1),
        "nvmlDeviceGetCount": lambda: 1,
        "nvmlDeviceGetHandleByIndex": lambda i: f"h{i}",
        "nvmlSystemGetDriverVersion": lambda: capture["driver"],
        "nvmlSystemGetCudaDriverVersion_v2": lambda: 13000,
        "nvmlSystemGetConfComputeState": lambda: types.SimpleNamespace(**capture["cc_state"]),
        "nvmlDeviceGetName": lambda h: capture["name"],
        "nvmlDeviceGetUUID": lambda h: "GPU-645196a3-2ac0-786b-d523-b8dc6bd33af9",
        "nvmlDeviceGetCudaComputeCapability": lambda h: tuple(capture["cc"]),
        "nvmlDeviceGetMemoryInfo": unsupported,
        "nvmlDeviceGetMaxClockInfo": lambda h, t: capture["sm_clock_max"],
        "nvmlDeviceGetApplicationsClock": unsupported,
        "nvmlDeviceGetPowerManagementDefaultLimit": unsupported,
        "nvmlDeviceGetEccMode": unsupported,
        "nvmlDeviceGetRetiredPages": unsupported,
        "nvmlDeviceGetCurrentClocksEventReasons": lambda h: reading()["clocks_event_reasons"],
        "nvmlDeviceGetClockInfo": lambda h, t: reading()["sm_clock"],
        "nvmlDeviceGetPowerUsage": lambda h: reading()["power_mw"],
        "nvmlDeviceGetEnforcedPowerLimit": lambda h: capture["power_limit_mw"],
        "nvmlDeviceGetTemperature": temperature,
        "nvmlDeviceGetUtilizationRates": unsupported,
    }
    for name, member in members.items():
        setattr(nv, name, member)
    nv.state = state  # type: ignore[attr-defined]
    return nv


def test_nvml_snapshot_of_the_idle_h200() -> None:
    capture = json.loads((H200 / "nvml.json").read_text())
    nv = _fake_nvml([capture])
    host, run = probe(ProbeOptions(facts={"host.runs_benchmarks": "true"}), nvml=nv)
    got = {k: (json_value(f.value), f.origin, f.path) for k, f in host.facts.items() if not k.startswith("runtime.")}
    assert {k: v for k, v in got.items() if k not in ("host.os", "host.runs_benchmarks")} == {
        "gpu.arch": (None, "probe", "nvml"), "gpu.cc_capable": (True, "probe", "nvml"),
        "gpu.cc_mode": (False, "probe", "nvml"), "gpu.count": (1, "probe", None),
        "gpu.memory_gb": (141, "probe", "nvml"),
        "gpu.model": ("H200", "probe", "nvml"), "gpu.native_fp4": (False, "probe", "nvml"),
        "gpu.native_fp8": (True, "probe", "nvml"), "gpu.sm": ("9.0", "probe", "nvml"),
        "gpu.vendor": ("nvidia", "probe", "nvml"), "host.cuda_version": ("13.0", "probe", "nvml"),
        "host.driver_version": ("580.159.04", "probe", "nvml")}
    assert json_value(host.facts.facts["runtime.clocks_locked"].value) is False
    assert json_value(host.facts.facts["runtime.power_draw_w"].value) == 81.8  # 81762 mW
    assert [(f.code, f.certainty) for f in run.findings] == [
        ("RL201", "possible"), ("RL202", "possible"), ("RL203", "possible"), ("RL204", "possible"),
        ("RL205", "definite")]
    assert nv.state["shutdown"] == 1  # type: ignore[attr-defined]


def test_nvml_sampling_over_a_window() -> None:
    capture = json.loads((H200 / "nvml.json").read_text())
    loaded = {**capture, "clocks_event_reasons": 0x4, "sm_clock": 1440, "power_mw": 690530, "temp_c": 58}
    nv = _fake_nvml([capture, loaded, loaded])
    slept: list[float] = []
    from relialint.probe import nvml

    got = nvml.read(duration=4.0, interval=2.0, nvml=nv, sleep=slept.append)
    assert slept == [2.0, 2.0] and len(got.samples) == 3 and got.interval_s == 2.0
    from relialint.probe.host import build

    facts = build([got]).facts
    assert [(k, json_value(facts.facts[k].value)) for k in ("runtime.samples", "runtime.sw_power_cap",
                                                            "runtime.clocks_locked", "runtime.sm_clock_mhz",
                                                            "runtime.power_draw_w")] == [
        ("runtime.samples", 3), ("runtime.sw_power_cap", True), ("runtime.clocks_locked", False),
        ("runtime.sm_clock_mhz", "1440"), ("runtime.power_draw_w", 690.5)]


def test_without_nvml_or_files_the_probe_says_how(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)
    code, out = _cli("probe")
    assert code == 2
    assert "install the probe extra (pip install 'relialint[probe]') or give captures with --from-nvidia-smi" in out


def test_duration_with_files_is_a_usage_error() -> None:
    code, out = _cli("probe", "--from-nvidia-smi", str(LOAD), "--duration", "10")
    assert code == 2
    assert out.splitlines()[-1] == ("relialint: error: --duration samples NVML on this host; with --from-nvidia-smi, "
                                    "give several captures in time order instead")


def test_the_linter_does_not_import_the_probe() -> None:
    import subprocess

    code = ("import sys, relialint.cli, relialint.run.lint; "
            "print(any(m.startswith(('relialint.probe', 'pynvml')) for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


# -- bad captures ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "content", "error"), [
    ("bad.xml", "<?xml version='1.0'?>\n<nvidia_smi_log>\n<gpu>\n</nvidia_smi_log>\n",
     "bad.xml:4:3: error: not well-formed XML: mismatched tag"),
    ("bomb.xml", "<?xml version='1.0'?>\n<!DOCTYPE nvidia_smi_log [\n<!ENTITY a \"aaaa\">\n]>\n"
                 "<nvidia_smi_log>&a;</nvidia_smi_log>\n", "bomb.xml:3:12: error: entity declarations are not read"),
    ("noheader.csv", "0, NVIDIA H200, 345 MHz\n", "noheader.csv:1:1: error: not a capture relialint reads"),
    ("short.csv", "index, name, clocks.current.sm [MHz]\n0, NVIDIA H200\n",
     "short.csv:2:1: error: 2 values for 3 fields"),
    ("empty.txt", "", "empty.txt:1:1: error: not a capture relialint reads"),
    ("amd.json", '{"gpu_data": [', "amd.json:1:15: error: not valid JSON"),
    ("deep.json", '{"gpu_data": ' + "[" * 100000, "deep.json:1:1: error: JSON nested too deeply"),
])
def test_bad_captures_are_located_errors(tmp_path: Path, name: str, content: str, error: str) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    code, out = _cli("probe", "--from-nvidia-smi", str(path))
    assert code == 2
    assert f"{tmp_path}/{error}" in out


def test_binary_capture(tmp_path: Path) -> None:
    path = tmp_path / "capture.bin"
    path.write_bytes(b"\x00\x01\x02")
    code, out = _cli("probe", "--from-nvidia-smi", str(path))
    assert code == 2 and f"{path}:1:1: error: binary file" in out


def test_what_the_text_view_shows(tmp_path: Path) -> None:
    """A possible finding is shown when a reading points at it (a reason seen active), like one a file points at in
    ``check``; an idle snapshot's load-only findings are counted, and listed with --show-possible."""
    _, out = _cli("probe", "--from-nvidia-smi", str(IDLE), "--format", "json")
    assert [(f["code"], f["shown"]) for f in json.loads(out)["findings"]] == [
        ("RL201", False), ("RL202", False), ("RL203", False), ("RL204", False), ("RL205", True)]
    _, out = _cli("probe", "--from-nvidia-smi", str(IDLE))
    assert [line.split(" ")[1] for line in out.splitlines() if ": RL" in line] == ["RL205"]
    assert out.splitlines()[-1].startswith("4 more possible findings that nothing in the files points at")
    _, out = _cli("probe", "--from-nvidia-smi", str(IDLE), "--show-possible")
    assert [line.split(" ")[1] for line in out.splitlines() if ": RL" in line] == [
        "RL201", "RL202", "RL203", "RL204", "RL205"]
    brake = tmp_path / "brake.csv"
    brake.write_text("index, name, clocks_event_reasons.gpu_idle, clocks_event_reasons.hw_power_brake_slowdown\n"
                     "0, NVIDIA H200, Not Active, Active\n", encoding="utf-8")
    code, out = _cli("probe", "--from-nvidia-smi", str(brake), "--format", "json")
    assert code == 1  # the power brake seen active (its column: the reading's) is definite; the rest need facts
    assert [f for f in _findings(out) if f[1] == "definite"] == [("RL204", "definite", 2, 29, [])]
    assert [(f["code"], f["certainty"], f["line"], f["column"], f["shown"]) for f in json.loads(out)["findings"]
            if f["code"] in ("RL203", "RL204")] == [("RL203", "possible", 1, 1, False),
                                                    ("RL204", "definite", 2, 29, True)]


def test_the_psu_record_fires_on_a_dgx_h100_h200_only(tmp_path: Path) -> None:
    """RL203 is about the DGX H100/H200's six PSUs in 4+2 redundancy: three offline on that system is definite,
    fewer is within the redundancy, and another system's PSU count says nothing about it."""
    capture = tmp_path / "q.csv"
    capture.write_text("index, name, clocks_event_reasons.gpu_idle\n0, NVIDIA H200, Active\n", encoding="utf-8")

    def rl203(*facts: str) -> list[tuple[str, str, list[str]]]:
        _, out = _cli("probe", "--from-nvidia-smi", str(capture), *[a for f in facts for a in ("--fact", f)],
                      "--format", "json", "--select", "RL203")
        return [(f["code"], f["certainty"], f["missing_facts"]) for f in json.loads(out)["findings"]]

    assert rl203("host.system=DGX H200", "host.psu_offline=3") == [("RL203", "definite", [])]
    assert rl203("host.system=DGXH100", "host.psu_offline=4") == [("RL203", "definite", [])]
    assert rl203("host.system=DGX H200", "host.psu_offline=2") == []
    assert rl203("host.system=HGX H200 8-GPU server", "host.psu_offline=3") == []
    assert rl203("host.system=DGX B200", "host.psu_offline=3") == []
    assert rl203("host.psu_offline=3") == [("RL203", "possible", ["host.system"])]
    assert rl203("host.system=DGX H100", "host.psu_degraded=true") == [("RL203", "possible", ["host.psu_offline"])]


def test_an_unknown_gpu_leaves_the_model_unknown_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "odd.csv"
    path.write_text("index, name, compute_cap\n0, Some Future GPU, banana\n", encoding="utf-8")
    host, run = probe(ProbeOptions(files=[path]))
    assert run.errors == []
    assert {k: json_value(f.value) for k, f in host.facts.items()} == {"gpu.count": 1, "gpu.vendor": "nvidia",
                                                                       "runtime.samples": 1}
    assert run.notes == ["GPU 'Some Future GPU' is not in the hardware catalogue; gpu.model is unknown",
                         f"{path}:2: 'banana' is neither a compute capability nor an AMD target"]
