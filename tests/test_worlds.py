"""Possible worlds: triggers over the GPUs and vLLM versions the evidence allows, and which possible findings are
shown by default (``../shared/design/possible-worlds.md``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relialint.core.evaluate import eval_range, eval_trigger
from relialint.core.facts import Fact, FactSet
from relialint.core.versions import VersionBound, parse_version
from relialint.core.worlds import Overlay, gpu_worlds
from relialint.run.lint import Finding, Options, Target, lint_text
from tests.cli_run import invoke


def _lint(text: str, *, kind: str = "shell", name: str = "serve.sh", gpu: str | None = None,
          version: str | None = None, facts: dict[str, str] | None = None, show: bool = False) -> list[Finding]:
    options = Options(target=Target(gpu, version, None, facts or {}), show_possible=show)
    return lint_text(text, name, kind, options).findings


def _rows(findings: list[Finding], code: str | None = None) -> list[tuple[str, str, int, int, bool]]:
    return [(f.code, f.certainty, f.line, f.column, f.shown) for f in findings if code is None or f.code == code]


# -- the worked examples of possible-worlds.md ----------------------------------------------------------------------


def test_v1_record_is_absent_when_no_version_can_make_v1_on() -> None:
    # RL302 needs V1 on 0.7.x; on 0.7.x V1 is off by default, on 0.8+ the version test fails.
    assert _rows(_lint("vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n"), "RL302") == []


def test_v1_record_with_vllm_use_v1_is_possible_and_names_the_versions() -> None:
    findings = _lint("export VLLM_USE_V1=1\nvllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n")
    assert _rows(findings, "RL302") == [("RL302", "possible", 2, 37, True)]
    (rl302,) = [f for f in findings if f.code == "RL302"]
    assert rl302.missing_facts == ["engine.version"]
    assert "holds on vLLM 0.7.0; unknown on 0.7.1-0.7.3;" in rl302.message


def test_a_known_vendor_rules_out_the_other_vendors_records() -> None:
    text = "vllm serve nvidia/Llama-3.3-70B-Instruct-FP4 --dtype bfloat16\n"
    assert _rows(_lint(text), "RL101") == [("RL101", "possible", 1, 46, True)]
    assert _rows(_lint(text, facts={"gpu.vendor": "amd"}), "RL101") == []
    llama = "llama-server -m model.gguf --port 8080\n"
    # RL108 needs HIP on gfx1151: an NVIDIA GPU has no AMD target in any world
    assert _rows(_lint(llama, facts={"engine.backend": "hip", "gpu.vendor": "nvidia"}), "RL108") == []
    assert _rows(_lint(llama, facts={"engine.backend": "hip", "gpu.vendor": "amd"}, show=True), "RL108") == [
        ("RL108", "possible", 1, 17, False)]


def test_the_gpu_split_is_named_in_the_message() -> None:
    findings = _lint("vllm serve nvidia/Llama-3.3-70B-Instruct-FP4 --dtype bfloat16\n", version="0.15.0",
                     facts={"gpu.vendor": "nvidia"})
    (rl101,) = [f for f in findings if f.code == "RL101"]
    assert rl101.missing_facts == ["gpu.sm"]
    assert ("holds on 31 of the 45 catalogue GPUs the file allows (T4, A100, A30, A800, A10 and 26 more)"
            in rl101.message)
    assert "B200" not in rl101.message


def test_with_the_gpu_given_the_finding_is_definite() -> None:
    findings = _lint("vllm serve nvidia/Llama-3.3-70B-Instruct-FP4 --dtype bfloat16\n", gpu="RTX 4090",
                     version="0.15.0")
    assert _rows(findings, "RL101") == [("RL101", "definite", 1, 46, True)]
    assert _rows(_lint("vllm serve nvidia/Llama-3.3-70B-Instruct-FP4 --dtype bfloat16\n", gpu="B200",
                       version="0.15.0"), "RL101") == []


def test_a_pinned_version_in_the_affected_range_points_at_the_record() -> None:
    # RL206: SM90 with the default attention on 0.30.0; the image pins 0.30.0, the GPU is unknown but NVIDIA.
    compose = ("services:\n  llm:\n    image: vllm/vllm-openai:v0.30.0\n    runtime: nvidia\n"
               "    command: [\"Qwen/Qwen3-8B\"]\n")
    assert _rows(_lint(compose, kind="compose", name="compose.yaml"), "RL206") == [
        ("RL206", "possible", 5, 15, True)]


def test_a_record_nothing_in_the_file_points_at_is_counted_not_shown() -> None:
    findings = _lint("vllm serve Qwen/Qwen3-8B\n")
    assert ("RL107", "possible", 1, 12, False) in _rows(findings)
    assert all(not f.shown for f in findings)


def test_a_value_that_only_clears_a_guard_does_not_show_the_finding() -> None:
    # RL117 holds only from 8 running requests (not: max_num_seqs lt 8); --max-num-seqs 128 clears that guard, which
    # nearly every deployment does, so it points at nothing; --max-num-seqs 4 rules the record out.
    text = "vllm serve Qwen/Qwen3-8B --max-num-seqs {}\n"
    assert _rows(_lint(text.format(128), show=True), "RL117") == [("RL117", "possible", 1, 12, False)]
    assert _rows(_lint(text.format(4), show=True), "RL117") == []
    assert _rows(_lint("vllm serve Qwen/Qwen3-8B --no-disable-cascade-attn\n", show=True), "RL117") == [
        ("RL117", "possible", 1, 26, True)]


def test_a_request_level_record_waits_on_the_user_and_a_version_pin_does_not_show_it() -> None:
    # RL151: SGLang 0.1.6-0.4.7 drop an OpenAI request's logit_bias. The pinned 0.4.6.post1 is in the affected range,
    # but whether clients send logit_bias is a requests.* fact no file states: possible, counted, naming that fact;
    # definite once the user states it, absent when the user says they never send it.
    compose = ("services:\n  sglang:\n    image: lmsysorg/sglang:v0.4.6.post1-cu124\n"
               "    command: python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B\n")
    findings = [f for f in _lint(compose, kind="compose", name="compose.yaml", show=True) if f.code == "RL151"]
    assert [(f.certainty, f.shown) for f in findings] == [("possible", False)]
    assert findings[0].missing_facts == ["requests.logit_bias"]
    assert _rows(_lint(compose, kind="compose", name="compose.yaml", facts={"requests.logit_bias": "true"}),
                 "RL151") == [("RL151", "definite", 3, 12, True)]
    assert _rows(_lint(compose, kind="compose", name="compose.yaml", facts={"requests.logit_bias": "false"},
                       show=True), "RL151") == []


def test_a_value_that_only_differs_from_an_excluded_one_does_not_show_the_finding() -> None:
    # RL253 (Gemma 4 on SM100) excludes ModelOpt FP4 MoE checkpoints (model.quantization ne modelopt_fp4). A Llama 2
    # model (no family in the table, no quantization by its name) merely differs from the excluded value: a guard,
    # counted.
    text = "python3 -m sglang.launch_server --model-path {} --port 30000\n"
    assert _rows(_lint(text.format("meta-llama/Llama-2-7b-chat-hf"), show=True), "RL253") == [
        ("RL253", "possible", 1, 46, False)]
    # Llama 3.1 is in the table since merge27 (family llama-3, not Gemma 4): no RL253 at all
    assert _rows(_lint(text.format("meta-llama/Llama-3.1-8B-Instruct"), show=True), "RL253") == []


# -- shown and counted through the command line ---------------------------------------------------------------------


def test_text_lists_only_shown_findings_and_counts_the_rest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with open("serve.sh", "w", encoding="utf-8") as handle:
        handle.write("vllm serve Qwen/Qwen3-8B\n")
    result = invoke(["serve.sh", "--isolated"])
    assert result.exit_code == 0
    assert "RL107" not in result.output
    lines = result.output.splitlines()
    assert lines[0] == "1 file, 1 deployment: 0 definite, 0 possible, 0 errors"
    assert lines[1] == (
        "9 more possible findings that nothing in the files points at depend on the GPU (--gpu), the engine "
        "version (--engine-version) and attention.fa4, container.kind, container.mount_targets, "
        "container.port_on_all_interfaces, engine.flashinfer, gpu.cc_mode (--fact KEY=VALUE); declare them "
        "(or set them in [tool.relialint]) or list them with --show-possible")
    assert lines[1].endswith("or list them with --show-possible")
    listed = invoke(["serve.sh", "--isolated", "--show-possible"])
    assert "serve.sh:1:12: RL107 [blocker, possible]" in listed.output
    strict = invoke(["serve.sh", "--isolated", "--strict"])
    assert strict.exit_code == 0  # counted findings never fail a commit
    assert invoke(["serve.sh", "--isolated", "--strict", "--show-possible"]).exit_code == 1
    doc = json.loads(invoke(["serve.sh", "--isolated", "--format", "json"]).output)
    assert {(f["code"], f["shown"]) for f in doc["findings"]} == {
        ("RL107", False), ("RL117", False), ("RL122", False), ("RL206", False),
        ("RL217", False), ("RL241", False), ("RL322", False), ("RL601", False), ("RL606", False),
    }  # Qwen/Qwen3-8B is known unquantized: no MXFP4 or FP8 record; RL509 is withdrawn. merge27 records, each
    # counted: RL241 (A100 80GB batch defaults), RL322 (a container with no HF-cache volume), RL601 (no API key, port
    # on every interface), RL606 (request logging up to 0.10.0)
    assert doc["summary"]["possible_counted"] == 9


# -- versions beyond the tables -------------------------------------------------------------------------------------


def _version(value: object) -> FactSet:
    return FactSet({"engine.name": Fact("vllm", "cli"), "engine.version": Fact(value, "inferred")})  # type: ignore[arg-type]


def test_a_version_newer_than_the_tables_compares_only_with_versions_below_the_edge() -> None:
    newer = VersionBound(parse_version("0.33.0"), above=True)
    code = {"code": [{"path": "vllm/x.py", "present": "bug"}]}
    fixed = {"engine": "vllm", "introduced": "0.10.0", "fixed": "0.20.0", "witness": code}
    open_range = {"engine": "vllm", "introduced": "0.10.0", "last_affected": "0.33.0", "witness": code}
    beyond = {"engine": "vllm", "introduced": "0.40.0", "last_affected": "0.41.0", "witness": code}
    assert eval_range(fixed, _version(newer)).value is False
    assert eval_range(open_range, _version(newer)).value is None  # past the newest release checked: unknown
    assert eval_range(beyond, _version(newer)).value is None
    leaf = {"when": {"fact": "engine.version", "ge": "0.20.0"}}
    assert eval_trigger(leaf, _version(newer)).value is True
    assert eval_trigger({"when": {"fact": "engine.version", "lt": "0.40.0"}}, _version(newer)).value is None
    older = VersionBound(parse_version("0.6.6.post1"), above=False)
    assert eval_trigger(leaf, _version(older)).value is False
    assert eval_range(open_range, _version(older)).value is False


def test_gpu_worlds_follow_the_known_facts() -> None:
    amd = FactSet({"gpu.vendor": Fact("amd", "manifest")})
    worlds = gpu_worlds(amd)
    assert worlds is not None
    names = [w.name for w in worlds]
    assert "MI300X" in names and "H100" not in names and names[-1] == "a GPU the catalogue does not know"
    assert Overlay(amd, worlds[-1].facts).get("gpu.sm") == Fact(None, "inferred")
    assert gpu_worlds(FactSet({"gpu.model": Fact("H100", "cli")})) is None
    sm90 = gpu_worlds(FactSet({"gpu.sm": Fact(parse_version("9.0"), "manifest")}))
    assert sm90 is not None and {w.name for w in sm90[:-1]} == {"H100", "H200", "H800", "GH200", "H20"}


# -- properties -----------------------------------------------------------------------------------------------------

_MODELS = st.sampled_from(["nvidia/Llama-3.3-70B-Instruct-FP4", "Qwen/Qwen3-8B", "org/m-MXFP4"])
_FLAGS = st.lists(st.sampled_from(["--dtype bfloat16", "--kv-cache-dtype fp8", "--enforce-eager",
                                   "--max-model-len 8192", "--enable-prefix-caching",
                                   "--speculative-config '{\"method\": \"mtp\"}'"]), max_size=4, unique=True)
_ENV = st.lists(st.sampled_from(["VLLM_USE_V1=1", "VLLM_USE_V1=0", "VLLM_USE_V2_MODEL_RUNNER=1"]), max_size=2,
                unique=True)
_GPUS = st.sampled_from([None, "H100", "A100", "B200", "RTX 4090", "MI300X"])


@settings(max_examples=40, deadline=None)
@given(_MODELS, _FLAGS, _ENV, _GPUS)
def test_declaring_the_gpu_never_contradicts_the_worlds(model: str, flags: list[str], env: list[str],
                                                       gpu: str | None) -> None:
    """A finding absent over the worlds stays absent once the GPU is declared, and a definite one stays definite:
    declaring a fact only picks one of the worlds."""
    text = "".join(f"export {e}\n" for e in env) + f"vllm serve {model} {' '.join(flags)}\n"
    unknown = {f.code: f.certainty for f in _lint(text, show=True)}
    if gpu is None:
        return
    declared = {f.code: f.certainty for f in _lint(text, gpu=gpu, show=True)}
    for code in declared:
        assert code in unknown, (code, text, gpu)
    for code, certainty in unknown.items():
        if certainty == "definite":
            assert declared.get(code) == "definite", (code, text, gpu)


def test_a_value_only_later_releases_accept_narrows_the_versions() -> None:
    # the MTP method exists from 0.11.0 (engine-facts §3): no world before it, where prefix caching was off
    text = "vllm serve deepseek-ai/DeepSeek-V3.1 --speculative-config '{\"method\": \"mtp\"}'\n"
    (rl113,) = [f for f in _lint(text) if f.code == "RL113"]
    assert (rl113.certainty, rl113.line, rl113.column, rl113.shown) == ("possible", 1, 38, True)
    # RL113's range is witnessed from 0.17.0 (the first Qwen3.5-family MTP); 0.11.0-0.16.0 stay unknown
    assert "holds on vLLM 0.17.0-0.33.0; unknown on 0.11.0-0.16.0, newer than 0.33.0" in rl113.message
    (pinned,) = [f for f in _lint(text, version="0.17.0") if f.code == "RL113"]
    assert pinned.certainty == "definite"
    (older,) = [f for f in _lint(text, version="0.11.0") if f.code == "RL113"]
    assert older.certainty == "possible"
