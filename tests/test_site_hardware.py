"""The hardware pages (``docs/hardware/``) against the linter itself, over every GPU of the catalogue.

The expected records are computed here, not by :mod:`relialint.site.hardware`: for every catalogue GPU and every
engine, one deployment that states nothing but the GPU (given as ``--gpu NAME`` gives it, through
:func:`relialint.run.targets.apply_target`) is evaluated against all the records at once by
:func:`relialint.core.findings.evaluate`. A record is about hardware when the evaluator rules it out on some catalogue
GPU; the family page of each GPU must list exactly the records about hardware that are not ruled out on it, marked
**yes** exactly where the evaluator is definite.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from relialint.core import hardware
from relialint.core.deployment import Deployment
from relialint.core.facts import Fact
from relialint.core.findings import evaluate
from relialint.core.results import Target
from relialint.engines.registry import default_registry
from relialint.readers.located import Span
from relialint.run.targets import apply_target, target_facts
from relialint.site import build as site
from tests.cli_run import invoke
from tests.conftest import ROOT

RECORDS = ROOT / "records"
HARDWARE = ROOT / "docs" / "hardware"
HEADING = re.compile(r"^## (?P<name>.+) \{ #(?P<anchor>gpu-[a-z0-9-]+) \}$")
ROW = re.compile(r"^\| \[(?P<id>RL[0-9]{3})\]\(\.\./records/(?P=id)\.md\) \| .* \| (?P<applies>[^|]+) \|$")


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    return [r.data for r in site.load_records(RECORDS)]


def _alone(engine: str, gpu: hardware.Gpu) -> Deployment:
    """A deployment of ``engine`` that states only ``gpu``, as ``relialint check --gpu NAME`` gives it."""
    deployment = Deployment(engine, "test", Span("(gpu alone)", 1, 1, 1, 1))
    deployment.facts.set("engine.name", Fact(engine, "inferred"))
    deployment.facts.closed.add("bench.")
    apply_target(deployment, target_facts(Target(gpu=gpu.name)), [])
    return deployment


@pytest.fixture(scope="module")
def applies(records: list[dict[str, Any]]) -> dict[str, dict[str, bool]]:
    """Per catalogue GPU, the records the evaluator does not rule out with only that GPU known: id -> definite."""
    out: dict[str, dict[str, bool]] = {}
    for gpu in hardware.catalogue():
        found: dict[str, bool] = {}
        for engine in default_registry().versioned():
            for finding in evaluate(_alone(engine.name, gpu), records, engine):
                found[finding.code] = found.get(finding.code, False) or finding.certainty == "definite"
        out[gpu.name] = found
    return out


@pytest.fixture(scope="module")
def pages() -> dict[str, dict[str, bool]]:
    """Per GPU heading of the family pages, the records listed under it: id -> listed as **yes**."""
    out: dict[str, dict[str, bool]] = {}
    for page in sorted(HARDWARE.glob("*.md")):
        if page.name == "index.md":
            continue
        current: dict[str, bool] | None = None
        for line in page.read_text(encoding="utf-8").splitlines():
            heading = HEADING.match(line)
            if heading:
                assert heading["name"] not in out, f"{heading['name']} is on two family pages"
                current = out[heading["name"]] = {}
            elif (row := ROW.match(line)) and current is not None:
                current[row["id"]] = row["applies"].startswith("**yes**")
    return out


def test_every_gpu_has_one_section(pages: dict[str, dict[str, bool]]) -> None:
    assert sorted(pages) == sorted(g.name for g in hardware.catalogue())


def test_family_pages_list_what_the_evaluator_does_not_rule_out(
        pages: dict[str, dict[str, bool]], applies: dict[str, dict[str, bool]]) -> None:
    about_hardware = {rid for found in applies.values() for rid in found
                      if any(rid not in other for other in applies.values())}
    for gpu in hardware.catalogue():
        expected = {rid: sure for rid, sure in applies[gpu.name].items() if rid in about_hardware}
        assert pages[gpu.name] == expected, gpu.name


def _required(node: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """The leaves a predicate needs to hold: those reached through ``all`` alone (not under ``any`` or ``not``)."""
    if "all" in node:
        for child in node["all"]:
            yield from _required(child)
    elif "fact" in node:
        yield node


def _nvidia_only(leaf: Mapping[str, Any]) -> bool:
    """A condition no AMD or Intel GPU meets: the NVIDIA vendor, the CUDA backend, FlashInfer (a CUDA library), a
    compute capability (which the catalogue knows to be unset on AMD and Intel rows), native FP4 (Blackwell in the
    catalogue)."""
    fact = leaf["fact"]
    if fact == "gpu.vendor":
        return leaf.get("eq") == "nvidia" or leaf.get("in") == ["nvidia"]
    if fact == "engine.backend":
        return leaf.get("eq") == "cuda" or leaf.get("in") == ["cuda"]
    if fact == "engine.flashinfer":  # a CUDA library: a build for any other backend has none
        return leaf.get("eq") is True
    if fact == "gpu.sm":
        return any(op in leaf for op in ("eq", "in", "ge", "gt", "le", "lt"))
    return fact == "gpu.native_fp4" and leaf.get("eq") is True


def test_no_amd_or_intel_gpu_lists_a_cuda_or_blackwell_only_record(
        records: list[dict[str, Any]], pages: dict[str, dict[str, bool]],
        applies: dict[str, dict[str, bool]]) -> None:
    nvidia_only = {str(r["id"]) for r in records if r.get("trigger") and r["trigger"].get("when")
                   and any(_nvidia_only(leaf) for leaf in _required(r["trigger"]["when"]))}
    # RL122 needs FlashInfer (a CUDA library; its sampler), RL215 NVIDIA's native FP4 (Blackwell), RL206 SM 9.0: the
    # check is not empty, and each is listed on some NVIDIA GPU
    assert {"RL122", "RL206", "RL215"} <= nvidia_only
    for rid in ("RL122", "RL206", "RL215"):
        assert any(rid in pages[g.name] for g in hardware.catalogue() if g.vendor == "nvidia"), rid
    others = [g for g in hardware.catalogue() if g.vendor != "nvidia"]
    assert len(others) == 28
    for gpu in others:
        assert not nvidia_only & set(pages[gpu.name]), gpu.name
        assert not nvidia_only & set(applies[gpu.name]), gpu.name  # nor any record at all, listed or not


def test_amd_pages_name_the_rocm_records(pages: dict[str, dict[str, bool]]) -> None:
    # RL228 (AMD_SERIALIZE_KERNEL / HIP_LAUNCH_BLOCKING, HIP only) on every AMD GPU and no other; RL237 (AITER
    # attention, gfx942/gfx950) on CDNA3 and CDNA4 only; RL108 (HIP on gfx1151) on Strix Halo only
    amd = {g.name for g in hardware.catalogue() if g.vendor == "amd"}
    assert {name for name, listed in pages.items() if "RL228" in listed} == amd
    assert {name for name, listed in pages.items() if "RL237" in listed} == {
        "MI300X", "MI325X", "MI300A", "MI308X", "MI350X", "MI355X"}
    assert {name for name, listed in pages.items() if "RL108" in listed} == {"Strix Halo"}
    # a CUDA-only sampler record and an NVFP4-on-Blackwell record are not on an MI300X
    assert "RL122" not in pages["MI300X"] and "RL215" not in pages["MI300X"]


def test_possible_rows_say_what_decides_in_the_users_words() -> None:
    page = (HARDWARE / "cdna3.md").read_text(encoding="utf-8")
    section = page.split("{ #gpu-mi300x }", 1)[1].split("\n## ", 1)[0]
    rl237 = next(line for line in section.splitlines() if line.startswith("| [RL237]"))
    assert rl237.endswith("| possibly; decided by `--attention-backend`, `--attention-config`, the vLLM version, "
                          "`VLLM_ROCM_USE_AITER`, `VLLM_ROCM_USE_AITER_MHA`, the model |")
    # the GPU's own open fact first: the catalogue does not know the MI308X's memory (RL353, 36-59 GB GPUs)
    mi308x = page.split("{ #gpu-mi308x }", 1)[1].split("\n## ", 1)[0]
    rl353 = next(line for line in mi308x.splitlines() if line.startswith("| [RL353]"))
    assert "| possibly; decided by the board's memory size, the SGLang version, `--cuda-graph-backend-decode`," in rl353
    assert "env." not in section and "flag." not in section and "engine.version" not in section


def test_catalogue_rows_link_their_family_page(pages: dict[str, dict[str, bool]]) -> None:
    page = (ROOT / "docs" / "reference" / "hardware.md").read_text(encoding="utf-8")
    rows = {line.split("**")[1]: line for line in page.splitlines() if line.startswith("| <span id=")}
    assert sorted(rows) == sorted(pages)
    for name, listed in pages.items():
        count = f"{len(listed)} record{'' if len(listed) == 1 else 's'}"
        link = re.search(r"\| \[([^]]+)\]\(\.\./hardware/([a-z0-9-]+)\.md#(gpu-[a-z0-9-]+)\) \|", rows[name])
        assert link is not None, name
        assert link[1] == count, name
        family = (HARDWARE / f"{link[2]}.md").read_text(encoding="utf-8")
        assert f"## {name} {{ #{link[3]} }}" in family, name
    assert "[6 records](../hardware/cdna3.md#gpu-mi300x)" in rows["MI300X"]


def test_index_and_nav_name_every_family_page() -> None:
    index = (HARDWARE / "index.md").read_text(encoding="utf-8")
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    families = sorted(p.name for p in HARDWARE.glob("*.md") if p.name != "index.md")
    assert "hopper.md" in families and "cdna3.md" in families and "rdna3-5.md" in families
    for name in families:
        assert f"]({name})" in index and f": hardware/{name}" in nav, name


def _check(text: str, tmp_path: Path, gpu: str) -> list[tuple[str, str]]:
    path = tmp_path / "serve.sh"
    path.write_text(text, encoding="utf-8")
    result = invoke(["check", str(path), "--isolated", "--format", "json", "--show-possible", "--gpu", gpu])
    return [(f["code"], f["certainty"]) for f in json.loads(result.output)["findings"]]


def test_the_cli_gives_vllm_on_an_amd_gpu_its_rocm_build(tmp_path: Path) -> None:
    blocking = "export CUDA_LAUNCH_BLOCKING=1\nvllm serve meta-llama/Llama-3.1-8B-Instruct\n"
    # vLLM on an MI300X runs its HIP build (the vendor gives the backend, as /dev/kfd in a compose file does): the
    # CUDA runtime's switch is not read; on an H100 it is
    assert not [f for f in _check(blocking, tmp_path, "MI300X") if f[0] == "RL220"]
    assert ("RL220", "definite") in _check(blocking, tmp_path, "H100")
    fp4 = "vllm serve nvidia/Llama-3.3-70B-Instruct-FP4\n"
    assert not [f for f in _check(fp4, tmp_path, "MI300X") if f[0] == "RL215"]
    assert ("RL215", "possible") in _check(fp4, tmp_path, "B200")  # the version decides
