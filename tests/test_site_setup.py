"""The "my setup" view's verdicts (relialint.site.setup): the linter's own evaluation per engine, version and GPU,
evaluated by classes and written compactly; the hardware page's records per GPU come from the same verdicts."""

from __future__ import annotations

import json
import shutil
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from relialint.core import hardware
from relialint.engines.registry import default_registry
from relialint.site import build as site
from relialint.site import setup as site_setup
from relialint.site import setup_launch
from tests.conftest import ROOT

RECORDS = ROOT / "records"
BLACKWELL_ONLY = ("RL102", "RL104", "RL106")


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    return [r.data for r in site.load_records(RECORDS)]


@pytest.fixture(scope="module")
def by_id(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {str(r["id"]): r for r in records}


@pytest.fixture(scope="module")
def data(records: list[dict[str, Any]]) -> dict[str, Any]:
    return site_setup.setup_data(records)


FIVE = [  # issue 29's acceptance setups: (engine, version, GPU, backend, OS)
    ("vllm", "0.30.0", "H100", "", ""),
    ("vllm", "0.10.1", "RTX 4090", "", ""),
    ("vllm", "0.23.0", "B200", "", ""),
    ("llama.cpp", "b6000", "Strix Halo", "", "linux"),
    ("vllm", "0.11.0", "MI300X", "", ""),
]


def version_index(entry: dict[str, Any], version: str) -> int:
    """The version list's entry for ``version``, as setup.js finds it: its value, or the run of builds it is in."""
    for i, choice in enumerate(entry["versions"]):
        if choice["value"] == version:
            return i
    number = int(version[1:])
    return next(i for i, c in enumerate(entry["versions"]) if c.get("builds") and
                c["builds"][0] <= number <= c["builds"][1])


def lookup(data: dict[str, Any], engine: str, version: str, gpu: str, backend: str = "", os: str = ""
           ) -> dict[str, tuple[str, str]]:
    """What docs/javascripts/setup.js shows for a setup, read from the data file the same way: record id ->
    (outcome, what decides it)."""
    entry = next(e for e in data["engines"] if e["id"] == engine)
    v = version_index(entry, version)
    g = next(i for i, c in enumerate(data["gpus"]) if c["value"] == gpu)
    b = next(i for i, c in enumerate(entry["backends"]) if c["value"] == backend)
    o = next(i for i, c in enumerate(data["oses"]) if c["value"] == os)
    out: dict[str, tuple[str, str]] = {}
    for record in data["records"]:
        for backends, oses, rows in record["cells"].get(engine, []):
            if (backends is not None and b not in backends) or (oses is not None and o not in oses):
                continue
            for members, runs in rows:
                if g not in members:
                    continue
                for lo, hi, outcome, dep in runs:
                    if lo <= v <= hi:
                        out[record["id"]] = (outcome, data["depends"][dep] if dep >= 0 else "")
            break
    return out


def cli(tmp_path: Path, engine: str, version: str, gpu: str, backend: str = "", os: str = ""
        ) -> dict[str, tuple[str, tuple[str, ...]]]:
    """``relialint check`` (in this process) on the engine's default launch for the setup: record id ->
    (certainty, missing facts)."""
    from tests.cli_run import invoke

    launch = tmp_path / f"{engine}-launch.sh"
    launch.write_text(default_registry().get(engine).default_launch + "\n", encoding="utf-8")  # type: ignore[union-attr]
    args = ["check", str(launch), "--isolated", "--show-possible", "--format", "json"]
    args += (["--gpu", gpu] if gpu else []) + (["--engine-version", version] if version else [])
    args += (["--os", os] if os else []) + (["--fact", f"engine.backend={backend}"] if backend else [])
    result = invoke(args)
    assert result.exception is None and result.exit_code in (0, 1), result.output
    return {f["code"]: (f["certainty"], tuple(f["missing_facts"])) for f in json.loads(result.stdout)["findings"]}


def as_page(engine: str, found: dict[str, tuple[str, tuple[str, ...]]]) -> dict[str, tuple[str, str]]:
    """The CLI's findings as the page words them."""
    return {rid: ("d", "") if certainty == "definite" else ("p", setup_launch.deciding(engine, missing))
            for rid, (certainty, missing) in found.items()}


def test_each_engine_names_its_default_launch() -> None:
    registry = default_registry()
    launches = {e.name: e.default_launch for e in registry.versioned()}
    assert launches == {"vllm": 'vllm serve "$MODEL"', "llama.cpp": 'llama-server -m "$MODEL"',
                        "sglang": 'python -m sglang.launch_server --model-path "$MODEL"'}
    assert registry.get("llama.cpp").backends == ("cuda", "hip", "vulkan", "metal", "sycl", "cpu")  # type: ignore[union-attr]
    assert registry.get("vllm").backends == ()  # type: ignore[union-attr]


def test_the_five_setups_say_exactly_what_the_cli_says(data: dict[str, Any], tmp_path: Path) -> None:
    for engine, version, gpu, backend, os in FIVE:
        found = cli(tmp_path, engine, version, gpu, backend, os)
        assert lookup(data, engine, version, gpu, backend, os) == as_page(engine, found), (engine, version, gpu)


def test_the_five_setups_exactly(data: dict[str, Any]) -> None:
    """The records and certainties of the five setups, as the CLI gives them on a default launch today (checked
    by the test above; written out so that a change of a record shows here)."""
    model = "the model"
    quantization = "the model (or --quantization)"  # model.quantization: from the model, or --quantization
    port = "whether a port of the container is reachable on every host interface"
    mounts = "the container the launch runs in; every mount target of the container; the model"
    # RL206 on H100 + 0.30.0: possible, not definite as issue 29 read it: the record now holds only where vLLM runs
    # FA4 on SM90, which 0.30.0 does for some models only; --attention-config (FA4 stated) decides it
    assert lookup(data, "vllm", "0.30.0", "H100") == {
        "RL107": ("p", "whether the GPU is in Confidential Computing mode"), "RL206": ("p", "--attention-config"),
        "RL213": ("p", model), "RL322": ("p", mounts), "RL338": ("p", model), "RL601": ("p", port),
        "RL602": ("p", model)}
    assert lookup(data, "vllm", "0.10.1", "RTX 4090") == {
        "RL117": ("d", ""), "RL122": ("p", "whether FlashInfer is installed"), "RL140": ("p", model),
        "RL322": ("p", mounts), "RL601": ("p", port), "RL602": ("p", model)}
    assert lookup(data, "vllm", "0.23.0", "B200") == {
        "RL104": ("p", quantization),
        "RL107": ("p", "VLLM_USE_V2_MODEL_RUNNER; whether the GPU is in Confidential Computing mode"),
        "RL212": ("p", model), "RL215": ("p", quantization), "RL322": ("p", mounts), "RL338": ("p", model),
        "RL601": ("p", port), "RL602": ("p", model)}
    assert lookup(data, "llama.cpp", "b6000", "Strix Halo", "", "linux") == {
        "RL108": ("p", "the backend"), "RL109": ("p", "the backend"), "RL141": ("d", ""),
        "RL244": ("p", model), "RL245": ("p", "the container's CPU limit in CPUs; the backend"),
        "RL335": ("d", ""), "RL346": ("d", ""),
        "RL519": ("p", "the build option GGML_CUDA_DISABLE_GRAPHS; the build option GGML_CUDA_ENABLE_UNIFIED_MEMORY; "
                       "the build option GGML_CUDA_NO_PINNED"),
        "RL532": ("p", "the backend"), "RL546": ("p", "the build option GGML_HIP_UMA; the backend")}
    # no CUDA-only record on an MI300X: not RL122 (FlashInfer, a CUDA library, is absent from the HIP build) nor
    # RL215 (its NVFP4 kernels are CUDA's: the record names NVIDIA)
    assert lookup(data, "vllm", "0.11.0", "MI300X") == {
        "RL140": ("p", model), "RL322": ("p", mounts), "RL601": ("p", port), "RL602": ("p", model)}


def test_the_decode_regression_needs_its_gpu_and_its_version(data: dict[str, Any]) -> None:
    """RL206 (FA4 on SM90): on an H200 as on an H100, never on a B200, not before 0.20.0 (no FA4 on SM90 by default)."""
    assert lookup(data, "vllm", "0.30.0", "H200")["RL206"] == ("p", "--attention-config")
    assert "RL206" not in lookup(data, "vllm", "0.30.0", "B200")
    assert "RL206" not in lookup(data, "vllm", "0.19.1", "H100")
    by = {r["id"]: r["by"] for r in data["records"]}
    assert by["RL206"] == {"vllm": ["gpu", "version"]}
    assert by["RL108"] == {"llama.cpp": ["gpu", "version", "backend"]}


def test_backend_and_os_decide_what_the_cli_decides(data: dict[str, Any], tmp_path: Path) -> None:
    """Strix Halo with llama.cpp: the HIP backend turns the backend's records definite or absent, as the CLI's
    ``--fact engine.backend=hip`` does; the OS is kept as ``--os`` gives it."""
    for backend, os in [("hip", "linux"), ("vulkan", "linux"), ("cuda", ""), ("", "windows"), ("cpu", "macos")]:
        found = cli(tmp_path, "llama.cpp", "b6000", "Strix Halo", backend, os)
        assert lookup(data, "llama.cpp", "b6000", "Strix Halo", backend, os) == as_page("llama.cpp", found), \
            (backend, os)
    hip = lookup(data, "llama.cpp", "b6000", "Strix Halo", "hip", "linux")
    # with HIP stated, the backend no longer decides: RL532 is definite, RL108 is left open by the build alone
    # (b6000 lies where its affected range is not known either way), nothing left to set
    assert hip["RL532"] == ("d", "") and hip["RL108"] == ("p", "")
    vulkan = lookup(data, "llama.cpp", "b6000", "Strix Halo", "vulkan", "linux")
    assert "RL108" not in vulkan and "RL109" not in vulkan and vulkan["RL532"] == ("d", "")


def test_the_data_file_says_what_the_linter_says(data: dict[str, Any], tmp_path: Path) -> None:
    """More setups, "not sure" ones among them: the compressed file holds exactly the CLI's verdict."""
    for engine, version, gpu in [("vllm", "0.7.0", "RTX 3070"), ("vllm", "", ""), ("vllm", "0.30.0", ""),
                                 ("llama.cpp", "b8502", "Strix Halo"), ("llama.cpp", "b7000", "RX 7900 XTX"),
                                 ("llama.cpp", "", ""), ("sglang", "", "H100")]:
        found = cli(tmp_path, engine, version, gpu)
        assert lookup(data, engine, version, gpu) == as_page(engine, found), (engine, version, gpu)


def test_every_setup_gets_the_verdict_of_its_class(records: list[dict[str, Any]],
                                                   by_id: dict[str, dict[str, Any]]) -> None:
    """The verdicts are evaluated once per class of setups; evaluated one by one they are the same."""
    gpus = [None, hardware.resolve("H100"), hardware.resolve("B200"), hardware.resolve("RTX 4090"),
            hardware.resolve("MI300X")]
    versions = [c.version for c in site_setup.version_choices("vllm", records)]
    linter = setup_launch.LaunchLinter()
    for rid in ("RL206", "RL117", "RL107"):
        grid = setup_launch.launch_setups(by_id[rid], gpus, {"vllm": versions}, linter).grids["vllm"][(0, 0)]
        for g, gpu in enumerate(gpus):
            for v, version in enumerate(versions):
                assert grid[g][v] == setup_launch.LaunchLinter().verdict(
                    by_id[rid], setup_launch.Setup("vllm", gpu, version)), (rid, gpu, version)


def test_possible_names_settings_not_fact_keys(data: dict[str, Any]) -> None:
    for text in data["depends"]:
        for word in text.replace(";", " ").split():
            assert not (word.count(".") == 1 and word.split(".")[0] in ("attention", "engine", "gpu", "model",
                                                                          "container", "kv_cache", "host")), text
    assert setup_launch.deciding("vllm", ("attention.backend",)) == \
        "--attention-backend or --attention-config or VLLM_ATTENTION_BACKEND"
    assert setup_launch.deciding("vllm", ("kv_cache.dtype",)) == "--kv-cache-dtype"
    assert setup_launch.deciding("vllm", ("engine.version",)) == "the vLLM version"


def test_version_choices(records: list[dict[str, Any]]) -> None:
    vllm = site_setup.version_choices("vllm", records)
    values = [c.value for c in vllm]
    assert values[:3] == ["", "<0.6.0", "0.6.0"]  # the oldest release the witnesses read, which records name
    assert values[-2:] == ["0.34.0", ">0.34.0"]  # the witnesses now read to 0.34.0 (RL100, RL135)
    assert "0.23.1rc1" in values  # a version a record names, between two tabled releases
    llama = site_setup.version_choices("llama.cpp", records)
    # RL506's bracket: -fa a switch up to b6111, a value from b8502 (the builds between are one class each side);
    # the merge27 llama.cpp records name more older builds, so the bracket sits further in
    assert [c.label for c in llama[59:66]] == ["b5905 to b6110", "b6111", "b6112 to b8321", "b8322", "b8323",
                                               "b8324 to b8501", "b8502"]
    runs = [c.builds for c in llama[1:]]
    # before b2439, the oldest build a record names (RL224's last_known_good, llama-cpp-python 0.2.72's vendored
    # build; before merge27 it was b2822, RL505's older_unchecked)
    assert runs[0] == (0, 2438)
    for before, after in pairwise(runs):  # every build number in exactly one entry
        assert before is not None and after is not None and after[0] == before[1] + 1


def test_engine_independent_and_knowledge_records(data: dict[str, Any]) -> None:
    entries = {r["id"]: r for r in data["records"]}
    assert entries["RL201"]["kind"] == "runtime" and entries["RL201"]["cells"] == {}
    assert entries["RL401"]["kind"] == "knowledge" and entries["RL401"]["engines"] == []
    assert entries["RL202"]["cells"] == {}  # a benchmark command is not a serving setup


def test_hardware_page_links_each_gpu_to_its_family_page() -> None:
    page = (ROOT / "docs" / "reference" / "hardware.md").read_text(encoding="utf-8")
    rows = {line.split("**")[1]: line for line in page.splitlines() if line.startswith("| <span id=")}
    records_of = {name: line.split(" | ")[1] for name, line in rows.items()}
    # the records of each GPU moved to its family page (docs/hardware/, checked against the evaluator over every
    # catalogue GPU in tests/test_site_hardware.py); the catalogue row links there, with the count
    assert records_of["H100"] == "[19 records](../hardware/hopper.md#gpu-h100)"
    assert records_of["Strix Halo"] == "[8 records](../hardware/rdna3-5.md#gpu-strix-halo)"
    # RL353 (SGLang, 36-59 GB GPUs): the catalogue leaves the A770's memory open; no other record is about it
    assert records_of["Arc A770"] == "[1 record](../hardware/intel.md#gpu-arc-a770)"
    assert "| Hopper | 9.0 (`sm_90`) |" in rows["H100"]
    assert '<span id="gpu-h100"></span>' in rows["H100"]


def test_gpu_records_marks_what_the_catalogue_cannot_decide() -> None:
    record: dict[str, Any] = {
        "id": "RL999", "slug": "s", "title": "t", "severity": "major", "impact": "performance", "fix": "f",
        "engines": ["vllm"],
        "trigger": {"when": {"all": [{"fact": "engine.name", "eq": "vllm"}, {"fact": "gpu.native_fp8", "eq": False}]},
                    "message": "m"},
    }
    about = site_setup.record_gpus(record)
    assert about["A100"] is True  # 8.0: no native FP8
    assert "H100" not in about
    assert about["MI300X"] is False  # AMD native FP8 is unknown in the catalogue: possibly


def test_setup_files_are_not_stale(tmp_path: Path) -> None:
    copy = tmp_path / "site"
    copy.mkdir()
    shutil.copy2(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    shutil.copytree(ROOT / "docs", copy / "docs")
    site.generate(copy, RECORDS)
    for rel in (site_setup.SETUP_PAGE, site_setup.SETUP_DATA, "data/search-terms.json"):
        fresh = (copy / "docs" / rel).read_text(encoding="utf-8")
        stale = f"{rel} is stale; run python -m relialint.site"
        assert (ROOT / "docs" / rel).read_text(encoding="utf-8") == fresh, stale
    json.loads((copy / "docs" / site_setup.SETUP_DATA).read_text(encoding="utf-8"))


def test_setup_page_form_is_labelled() -> None:
    page = (ROOT / "docs" / "setup.md").read_text(encoding="utf-8")
    for name in ("engine", "version", "gpu"):
        assert f'<label for="rl-setup-{name}">' in page and f'<select id="rl-setup-{name}"' in page
    assert 'data-src="../data/setup.json"' in page
