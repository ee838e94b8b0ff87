"""vLLM options and env vars judged over the versions a deployment can be on (issues 12 and 13): the audit's false
positives, one finding per unknown option and unread variable, leave-one-out narrowing, renames, fixes valid for
the version."""

from __future__ import annotations

from typing import Any

import pytest

from relialint.core.deployment import Deployment
from relialint.core.facts import Fact, FactSet
from relialint.engines import fixedit, flagcheck
from relialint.engines.registry import default_registry
from relialint.engines.versioning import parse_engine_version
from relialint.readers.located import FileResult
from relialint.run.lint import Options, Target, lint_text, load_records, read_file

RUN = 'vllm refuses to start ("unrecognized arguments")'.replace("vllm", "vLLM")
SILENT = "the setting silently does nothing"


def _fix_edits(result: FileResult, deployment: Deployment, fix_set: dict[str, Any]) -> list[fixedit.TextEdit] | None:
    """A record's fix as edits, by the deployment's engine (as the language server and the site ask for them)."""
    engine = default_registry().get(deployment.engine)
    return engine.fix_edits(result, deployment, fix_set) if engine is not None else None


def _found(text: str, version: str | None = None, codes: tuple[str, ...] = ("RL504", "RL507")) -> list[tuple[Any, ...]]:
    run = lint_text(text, "serve.sh", "shell", Options(target=Target(engine_version=version)))
    return [(f.code, f.certainty, f.line, f.column, f.message) for f in run.findings if f.code in codes]


# -- the audit's four false positives, and a deployment's own VLLM_* variable -----------------------------------------


@pytest.mark.parametrize("version", ["0.9.2", "0.10.0", "0.10.2", "0.11.0"])
def test_no_enable_chunked_prefill_exists_where_the_type_is_skipvalidation_bool(version: str) -> None:
    assert _found("vllm serve m --no-enable-chunked-prefill --enable-chunked-prefill\n", version) == []


@pytest.mark.parametrize("version", ["0.11.0", "0.11.1", "0.11.2"])
def test_deprecated_guided_decoding_options_of_0_11(version: str) -> None:
    text = ("vllm serve m --guided-decoding-backend xgrammar --guided-decoding-disable-fallback true "
            "--guided-decoding-disable-any-whitespace true --guided-decoding-disable-additional-properties true\n")
    assert _found(text, version) == []


def test_vllm_serve_config_on_0_6_6_post1() -> None:
    assert _found("vllm serve m --config serve.yaml\n", "0.6.6.post1") == []


def test_env_var_read_outside_envs_py() -> None:
    assert _found("export VLLM_SNAPSHOT_TIMEOUT_S=600\nvllm serve m\n", "0.33.0") == []


@pytest.mark.parametrize("version", [None, "0.30.0"])
@pytest.mark.parametrize("name", ["VLLM_REPO_URL", "VLLM_HOST", "VLLM_TIMEOUT", "VLLM_USE_V2", "VLLM_LOG_LEVEL"])
def test_a_deployments_own_vllm_prefixed_variable_is_not_vllms(name: str, version: str | None) -> None:
    assert _found(f"export {name}=x\nvllm serve m\n", version) == []


def test_a_variable_vllm_sets_for_its_kernels_is_vllms() -> None:
    assert _found("export VLLM_CUSTOM_ALLREDUCE_ALGO=1stage\nvllm serve m\n", "0.33.0") == []


def test_a_near_miss_of_a_real_variable_holds_on_every_tabled_release() -> None:
    # a release older or newer than the tables may read it (the worlds beyond the tables): possible, and shown
    assert _found("export VLLM_ATENTION_BACKEND=FLASH_ATTN\nvllm serve m\n") == [
        ("RL504", "possible", 1, 8, "no vLLM version from 0.6.6.post1 to 0.33.0 reads `VLLM_ATENTION_BACKEND` "
         f"(did you mean `VLLM_ATTENTION_BACKEND`?): {SILENT} (possible: depends on engine.version: holds on vLLM "
         "0.6.6.post1-0.33.0; unknown on older than 0.6.6.post1, newer than 0.33.0; set --engine-version V)")]
    assert [f[:2] for f in _found("export VLLM_ATENTION_BACKEND=FLASH_ATTN\nvllm serve m\n", "0.33.0")] == [
        ("RL504", "definite")]


# -- every problem at its own span ----------------------------------------------------------------------------------


def test_three_unknown_options_and_two_unread_variables_give_five_findings() -> None:
    text = ("export VLLM_USE_V1=1\n"
            "export VLLM_ATTENTION_BACKEND=FLASHINFER\n"
            "vllm serve m --gpu-memory-utilisation 0.8 --max-modl-len 4096 --foo-bar 1\n")
    assert _found(text, "0.30.0") == [
        ("RL504", "definite", 1, 8, f"vLLM 0.30.0 does not read `VLLM_USE_V1` (read in 0.6.6.post1-0.11.0): {SILENT}"),
        ("RL504", "definite", 2, 8, "vLLM 0.30.0 does not read `VLLM_ATTENTION_BACKEND` (read in 0.6.6.post1-0.14.1); "
         f"use `--attention-backend NAME` instead: {SILENT}"),
        ("RL507", "definite", 3, 14, "`--gpu-memory-utilisation` is not an option of vLLM 0.30.0 "
         f"(did you mean `--gpu-memory-utilization`?): {RUN}"),
        ("RL507", "definite", 3, 43, f"`--max-modl-len` is not an option of vLLM 0.30.0 (did you mean "
         f"`--max-model-len`?): {RUN}"),
        ("RL507", "definite", 3, 63, f"`--foo-bar` is not an option of vLLM 0.30.0 (no close option): {RUN}"),
    ]


def test_each_option_gets_its_own_worlds() -> None:
    # each option's worlds leave it out: --speculative-model alone allows 0.6.6.post1-0.8.2 for the typo, the typo
    # narrows nothing for --speculative-model
    found = _found("vllm serve m --speculative-model d --gpu-memory-utilisation 0.8\n")
    assert [(code, certainty, column) for code, certainty, _, column, _ in found] == [
        ("RL507", "possible", 14), ("RL507", "possible", 36)]
    assert found[0][4].endswith("(possible: depends on engine.version: holds on vLLM 0.8.3-0.33.0; unknown on newer "
                                "than 0.33.0; set --engine-version V)")
    assert found[1][4] == ("`--gpu-memory-utilisation` is not an option of any vLLM version from 0.6.6.post1 to "
                           f"0.33.0 (did you mean `--gpu-memory-utilization`?): {RUN} (possible: depends on "
                           "engine.version: holds on vLLM 0.6.6.post1-0.8.2; unknown on older than 0.6.6.post1; set "
                           "--engine-version V)")


def test_instances_are_separate_fact_sets() -> None:
    facts = FactSet()
    facts.add_instance("k.a", {"k.a": Fact("one", "flag", "f", 1, 1), "k.b": Fact(True, "flag")})
    facts.add_instance("k.a", {"k.a": Fact("two", "flag", "f", 2, 1), "k.b": None})
    assert facts.facts["k.a"].value == "one"
    first, second = facts.instance_views("k.a")
    assert (first.get("k.a"), first.get("k.b")) == (Fact("one", "flag", "f", 1, 1), Fact(True, "flag"))
    assert (second.get("k.a"), second.get("k.b")) == (Fact("two", "flag", "f", 2, 1), None)
    assert facts.instance_views("k.c") == [facts]


# -- narrowing the version by the options (possible-worlds.md) ------------------------------------------------------


def test_versions_accepting() -> None:
    table = flagcheck.vllm_table()
    assert flagcheck.versions_accepting("vllm", []) == table.parsed
    assert len(table.parsed) == 55
    accepting = flagcheck.versions_accepting("vllm", ["--language-model-only", "--max_model_len=8192", "-tp", "2"])
    assert [str(v) for v in accepting] == table.versions[table.versions.index("0.17.0"):]
    assert [str(v) for v in flagcheck.versions_accepting("vllm", ["--speculative-model"])] == table.versions[:8]
    assert flagcheck.versions_accepting("vllm", ["--speculative-model", "--language-model-only"]) == []
    assert flagcheck.versions_accepting("vllm", ["--no-such-option"]) == []
    assert flagcheck.versions_accepting("llama.cpp", []) == []


def test_env_var_no_tabled_version_accepting_the_options_reads_holds_on_all_of_them() -> None:
    text = "export VLLM_ATTENTION_BACKEND=FLASHINFER\nvllm serve M --language-model-only\n"
    assert _found(text, codes=("RL504",)) == [
        ("RL504", "possible", 1, 8, "no vLLM release that accepts these options reads `VLLM_ATTENTION_BACKEND` "
         "(read in 0.6.6.post1-0.14.1, the options need 0.17.0-0.33.0); use `--attention-backend NAME` instead: "
         f"{SILENT} (possible: depends on engine.version: holds on vLLM 0.17.0-0.33.0; unknown on newer than "
         "0.33.0; set --engine-version V)")]


def test_an_option_every_version_the_others_allow_has_is_fine() -> None:
    found = _found("vllm serve M --reasoning-parser qwen3 --language-model-only\n")
    assert [(code, certainty, column) for code, certainty, _, column, _ in found] == [("RL507", "possible", 39)]
    assert found[0][4].startswith("`--language-model-only` exists only in vLLM 0.17.0-0.33.0")


def test_no_release_accepts_both() -> None:
    # every tabled release refuses one of them; a release beyond the tables may accept both
    assert _found("vllm serve M --speculative-model d --language-model-only\n") == [
        ("RL507", "possible", 1, 14, "no vLLM release accepts both `--speculative-model` and `--language-model-only`: "
         "`--speculative-model` exists in 0.6.6.post1-0.8.2; use `--speculative-config '{\"model\": ...}'` instead: "
         f"{RUN} (possible: depends on engine.version: holds on vLLM 0.17.0-0.33.0; unknown on newer than 0.33.0; "
         "set --engine-version V)"),
        ("RL507", "possible", 1, 36, "no vLLM release accepts both `--language-model-only` and `--speculative-model`: "
         f"`--language-model-only` exists in 0.17.0-0.33.0: {RUN} (possible: depends on engine.version: holds on "
         "vLLM 0.6.6.post1-0.8.2; unknown on older than 0.6.6.post1; set --engine-version V)"),
    ]


def test_env_var_read_only_by_some_versions_the_options_allow_stays_possible() -> None:
    found = _found("export VLLM_ATTENTION_BACKEND=FLASHINFER\nvllm serve M --max-model-len 4096\n")
    assert [(code, certainty) for code, certainty, *_ in found] == [("RL504", "possible")]


# -- did-you-mean from the engine's renames, or none ----------------------------------------------------------------


def test_guided_decoding_backend_points_at_structured_outputs_not_a_lookalike() -> None:
    assert _found("vllm serve M --guided-decoding-backend xgrammar\n", "0.20.0") == [
        ("RL507", "definite", 1, 14, "`--guided-decoding-backend` is not an option of vLLM 0.20.0; it exists in "
         f"0.6.6.post1-0.11.2; use `--structured-outputs-config.backend` instead: {RUN}")]


def test_a_real_option_missing_from_the_version_gets_no_lookalike() -> None:
    assert _found("vllm serve M --data-parallel-size 2\n", "0.7.0") == [
        ("RL507", "definite", 1, 14, "`--data-parallel-size` is not an option of vLLM 0.7.0; it exists in "
         f"0.8.3-0.33.0: {RUN}")]


def test_a_renamed_option_on_a_version_that_has_it_is_fine() -> None:
    assert _found("vllm serve M --speculative-model d --num-speculative-tokens 3\n", "0.7.0") == []
    assert flagcheck.check_vllm_env("VLLM_ATTENTION_BACKEND", parse_engine_version("vllm", "0.14.1")).problem is None


# -- fixes valid for the versions the deployment can be on (RL207) --------------------------------------------------

SPEC = "--speculative-config '{\"method\": \"eagle3\", \"model\": \"d\", \"num_speculative_tokens\": 3}'"
RL207 = ("Speculative decoding with the FLASHINFER attention backend silently downgrades CUDA graphs to PIECEWISE "
         "(47.5 vs 55.2 tok/s on FLASH_ATTN); use ")


@pytest.mark.parametrize(("text", "version", "use"), [
    # an L40S (SM 8.9): FlashInfer graphs only single-token decode there up to 0.32.0
    (f"VLLM_ATTENTION_BACKEND=FLASHINFER vllm serve M {SPEC}\n", "0.12.0", "VLLM_ATTENTION_BACKEND=FLASH_ATTN"),
    (f"vllm serve M {SPEC} --attention-backend FLASHINFER\n", None,
     "--attention-backend FLASH_ATTN (possible: depends on engine.version: holds on vLLM 0.13.0-0.32.0; set "
     "--engine-version V)"),
    (f"vllm serve M {SPEC} --attention-backend FLASHINFER\n", "0.30.0", "--attention-backend FLASH_ATTN"),
    (f"VLLM_ATTENTION_BACKEND=FLASHINFER vllm serve M {SPEC}\n", None,
     "--attention-backend FLASH_ATTN (vLLM 0.13.0-0.33.0) or VLLM_ATTENTION_BACKEND=FLASH_ATTN (vLLM 0.8.2-0.14.1) "
     "(possible: depends on engine.version: holds on vLLM 0.11.0-0.14.1; set --engine-version V)"),
])
def test_rl207_names_the_setting_valid_for_the_version(text: str, version: str | None, use: str) -> None:
    run = lint_text(text, "serve.sh", "shell", Options(target=Target(engine_version=version, gpu="L40S")))
    assert [f.message for f in run.findings if f.code == "RL207"] == [RL207 + use]


def _rl207_edits(text: str, version: str) -> list[fixedit.TextEdit] | None:
    options = Options(target=Target(engine_version=version))
    run = lint_text(text, "serve.sh", "shell", options)
    records = {r["id"]: r for r in load_records(options)[0]}
    return _fix_edits(read_file(text, "serve.sh", "shell"), run.deployments[0],
                             records["RL207"]["trigger"]["fix_edit"]["set"])


def test_rl207_quick_fix_edits_the_variable_before_0_13() -> None:
    text = "VLLM_ATTENTION_BACKEND=FLASHINFER vllm serve M --speculative-model d --num-speculative-tokens 3\n"
    assert _rl207_edits(text, "0.6.6.post1") == [fixedit.TextEdit(1, 24, 1, 34, "FLASH_ATTN")]


def test_rl207_quick_fix_on_0_30_edits_the_flag() -> None:
    text = f"vllm serve M {SPEC} --attention-backend FLASHINFER\n"
    edits = _rl207_edits(text, "0.30.0")
    assert edits is not None and [e.new_text for e in edits] == ["FLASH_ATTN"]


def test_a_typo_is_matched_only_against_options_of_the_versions_the_others_allow() -> None:
    assert _found("vllm serve M --speculative-modle d --language-model-only\n") == [
        ("RL507", "possible", 1, 14, "`--speculative-modle` is not an option of any vLLM version from 0.6.6.post1 to "
         f"0.33.0 (no close option): {RUN} (possible: depends on engine.version: holds on vLLM 0.17.0-0.33.0; "
         "unknown on newer than 0.33.0; set --engine-version V)"),
        ("RL507", "possible", 1, 36, "`--language-model-only` exists only in vLLM 0.17.0-0.33.0: vLLM refuses to "
         "start (\"unrecognized arguments\") (possible: depends on engine.version: holds on vLLM 0.6.6.post1-0.16.0; "
         "unknown on older than 0.6.6.post1; set --engine-version V)"),
    ]
    assert "(did you mean `--speculative-model`?)" in _found("vllm serve M --speculative-modle d\n")[0][4]
