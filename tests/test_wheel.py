"""The records ship inside the installed package, and the ``py.typed`` marker with the code."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT


@pytest.mark.slow
def test_wheel_contains_every_record_and_the_hardware_catalogue(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(tmp_path), str(ROOT)], check=True)
    (wheel,) = tmp_path.glob("relialint-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    records = sorted(p.name for p in (ROOT / "records").glob("*.yaml"))
    assert records
    for name in records:
        assert f"relialint/_records/{name}" in names
    data_dir = ROOT / "src" / "relialint" / "data"
    data_files = sorted(p.name for p in data_dir.iterdir() if p.suffix in {".json", ".yaml"})
    assert {"hardware.yaml", "vllm_flags.json", "llamacpp_flags.json", "sglang_flags.json"} <= set(data_files)
    for data in data_files:
        assert f"relialint/data/{data}" in names
    assert "relialint/cli.py" in names
    assert "relialint/py.typed" in names  # PEP 561: type checkers read the installed package's annotations
