"""The GPU catalogue: the names people write resolve, unknown names name the closest entries."""

from __future__ import annotations

import pytest

from relialint import hardware
from relialint.versions import parse_sm


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
    assert gpu.facts() == {"gpu.vendor": "amd", "gpu.arch": "gfx1100", "gpu.sm": None}


def test_unknown_name_names_the_closest() -> None:
    with pytest.raises(hardware.UnknownGpu) as info:
        hardware.resolve("H1000")
    assert "H100" in info.value.closest


def test_catalogue_covers_the_reference_table() -> None:
    names = {g.name for g in hardware.catalogue()}
    for expected in ("V100", "T4", "A100", "A800", "L4", "L40S", "H100", "H200", "H20", "B200", "GB200", "B300",
                     "RTX 5090", "GB10", "MI300X", "MI355X", "Strix Halo", "Radeon AI PRO R9700"):
        assert expected in names


def test_h200_fixture_compute_capability(root) -> None:  # type: ignore[no-untyped-def]
    """The real H200 capture says compute_cap 9.0; the catalogue agrees."""
    from tests.conftest import SHARED

    capture = SHARED / "fixtures" / "gpu-telemetry" / "h200" / "nvml.json"
    if not capture.exists():
        pytest.skip("shared fixtures not present")
    import json

    data = json.loads(capture.read_text())
    gpu = hardware.resolve(data["name"])
    assert gpu.name == "H200"
    assert gpu.sm == parse_sm(".".join(str(part) for part in data["cc"]))
