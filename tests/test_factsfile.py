"""Facts files: ``probe --write-facts`` writes them, ``check --facts`` and ``facts = "FILE"`` read them exactly as
the same ``--gpu`` / ``--engine-version`` / ``--fact`` would; the same reader takes ``vllm collect-env`` text."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from relialint.core.facts import json_value
from relialint.run.targets import facts_file_facts
from tests.cli_run import invoke
from tests.conftest import H200, ROOT

PROBE = ROOT / "tests" / "fixtures" / "probe"
EXAMPLES = sorted((ROOT / "examples").iterdir())
CATALOGUE_KEYS = {"gpu.model", "gpu.vendor", "gpu.sm", "gpu.arch", "gpu.native_fp8", "gpu.native_fp4"}


def _cli(*args: str) -> tuple[int, str]:
    result = invoke(list(args))
    return result.exit_code, result.output


def _check(path: Path, *target: str) -> tuple[int, list[dict[str, object]]]:
    code, out = _cli("check", str(path), "--isolated", "--format", "json", *target)
    return code, json.loads(out)["findings"]


@pytest.fixture(scope="module")
def h200_facts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The idle H200 capture and its conf-compute state, written as JSON and as TOML."""
    folder = tmp_path_factory.mktemp("facts")
    out = {}
    for suffix in (".json", ".toml"):
        path = folder / f"h200{suffix}"
        code, _ = _cli("probe", "--from-nvidia-smi", str(H200 / "nvidia-smi-q.xml"), "--from-nvidia-smi",
                       str(H200 / "env.txt"), "--write-facts", str(path))
        assert code == 0  # parked clocks make RL205 possible only: the host is not stated to run benchmarks
        out[suffix] = path
    return out


def test_written_facts_file(h200_facts: dict[str, Path]) -> None:
    data = json.loads(h200_facts[".json"].read_text())
    assert data["sources"] == [str(H200 / "nvidia-smi-q.xml"), str(H200 / "env.txt")]
    assert {k: v for k, v in data["facts"].items() if not k.startswith("runtime.")} == {
        "gpu.cc_capable": True, "gpu.cc_mode": False, "gpu.count": 1, "gpu.ecc": True, "gpu.memory_gb": 141,
        "gpu.memory_mib": 143771, "gpu.model": "H200",
        "gpu.native_fp4": False, "gpu.native_fp8": True, "gpu.sm": "9.0", "gpu.vendor": "nvidia",
        "host.cuda_version": "13.0", "host.driver_version": "580.159.04"}
    assert data["facts"]["runtime.clocks_locked"] is False and data["facts"]["runtime.idle_sm_clock_mhz"] == 345
    toml = h200_facts[".toml"].read_text().splitlines()
    assert toml[3:6] == ["[facts]", '"gpu.cc_capable" = true', '"gpu.cc_mode" = false']


def test_json_and_toml_read_back_alike(h200_facts: dict[str, Path]) -> None:
    as_json = facts_file_facts(h200_facts[".json"])
    as_toml = facts_file_facts(h200_facts[".toml"])
    assert {k: json_value(f.value) for k, f in as_json.items()} == {k: json_value(f.value) for k, f in
                                                                      as_toml.items()}
    assert {f.origin for f in as_json.values()} == {"probe"}
    fact = as_toml["gpu.cc_mode"]
    assert (fact.value, fact.source, fact.path) == (False, (str(h200_facts[".toml"]), 6, 1), None)
    # the GPU goes through the catalogue as --gpu does: the other vendor's identifier is known to be unset
    assert as_json["gpu.arch"].value is None and "gpu.arch" not in json.loads(h200_facts[".json"].read_text())[
        "facts"]


def _as_cli(path: Path) -> list[str]:
    """The --gpu / --engine-version / --fact options that say what a facts file says."""
    facts = facts_file_facts(path)
    args = ["--gpu", str(facts["gpu.model"].value)]
    for key, fact in sorted(facts.items()):
        if key in CATALOGUE_KEYS or fact.value is None:
            continue
        if key == "engine.version":
            args += ["--engine-version", str(fact.value)]
        else:
            value = json_value(fact.value)
            args += ["--fact", f"{key}={str(value).lower() if isinstance(value, bool) else value}"]
    return args


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_check_with_a_facts_file_is_check_with_the_same_options(example: Path, h200_facts: dict[str, Path]) -> None:
    for facts in (h200_facts[".json"], h200_facts[".toml"], PROBE / "collect-env.txt"):
        assert _check(example, "--facts", str(facts)) == _check(example, *_as_cli(facts))


def test_facts_decide_the_shipped_examples_possible_findings(h200_facts: dict[str, Path]) -> None:
    def short(findings: list[dict[str, object]]) -> list[tuple[object, ...]]:
        return [(f["code"], f["certainty"], f["line"], f["column"], f["missing_facts"]) for f in findings]

    serve = ROOT / "examples" / "serve-cmd.sh"
    assert short(_check(serve)[1]) == [
        ("RL122", "possible", 7, 1, ["engine.flashinfer", "engine.v1", "engine.version", "gpu.sm"]),  # V0 below CC 8.0
        ("RL241", "possible", 7, 1, ["engine.version", "gpu.memory_gb", "gpu.model", "gpu.sm"]),  # A100 80GB, 0.8.5
        ("RL601", "possible", 7, 1, ["container.port_on_all_interfaces"]),  # a container the script may run in
        ("RL107", "possible", 7, 12, ["engine.v2_model_runner", "engine.version", "gpu.cc_capable", "gpu.cc_mode"]),
        ("RL117", "possible", 7, 12, ["engine.version", "gpu.sm"]),
        ("RL206", "possible", 7, 12, ["attention.fa4", "engine.version", "gpu.sm"]),
        ("RL214", "possible", 7, 12, ["engine.version", "gpu.arch", "model.kv_cache_scheme"]),
        # RL215 names NVIDIA besides native FP4 (its kernels are CUDA's; AMD and Intel FP4 are unknown)
        ("RL215", "possible", 7, 12, ["engine.version", "gpu.native_fp4", "gpu.vendor"]),
        ("RL217", "possible", 7, 12, ["engine.version", "gpu.vendor"]),
        ("RL322", "possible", 7, 12, ["container.kind", "container.mount_targets", "engine.version"]),
        ("RL606", "possible", 7, 12, ["engine.version"]),  # prompts logged up to 0.10.0
        ("RL101", "possible", 8, 3, ["engine.version", "gpu.sm"]),  # a 0.9.0-0.18.1 defect; no version pinned
    ]
    # the H200's capture: SM90 (RL117 absent), no native FP4 (RL215 absent; RL101 possible only for the version),
    # not RDNA3 (RL214 absent), CC off (RL107 absent); the version still unknown
    assert short(_check(serve, "--facts", str(h200_facts[".toml"]))[1]) == [
        ("RL122", "possible", 7, 1, ["engine.flashinfer", "engine.v1", "engine.version"]),
        ("RL601", "possible", 7, 1, ["container.port_on_all_interfaces"]),
        ("RL206", "possible", 7, 12, ["attention.fa4", "engine.version"]),
        ("RL217", "possible", 7, 12, ["engine.version"]),  # NVIDIA known; the sampler default depends on the version
        ("RL322", "possible", 7, 12, ["container.kind", "container.mount_targets", "engine.version"]),
        ("RL606", "possible", 7, 12, ["engine.version"]),
        ("RL101", "possible", 8, 3, ["engine.version"]),
    ]
    # collect-env adds the vLLM version (0.11.0): RL122 stays possible, since a pip install of that version has
    # FlashInfer only with its `flashinfer` extra (engine.flashinfer unknown); RL206 is absent: 0.11.0 is before
    # 0.20.0, the first release that picks FA4 on SM90 by default (witnessed); RL217 too (0.11.1-0.16.x); RL101 is
    # definite (0.9.0-0.18.1)
    assert short(_check(serve, "--facts", str(PROBE / "collect-env.txt"))[1]) == [
        ("RL122", "possible", 7, 1, ["engine.flashinfer"]),
        ("RL601", "possible", 7, 1, ["container.port_on_all_interfaces"]),
        ("RL322", "possible", 7, 12, ["container.kind", "container.mount_targets"]), ("RL101", "definite", 8, 3, [])]
    compose = ROOT / "examples" / "compose.yaml"
    # RL206 stays possible on the H200: whether vLLM 0.30.0 upgrades these models to FA4 is not in the capture
    assert short(_check(compose, "--facts", str(h200_facts[".json"]))[1]) == [
        ("RL206", "possible", 12, 7, ["attention.fa4"]), ("RL322", "definite", 12, 7, []),  # no volume: HF cache
        ("RL303", "definite", 14, 7, []),
        ("RL113", "definite", 15, 7, []), ("RL208", "definite", 15, 7, []), ("RL221", "definite", 15, 7, []),
        ("RL206", "possible", 20, 15, ["attention.fa4"]), ("RL322", "definite", 20, 15, []),
        ("RL338", "possible", 20, 15, ["model.family"]), ("RL602", "possible", 20, 15, ["model.family"]),
        ("RL303", "definite", 20, 30, []),
    ]


def test_cli_options_come_on_top_of_the_facts_file(h200_facts: dict[str, Path]) -> None:
    serve = ROOT / "examples" / "serve-cmd.sh"
    on_top = _check(serve, "--facts", str(h200_facts[".json"]), "--gpu", "B200", "--engine-version", "0.11.0")
    assert on_top == _check(serve, *_as_cli(h200_facts[".json"])[2:], "--gpu", "B200", "--engine-version", "0.11.0")
    # B200 has native FP4 (no RL101) and is not SM90 (no RL206); 0.11.0 is before RL217 (0.11.1); RL215 possible:
    # 0.11.0 allocates the NVFP4 scale padding uninitialised too, where no loss was measured; the build unknown
    assert [f["code"] for f in on_top[1]] == ["RL122", "RL601", "RL215", "RL322"]


def test_configuration_facts_file_per_path(tmp_path: Path, h200_facts: dict[str, Path]) -> None:
    for example in EXAMPLES:
        shutil.copy(example, tmp_path / example.name)
    shutil.copy(h200_facts[".toml"], tmp_path / "h200.toml")
    shutil.copy(PROBE / "collect-env.txt", tmp_path / "collect-env.txt")
    (tmp_path / ".relialint.toml").write_text('facts = "h200.toml"\n\n[[overrides]]\npaths = ["serve-cmd.sh"]\n'
                                              'facts = "collect-env.txt"\n', encoding="utf-8")

    def run(path: Path, *args: str) -> list[dict[str, object]]:
        _, out = _cli("check", str(path), "--format", "json", *args)
        return json.loads(out)["findings"]

    assert run(tmp_path / "compose.yaml") == run(tmp_path / "compose.yaml", "--isolated",
                                                 *_as_cli(tmp_path / "h200.toml"))
    assert run(tmp_path / "serve-cmd.sh") == run(tmp_path / "serve-cmd.sh", "--isolated",
                                                 *_as_cli(tmp_path / "collect-env.txt"))
    assert [f["code"] for f in run(tmp_path / "serve-cmd.sh")] == ["RL122", "RL601", "RL322", "RL101"]


def test_configuration_names_a_missing_facts_file(tmp_path: Path) -> None:
    (tmp_path / "serve.sh").write_text("vllm serve m\n", encoding="utf-8")
    (tmp_path / ".relialint.toml").write_text('gpu = "H200"\nfacts = "nowhere.json"\n', encoding="utf-8")
    code, out = _cli("check", str(tmp_path / "serve.sh"))
    assert code == 2
    assert f"{tmp_path}/.relialint.toml:2:1: error: invalid configuration: facts: no facts file 'nowhere.json'" in out


@pytest.mark.parametrize(("name", "content", "error"), [
    ("bad.json", '{"facts": {"gpu.count": "two"}}', "bad.json:1:12: gpu.count takes an integer, not 'two'"),
    ("unknown.toml", '[facts]\n"gpu.colour" = "red"\n', "unknown.toml:2:1: unknown fact 'gpu.colour'"),
    ("nogpu.toml", '[facts]\n"gpu.model" = "Voodoo 5"\n', "nogpu.toml:2:1: unknown GPU 'Voodoo 5'"),
    ("flat.json", '{"gpu.count": 2}', 'flat.json:1:1: a facts file is a JSON object with a "facts" object'),
    ("broken.toml", "[facts\n", "broken.toml:1:7: invalid TOML"),
    ("notes.txt", "just some text\n", "notes.txt:1:1: not a facts file"),
    ("deep.json", "[" * 100000, "deep.json:1:1: JSON nested too deeply"),
    ("deep.toml", "a = " + "[" * 100000, "deep.toml:1:1: TOML nested too deeply"),
])
def test_bad_facts_files_exit_2_with_a_location(tmp_path: Path, name: str, content: str, error: str) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    code, out = _cli("check", str(ROOT / "examples" / "serve-cmd.sh"), "--isolated", "--facts", str(path))
    assert code == 2
    assert f"relialint: error: {tmp_path}/{error}" in out


def test_write_facts_needs_a_json_or_toml_name(tmp_path: Path) -> None:
    code, out = _cli("probe", "--from-nvidia-smi", str(H200 / "query-gpu-idle.csv"), "--write-facts",
                     str(tmp_path / "facts.yaml"))
    assert code == 2
    assert out.splitlines()[-1] == (f"relialint: error: --write-facts {tmp_path}/facts.yaml: the file name ends in "
                                    ".json or .toml")
    assert not (tmp_path / "facts.yaml").exists()


# -- vllm collect-env ------------------------------------------------------------------------------------------------


def _read(name: str) -> dict[str, tuple[object, str, tuple[str, int, int] | None]]:
    return {k: (json_value(f.value), f.origin, f.source) for k, f in facts_file_facts(PROBE / name).items()}


def test_collect_env() -> None:
    where = str(PROBE / "collect-env.txt")
    gpu = (where, 32, 8)
    assert _read("collect-env.txt") == {
        "engine.version": ("0.11.0", "probe", (where, 56, 32)),
        "gpu.arch": (None, "probe", gpu), "gpu.cc_capable": (True, "probe", gpu), "gpu.count": (2, "probe", gpu),
        "gpu.memory_gb": (141, "probe", gpu), "gpu.model": ("H200", "probe", gpu),
        "gpu.native_fp4": (False, "probe", gpu), "gpu.native_fp8": (True, "probe", gpu),
        "gpu.sm": ("9.0", "probe", gpu), "gpu.vendor": ("nvidia", "probe", gpu),
        "host.cuda_runtime_version": ("12.8.93", "probe", (where, 29, 32)),
        "host.driver_version": ("580.159.04", "probe", (where, 35, 32)),
        "host.os": ("linux", "probe", (where, 23, 32)),
    }


def test_collect_env_of_an_older_vllm_with_a_dev_build() -> None:
    where = str(PROBE / "collect-env-old.txt")
    gpu = (where, 10, 38)
    assert _read("collect-env-old.txt") == {
        "engine.version": ("0.7.3", "probe", (where, 16, 15)),
        "gpu.arch": (None, "probe", gpu), "gpu.cc_capable": (True, "probe", gpu), "gpu.count": (1, "probe", gpu),
        "gpu.model": ("H100", "probe", gpu),
        "gpu.native_fp4": (False, "probe", gpu), "gpu.native_fp8": (True, "probe", gpu),
        "gpu.sm": ("9.0", "probe", gpu), "gpu.vendor": ("nvidia", "probe", gpu),
        "host.cuda_runtime_version": ("12.4.131", "probe", (where, 9, 23)),
        "host.driver_version": ("550.90.07", "probe", (where, 11, 24)),
        "host.os": ("linux", "probe", (where, 7, 18)),
    }


def test_collect_env_on_rocm_reads_the_target(tmp_path: Path) -> None:
    path = tmp_path / "env.txt"
    path.write_text("GPU models and configuration : AMD Instinct MI300X (gfx942:sramecc+:xnack-)\n"
                    "vLLM Version                 : 0.11.0\n", encoding="utf-8")
    facts = {k: json_value(f.value) for k, f in facts_file_facts(path).items()}
    assert facts == {"engine.version": "0.11.0", "gpu.arch": "gfx942", "gpu.cc_capable": False, "gpu.count": 1,
                     "gpu.memory_gb": 192, "gpu.model": "MI300X", "gpu.sm": None, "gpu.vendor": "amd"}


def test_facts_command_shows_where_file_facts_come_from() -> None:
    code, out = _cli("facts", str(ROOT / "examples" / "serve-cmd.sh"), "--format", "json", "--facts",
                     str(PROBE / "collect-env.txt"))
    assert code == 0
    facts = json.loads(out)["deployments"][0]["facts"]
    where = str(PROBE / "collect-env.txt")
    assert facts["engine.version"] == {"value": "0.11.0", "origin": "probe", "note": "vllm collect-env",
                                       "source": {"path": where, "line": 56, "column": 32}}
    assert facts["gpu.model"] == {"value": "H200", "origin": "probe", "note": "vllm collect-env: NVIDIA H200",
                                  "source": {"path": where, "line": 32, "column": 8}}
