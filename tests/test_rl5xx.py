"""Acceptance of RL501-RL507: exact code, certainty, line and column, through the whole linter."""

from __future__ import annotations

import pytest

from relialint.core.facts import Fact
from relialint.run.lint import Finding, Options, Target, lint_text


def _lint(text: str, version: str | None = None, kind: str = "shell", name: str = "serve.sh") -> list[Finding]:
    options = Options(target=Target(engine_version=version))
    return [f for f in lint_text(text, name, kind, options).findings if f.code.startswith("RL5")]


def _one(findings: list[Finding], code: str) -> Finding:
    hits = [f for f in findings if f.code == code]
    assert len(hits) == 1, findings
    return hits[0]


def test_british_spelling_on_0_30_0_is_rl507_with_did_you_mean() -> None:
    finding = _one(_lint("vllm serve Qwen/Qwen3-8B --gpu-memory-utilisation 0.85\n", "0.30.0"), "RL507")
    assert (finding.certainty, finding.line, finding.column) == ("definite", 1, 26)
    assert "did you mean `--gpu-memory-utilization`" in finding.message


def test_speculative_model_on_0_9_0_is_rl507() -> None:
    text = "vllm serve Qwen/Qwen3-8B \\\n  --speculative-model Qwen/Qwen3-0.6B --num-speculative-tokens 5\n"
    found = [(f.certainty, f.line, f.column, f.message) for f in _lint(text, "0.9.0") if f.code == "RL507"]
    assert found == [
        ("definite", 2, 3, "`--speculative-model` is not an option of vLLM 0.9.0; it exists in 0.6.6.post1-0.8.2; "
         "use `--speculative-config '{\"model\": ...}'` instead: vLLM refuses to start (\"unrecognized arguments\")"),
        ("definite", 2, 39, "`--num-speculative-tokens` is not an option of vLLM 0.9.0; it exists in "
         "0.6.6.post1-0.8.2; use `--speculative-config '{\"num_speculative_tokens\": ...}'` instead: vLLM refuses "
         "to start (\"unrecognized arguments\")"),
    ]


def test_speculative_model_still_there_on_0_8_2() -> None:
    assert not _lint("vllm serve m --speculative-model d --num-speculative-tokens 5\n", "0.8.2")


def test_speculative_model_version_unknown_is_possible_on_engine_version() -> None:
    finding = _one(_lint("vllm serve m --speculative-model d\n"), "RL507")
    assert finding.certainty == "possible"
    assert finding.missing_facts == ["engine.version"]


def test_option_no_version_has_is_possible_without_a_version_for_the_releases_beyond_the_tables() -> None:
    finding = _one(_lint("vllm serve m --gpu-memory-utilisation 0.8\n"), "RL507")
    assert (finding.certainty, finding.shown) == ("possible", True)
    assert "did you mean `--gpu-memory-utilization`" in finding.message
    assert finding.message.endswith("(possible: depends on engine.version: holds on vLLM 0.6.6.post1-0.33.0; "
                                    "unknown on older than 0.6.6.post1, newer than 0.33.0; set --engine-version V)")


def test_option_no_version_has_is_definite_on_a_tabled_version() -> None:
    assert _one(_lint("vllm serve m --gpu-memory-utilisation 0.8\n", "0.10.0"), "RL507").certainty == "definite"


def test_unique_prefix_and_underscores_are_accepted() -> None:
    assert not _lint("vllm serve m --gpu-mem 0.5 --max-model 4096 --gpu_memory_utilization=0.5 -tp=2\n", "0.33.0")


def test_attention_backend_env_on_0_16_0_is_rl504_and_on_0_12_0_sets_the_backend() -> None:
    text = "export VLLM_ATTENTION_BACKEND=FLASHINFER\nvllm serve Qwen/Qwen3-8B\n"
    finding = _one(_lint(text, "0.16.0"), "RL504")
    assert (finding.certainty, finding.line, finding.column) == ("definite", 1, 8)
    assert not _lint(text, "0.12.0")
    run = lint_text(text, "serve.sh", "shell", Options(target=Target(engine_version="0.12.0")))
    backend = run.deployments[0].facts.get("attention.backend")
    assert isinstance(backend, Fact) and backend.value == "FLASHINFER" and backend.origin == "env"


def test_llama_server_flag_equals_value_is_rl505() -> None:
    finding = _one(_lint("llama-server --ctx-size=4096\n", "b11312"), "RL505")
    assert (finding.certainty, finding.line, finding.column) == ("definite", 1, 14)
    assert "--ctx-size=4096" in finding.message


def test_bare_flash_attn_on_b8643_is_rl506() -> None:
    finding = _one(_lint("llama-server -fa -c 4096\n", "b8643"), "RL506")
    assert (finding.certainty, finding.line, finding.column) == ("definite", 1, 14)


@pytest.mark.parametrize("text", ["llama-server -fa -c 4096\n", "llama-server -fa on -c 4096\n"])
def test_flash_attn_inside_the_witnessed_bracket_is_possible(text: str) -> None:
    """-fa takes no value in 0.3.16's vendored build (b6111-b8501) and one in 0.3.17's (b6112-b8502): a build in
    between is possible on the option tables, never definite and never clean."""
    finding = _one(_lint(text, "b6500"), "RL506")
    assert (finding.certainty, finding.line, finding.column) == ("possible", 1, 14)
    assert finding.missing_facts == ["llama.flash_attn_takes_value"]


@pytest.mark.parametrize(("text", "version", "hidden"), [
    ("llama-server -fa on -c 4096\n", "b8502", ["RL519", "RL546"]),
    ("llama-server -c 4096 -fa\n", "b6111", ["RL519", "RL532", "RL546"]),
])
def test_flash_attn_spelled_for_its_build_passes(text: str, version: str, hidden: list[str]) -> None:
    """No RL506. What remains are merge27 records that wait on facts the line does not state, all possible and
    none shown: RL519/RL546 on the server's build options, RL532 (no -ngl on b6111-b8501) on the backend."""
    assert [(f.code, f.certainty, f.shown) for f in _lint(text, version)] == [
        (code, "possible", False) for code in hidden]


def test_config_equals_form_is_rl501() -> None:
    finding = _one(_lint("vllm serve --config=cfg.yaml\n", "0.30.0"), "RL501")
    assert (finding.certainty, finding.line, finding.column) == ("definite", 1, 12)
    # the space form is read (here: missing, so every option is unknown: possible findings at most)
    assert [f for f in _lint("vllm serve --config cfg.yaml\n", "0.30.0") if f.code == "RL501" or f.shown] == []


def test_config_equals_form_version_unknown_is_possible() -> None:
    """RL501 is witnessed from 0.6.0 to 0.33.0 only: an unpinned version may be newer than any release checked."""
    finding = _one(_lint("vllm serve --config=cfg.yaml\n"), "RL501")
    assert (finding.certainty, finding.line, finding.column) == ("possible", 1, 12)
    assert finding.missing_facts == ["engine.version"]


def test_api_server_positional_model_is_rl502() -> None:
    text = "python -m vllm.entrypoints.openai.api_server Qwen/Qwen3-8B\n"
    finding = _one(_lint(text, "0.12.0"), "RL502")
    assert (finding.certainty, finding.line, finding.column) == ("definite", 1, 46)
    assert not _lint(text, "0.9.2")


def test_image_with_vllm_serve_repeated_is_rl503() -> None:
    finding = _one(_lint("docker run vllm/vllm-openai:v0.30.0 vllm serve Qwen/Qwen3-8B\n"), "RL503")
    assert (finding.certainty, finding.line, finding.column) == ("definite", 1, 37)
    assert not _lint("docker run vllm/vllm-openai:v0.30.0 Qwen/Qwen3-8B\n")


def test_every_llamacpp_equals_form_is_reported_at_its_own_word() -> None:
    found = [f for f in _lint("llama-server -m m.gguf --ctx-size=8192 --port 8080 --n-gpu-layers=99\n", "b9445")
             if f.code == "RL505"]
    assert [(f.certainty, f.line, f.column) for f in found] == [("definite", 1, 24), ("definite", 1, 52)]
