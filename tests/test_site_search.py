"""What search finds each record by (relialint.site.search): the GPUs its trigger holds on, never a GPU it names only
as a passing example; flags as one token; the fields merged into the built index."""

from __future__ import annotations

import json
from typing import Any

import pytest

from relialint.core import hardware
from relialint.site import build as site
from relialint.site import search as site_search
from tests.conftest import ROOT

HOPPER = ["H100", "H200", "H800", "GH200", "H20"]


@pytest.fixture(scope="module")
def by_id() -> dict[str, dict[str, Any]]:
    return {r.id: r.data for r in site.load_records(ROOT / "records")}


def test_every_gpu_with_a_compute_capability_or_target_has_a_family() -> None:
    missing = [g.name for g in hardware.catalogue() if (g.sm is not None or g.arch) and not g.family]
    assert missing == [], "add their compute capability or target to families: in data/hardware.yaml"
    families = {g.name: g.family for g in hardware.catalogue()}
    assert (families["V100"], families["RTX 4090"], families["H100"], families["GB10"], families["Jetson Thor"]) == (
        "Volta", "Ada Lovelace", "Hopper", "Blackwell", "Blackwell")
    assert (families["MI300X"], families["RX 7900 XTX"], families["Strix Halo"], families["RX 9070 XT"]) == (
        "CDNA3", "RDNA3", "RDNA3.5", "RDNA4")


def test_gpus_are_those_the_trigger_holds_on(by_id: dict[str, dict[str, Any]]) -> None:
    rl206 = site_search.record_about(by_id["RL206"])
    assert rl206.gpus == HOPPER
    rl101 = site_search.record_about(by_id["RL101"])
    assert "RTX 4090" in rl101.gpus and "H100" in rl101.gpus
    assert "B200" not in rl101.gpus  # its passing example: B200 has native FP4
    assert set(site_search.record_about(by_id["RL104"]).gpus) == {
        g.name for g in hardware.catalogue() if g.family == "Blackwell"}
    assert site_search.record_about(by_id["RL106"]).gpus == ["B200", "GB200"]
    assert "H100" not in site_search.record_about(by_id["RL102"]).gpus  # GB10 only; H100 is its passing example


def test_a_gpu_independent_record_is_found_by_the_gpus_it_names(by_id: dict[str, dict[str, Any]]) -> None:
    about = site_search.record_about(by_id["RL203"])
    assert (about.gpus, about.mentioned) == ([], ["H100", "H200"])
    terms = site_search.terms(by_id["RL203"])
    assert terms["about"] == "" and "h100" in terms["mentions"].split()


def test_flags_are_what_the_record_is_about(by_id: dict[str, dict[str, Any]]) -> None:
    rl206 = site_search.record_about(by_id["RL206"])
    assert "--attention-backend" in rl206.flags
    assert "--max-model-len" not in rl206.flags  # every example launch carries it; the record is not about it
    assert "--max-model-len" in site_search.record_about(by_id["RL302"]).flags
    assert {"--flash-attn", "-fa"} <= set(site_search.record_about(by_id["RL506"]).flags)
    assert "VLLM_USE_V2_MODEL_RUNNER" in site_search.record_about(by_id["RL107"]).env
    assert "GGML_CUDA_NO_PEER_COPY" in site_search.record_about(by_id["RL110"]).env
    assert "DGGML_CUDA_NO_PEER_COPY" not in site_search.record_about(by_id["RL110"]).env


def test_flag_tokens() -> None:
    assert site_search.flag_token("--max-model-len") == "max_model_len"
    assert site_search.flag_token("-fa") == "fa"
    assert site_search.flag_token("--speculative-config.method") == "speculative_config_method"


def test_search_terms(by_id: dict[str, dict[str, Any]]) -> None:
    rl506 = site_search.terms(by_id["RL506"])["kw"].split()
    assert {"RL506", "fa", "flash_attn", "LLAMA_ARG_FLASH_ATTN"} <= set(rl506)
    rl206 = site_search.terms(by_id["RL206"])
    about = rl206["about"].split()
    assert {"h100", "hopper", "sm_90", "sm90", "9.0", "gh200"} <= set(about)
    assert "nvidia" not in about and "dgx" not in about  # shared by GPUs of several families: tells none apart
    assert rl206["summary"].startswith("<p>On compute capability 9.0 (H100, H200)")
    rl506 = site_search.terms(by_id["RL506"])["summary"]
    assert rl506.startswith("<p><code>-fa</code>/<code>--flash-attn</code> changed")
    rl101 = site_search.terms(by_id["RL101"])  # holds on every GPU below 10.0: not *about* any one of them
    assert rl101["about"] == "" and "h100" in rl101["mentions"].split() and "b200" not in rl101["mentions"].split()


def test_gpu_summary_names_whole_families_once() -> None:
    assert site_search.gpu_summary(HOPPER) == ["Hopper", "sm_90"]
    assert site_search.gpu_summary(["H100", "B200"]) == ["H100", "B200", "sm_90", "sm_100"]
    assert site_search.gpu_summary(["Strix Halo"]) == ["Strix Halo", "gfx1151"]


def test_merge_index() -> None:
    index: dict[str, Any] = {
        "config": {"fields": {"title": {}, "text": {}, "tags": {}, "about": {}, "kw": {}, "mentions": {}}},
        "docs": [
            {"location": "records/RL206/", "title": "RL206: x", "text": ""},
            {"location": "records/RL206/#summary", "title": "Summary", "text": "s"},
            {"location": "records/RL101/", "title": "RL101: y", "text": ""},
            {"location": "usage/", "title": "Usage", "text": "u"},
        ],
    }
    table = {"RL206": {"about": "h100", "kw": "attention_backend", "mentions": "", "summary": "On SM90"},
             "RL999": {"about": "", "kw": "x", "mentions": "", "summary": ""}}
    problems = site_search.merge_index(index, table)
    assert index["docs"][0] == {"location": "records/RL206/", "title": "RL206: x", "text": "On SM90",
                                "about": "h100", "kw": "attention_backend"}
    assert index["docs"][1] == {"location": "records/RL206/#summary", "title": "Summary", "text": "s"}
    assert problems == ["data/search-terms.json: no search terms for RL101; run `python -m relialint.site`",
                        "data/search-terms.json: terms for RL999, which has no page in the index"]
    del index["config"]["fields"]["kw"]
    assert site_search.merge_index(index, table)[0] == "mkdocs.yml: the search plugin's fields lack 'kw'"


def test_search_terms_file_names_every_record() -> None:
    table = json.loads((ROOT / "docs" / site_search.SEARCH_TERMS).read_text(encoding="utf-8"))
    assert sorted(table) == sorted(r.id for r in site.load_records(ROOT / "records"))
