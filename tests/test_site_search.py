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
    # a record's own flags in a field of their own: RL207's FLASH_ATTN is a backend, not the flag --flash-attn
    assert {"fa", "flash_attn"} <= set(site_search.terms(by_id["RL506"])["flags"].split())
    assert "flash_attn" not in site_search.terms(by_id["RL207"])["flags"].split()
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
        "config": {"fields": {"title": {}, "text": {}, "tags": {}, "about": {}, "flags": {}, "kw": {}, "mentions": {}},
                   "pipeline": []},
        "docs": [
            {"location": "records/RL206/", "title": "RL206: x", "text": "<p>the message</p>"},
            {"location": "records/RL206/#summary", "title": "Summary", "text": "s"},
            {"location": "records/RL101/", "title": "RL101: y", "text": ""},
            {"location": "usage/", "title": "Usage", "text": "u"},
        ],
    }
    table = {"RL206": {"about": "h100", "kw": "attention_backend", "mentions": "", "summary": "On SM90"},
             "RL999": {"about": "", "kw": "x", "mentions": "", "summary": ""}}
    problems = site_search.merge_index(index, table)
    # issue 29: a record is one entry, its summary the text (the snippet) whatever the page puts under its title;
    # its sections (here "Summary") are no longer indexed
    assert index["docs"][0] == {"location": "records/RL206/", "title": "RL206: x", "text": "On SM90",
                                "about": "h100", "kw": "attention_backend"}
    assert [d["location"] for d in index["docs"]] == ["records/RL206/", "records/RL101/", "usage/"]
    assert problems == ["data/search-terms.json: no search terms for RL101; run `python -m relialint.site`",
                        "data/search-terms.json: terms for RL999, which has no page in the index"]
    del index["config"]["fields"]["kw"]
    assert site_search.merge_index(index, table)[0] == "mkdocs.yml: the search plugin's fields lack 'kw'"
    index["config"]["pipeline"] = ["stopWordFilter"]
    assert "mkdocs.yml: the search plugin's pipeline must be empty, not ['stopWordFilter']" in (
        site_search.merge_index(index, table))


def test_the_index_holds_what_users_search() -> None:
    """Record examples, evidence and trigger YAML out; release sections that list records or nothing out; a page's
    flags as whole tokens; a page's empty preface entry folded into its first heading's."""
    docs = [
        {"location": "records/RL206/", "title": "RL206: x", "text": ""},
        *({"location": f"records/RL206/#{a}", "title": a, "text": "must give no finding on a B200"}
          for a in ("examples", "passes-on-b200", "evidence", "trigger", "record-details")),
        {"location": "releases/vllm-0.30.0/", "title": "What changes in vLLM 0.30.0", "text": ""},
        {"location": "releases/vllm-0.30.0/#what-changes", "title": "What changes in vLLM 0.30.0",
         "text": "<p>From 0.29.0</p>"},
        {"location": "releases/vllm-0.30.0/#records-entered", "title": "Records that start to apply (1)",
         "text": "<ul><li>RL206 on H100</li></ul>"},
        {"location": "releases/vllm-0.30.0/#defaults", "title": "Defaults that change (0)", "text": "<p>None</p>"},
        {"location": "releases/vllm-0.30.0/#options-added", "title": "Options added (1)",
         "text": "<ul><li><code>--dp-sync-interval</code>: takes a value</li></ul>"},
        {"location": "usage/#flags", "title": "Flags", "text": "<p>Set <code>-fa</code> or --kv-cache-dtype.</p>"},
    ]
    index: dict[str, Any] = {"config": {"fields": {key: {} for key in site_search.FIELDS}, "pipeline": []},
                             "docs": docs}
    table = {"RL206": {"about": "h100", "kw": "RL206", "mentions": "", "summary": "<p>On SM90</p>"}}
    assert site_search.merge_index(index, table) == []
    assert index["docs"] == [
        {"location": "records/RL206/", "title": "RL206: x", "text": "<p>On SM90</p>", "about": "h100", "kw": "RL206"},
        {"location": "releases/vllm-0.30.0/", "title": "What changes in vLLM 0.30.0", "text": "<p>From 0.29.0</p>"},
        {"location": "releases/vllm-0.30.0/#options-added", "title": "Options added (1)",
         "text": "<ul><li><code>--dp-sync-interval</code>: takes a value</li></ul>", "kw": "dp_sync_interval"},
        {"location": "usage/#flags", "title": "Flags", "text": "<p>Set <code>-fa</code> or --kv-cache-dtype.</p>",
         "kw": "kv_cache_dtype fa"},
    ]
    assert site_search.record_terms(index) == {"RL206": ["h100", "on", "rl206", "sm90", "x"]}


def test_index_tokens_split_as_materials_tokenizer_does() -> None:
    entry = {"title": "RL102: VLLM_MARLIN_INPUT_DTYPE=fp8 on sm_121", "tags": ["llama.cpp", "blocker"],
             "text": "<p>a <code>--kv-cache-dtype</code> of 0.30.0 &lt;b&gt;, (FP8/NVFP4)</p>", "kw": "fa",
             "location": "records/RL102/"}
    assert site_search.index_tokens(entry) == {
        "rl102", "vllm_marlin_input_dtype", "fp8", "on", "sm_121", "llama.cpp", "blocker", "a", "kv", "cache",
        "dtype", "of", "0.30.0", "b", "nvfp4", "fa"}


def _node_rules(script: str) -> Any:
    """Run ``script`` with docs/javascripts/search-rules.js loaded in Node; its printed JSON."""
    import shutil
    import subprocess

    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        pytest.skip("no node to run docs/javascripts/search-rules.js (the browser tests run it in Chromium)")
    rules = (ROOT / "docs" / "javascripts" / "search-rules.js").read_text(encoding="utf-8")
    proc = subprocess.run([node, "-e", f"var self = {{}};\n{rules}\nvar R = self.relialintSearchRules;\n{script}"],
                          capture_output=True, text=True, check=True, timeout=60)
    return json.loads(proc.stdout)


def test_query_rules() -> None:
    out = _node_rules("""console.log(JSON.stringify({
      lunr: ["--kv-cache-dtype", "--kv-cache-dtype=fp8", "-fa", "kv-cache-dtype", "H100", "+VLLM:x^2~1*",
             "DGX Spark", "h100-sxm", "-", ""].map(R.lunrQuery),
      sep: R.SEPARATOR.source,
      every: [R.matchesEvery("--kv-cache-dtype blocker", {kv_cache_dtype: 1, blocker: 1}),
              R.matchesEvery("--kv-cache-dtype blocker", {kv: 1, cache: 1, dtype: 1, blocker: 1}),
              R.matchesEvery("h100", {h100_sxm: 1}), R.matchesEvery("h100 mi300x", {h100: 1}),
              R.matchesEvery("", {}), R.matchesEvery("kv-cache-dtype", {kv_cache_dtype: 1, cached: 1, dtypes: 1}),
              R.matchesEvery("no-such-word", {no: 1, word: 1})]
    }))""")
    assert out["lunr"] == ["kv_cache_dtype^10", "kv_cache_dtype^10 fp8", "fa^10", "+kv* +cache* +dtype*", "h100",
                           "+vllm* +x* +2* +1*", "dgx spark", "+h100* +sxm*", "", ""]
    assert out["every"] == [True, False, True, False, True, True, False]


def test_one_separator() -> None:
    """mkdocs.yml's search separator is the one the index tokens (search.py) and the query rules (search-rules.js)
    split by."""
    import re

    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("tag:", lambda loader, suffix, node: None)
    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)
    plugin = next(p["search"] for p in config["plugins"] if isinstance(p, dict) and "search" in p)
    assert plugin["pipeline"] == []
    assert site_search._WORD_SEPARATOR.pattern == plugin["separator"]
    rules = (ROOT / "docs" / "javascripts" / "search-rules.js").read_text(encoding="utf-8")
    js = re.search(r"var SEPARATOR = /(.+)/;", rules)
    assert js is not None and js.group(1).replace("\\/", "/") == plugin["separator"]


def test_search_terms_file_names_every_record() -> None:
    table = json.loads((ROOT / "docs" / site_search.SEARCH_TERMS).read_text(encoding="utf-8"))
    assert sorted(table) == sorted(r.id for r in site.load_records(ROOT / "records"))
