"""The GPU catalogue: the names people write resolve, unknown names name the closest entries."""

from __future__ import annotations

import json

import pytest

from relialint.core import hardware
from relialint.core.versions import parse_sm
from tests.conftest import H200


@pytest.mark.parametrize(("name", "model", "sm", "fp8", "fp4"), [
    ("H100", "H100", "9.0", True, False),
    ("H100 SXM", "H100", "9.0", True, False),
    ("NVIDIA H100 80GB HBM3", "H100", "9.0", True, False),
    ("NVIDIA-H100-80GB-HBM3", "H100", "9.0", True, False),
    ("nvidia-h100-80gb", "H100", "9.0", True, False),
    ("RTX 4090", "RTX 4090", "8.9", True, False),
    ("V100", "V100", "7.0", False, False),
    ("A800", "A800", "8.0", False, False),
    ("B200", "B200", "10.0", True, True),
    ("B300", "B300", "10.3", True, True),
    ("DGX Spark", "GB10", "12.1", True, True),
    ("GB10", "GB10", "12.1", True, True),
])
def test_nvidia_names(name: str, model: str, sm: str, fp8: bool, fp4: bool) -> None:
    gpu = hardware.resolve(name)
    assert (gpu.name, gpu.vendor, gpu.sm, gpu.native_fp8, gpu.native_fp4) == (model, "nvidia", parse_sm(sm), fp8, fp4)


@pytest.mark.parametrize(("name", "sm"), [("sm_90", "9.0"), ("sm90", "9.0"), ("9.0", "9.0"), ("sm_121a", "12.1"),
                                          ("12.1", "12.1"), ("sm_100", "10.0")])
def test_compute_capabilities(name: str, sm: str) -> None:
    gpu = hardware.resolve(name)
    assert gpu.sm == parse_sm(sm)
    assert gpu.vendor == "nvidia"
    assert gpu.native_fp4 == (parse_sm(sm) >= parse_sm("10.0"))


@pytest.mark.parametrize(("name", "model", "arch"), [
    ("gfx1151", "Strix Halo", "gfx1151"),
    ("Strix Halo", "Strix Halo", "gfx1151"),
    ("R9700", "Radeon AI PRO R9700", "gfx1201"),
    ("RX 7900 XTX", "RX 7900 XTX", "gfx1100"),
    ("MI300X", "MI300X", "gfx942"),
])
def test_amd_names(name: str, model: str, arch: str) -> None:
    gpu = hardware.resolve(name)
    assert (gpu.name, gpu.vendor, gpu.arch, gpu.native_fp8, gpu.native_fp4) == (model, "amd", arch, None, None)


def test_bare_gfx_target_shared_by_several_products() -> None:
    gpu = hardware.resolve("gfx1100")
    assert (gpu.vendor, gpu.arch) == ("amd", "gfx1100")
    assert gpu.facts() == {"gpu.vendor": "amd", "gpu.arch": "gfx1100", "gpu.sm": None, "gpu.cc_capable": False}


def test_unknown_name_names_the_closest() -> None:
    with pytest.raises(hardware.UnknownGpu) as info:
        hardware.resolve("H1000")
    assert info.value.closest == ["H100", "H100 80GB", "V100"]


def test_catalogue_covers_the_reference_table() -> None:
    names = {g.name for g in hardware.catalogue()}
    for expected in ("V100", "T4", "A100", "A800", "L4", "L40S", "H100", "H200", "H20", "B200", "GB200", "B300",
                     "RTX 5090", "GB10", "MI300X", "MI355X", "Strix Halo", "Radeon AI PRO R9700"):
        assert expected in names


def test_h200_fixture_compute_capability() -> None:
    """The real H200 capture says compute_cap 9.0; the catalogue agrees."""
    data = json.loads((H200 / "nvml.json").read_text())
    assert (data["name"], data["cc"]) == ("NVIDIA H200", [9, 0])
    gpu = hardware.resolve(data["name"])
    assert gpu.name == "H200"
    assert gpu.sm == parse_sm(".".join(str(part) for part in data["cc"])) == parse_sm("9.0")


@pytest.mark.parametrize(("name", "model", "vendor", "sm", "arch", "memory", "cc"), [
    ("NVIDIA GeForce RTX 5070 Ti", "RTX 5070 Ti", "nvidia", "12.0", None, 16, False),
    ("NVIDIA GeForce RTX 3080", "RTX 3080", "nvidia", "8.6", None, None, False),
    ("NVIDIA GeForce RTX 4080", "RTX 4080", "nvidia", "8.9", None, 16, False),
    ("GeForce RTX 4070", "RTX 4070", "nvidia", "8.9", None, None, False),
    ("RTX 4060 Ti", "RTX 4060", "nvidia", "8.9", None, None, False),
    ("NVIDIA GeForce RTX 5060", "RTX 5060", "nvidia", "12.0", None, None, False),
    ("NVIDIA RTX A4000", "RTX A4000", "nvidia", "8.6", None, 16, False),
    ("NVIDIA RTX A5000", "RTX A5000", "nvidia", "8.6", None, 24, False),
    ("NVIDIA RTX 4000 Ada Generation", "RTX 4000 Ada", "nvidia", "8.9", None, 20, False),
    ("NVIDIA L20", "L20", "nvidia", "8.9", None, 48, False),
    ("NVIDIA H800", "H800", "nvidia", "9.0", None, 80, True),
    ("H100 NVL", "H100", "nvidia", "9.0", None, None, True),
    ("H200", "H200", "nvidia", "9.0", None, 141, True),
    ("B300", "B300", "nvidia", "10.3", None, None, True),
    ("RTX PRO 6000", "RTX PRO 6000 Blackwell", "nvidia", "12.0", None, None, None),
    ("A100", "A100", "nvidia", "8.0", None, None, False),
    ("Jetson Orin Nano", "Jetson Orin Nano", "nvidia", "8.7", None, None, False),
    ("Jetson AGX Thor", "Jetson Thor", "nvidia", "11.0", None, None, None),
    ("MI300A", "MI300A", "amd", None, "gfx942", 128, False),
    ("MI308X", "MI308X", "amd", None, "gfx942", None, False),
    ("RX 6900 XT", "RX 6900 XT", "amd", None, "gfx1030", 16, False),
    ("Intel Arc A770", "Arc A770", "intel", None, None, None, False),
    ("Intel(R) Arc(TM) B580 Graphics", "Arc B580", "intel", None, None, 12, False),
    ("Intel Data Center GPU Max 1550", "Data Center GPU Max 1550", "intel", None, None, 128, False),
    ("Max 1100", "Data Center GPU Max 1100", "intel", None, None, 48, False),
])
def test_new_rows(name: str, model: str, vendor: str, sm: str | None, arch: str | None, memory: int | None,
                  cc: bool | None) -> None:
    gpu = hardware.resolve(name)
    assert (gpu.name, gpu.vendor, gpu.sm, gpu.arch, gpu.memory_gb, gpu.cc_capable) == (
        model, vendor, parse_sm(sm) if sm else None, arch, memory, cc)


def test_facts_carry_memory_and_cc() -> None:
    facts = hardware.resolve("H800").facts()
    assert (facts["gpu.memory_gb"], facts["gpu.cc_capable"]) == (80, True)
    assert "gpu.cc_capable" not in hardware.resolve("RTX PRO 6000").facts()
    assert "gpu.memory_gb" not in hardware.resolve("A100").facts()
    intel = hardware.resolve("Arc B580").facts()
    assert intel == {"gpu.vendor": "intel", "gpu.model": "Arc B580", "gpu.sm": None, "gpu.arch": None,
                     "gpu.memory_gb": 12, "gpu.cc_capable": False}


def test_bare_compute_capability_cc() -> None:
    assert hardware.resolve("sm_86").cc_capable is False
    assert hardware.resolve("sm_90").cc_capable is None


def test_rows_is_every_catalogue_row() -> None:
    rows = hardware.rows()
    assert rows == list(hardware.catalogue())
    assert len({g.name for g in rows}) == len(rows)
    assert {g.vendor for g in rows} == {"nvidia", "amd", "intel"}
    rows.clear()
    assert hardware.rows()
