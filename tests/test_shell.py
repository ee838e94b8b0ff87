"""The shell reader and the vLLM model on scripts: exact facts with origin and location; never a crash."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from relialint.engines import extract
from relialint.readers import shell
from relialint.readers.opener import MemoryOpener
from relialint.run.lint import finish


def facts_of(script: str, path: str = "s.sh") -> list[dict[str, Any]]:
    result = shell.read(script, path, MemoryOpener({}))
    out = []
    for d in extract(result):
        finish(d)
        out.append({k: (f.value if not hasattr(f.value, "scheme") else str(f.value), f.origin, f.line, f.column)
                    for k, f in d.facts.facts.items()})
    return out


def test_continuations_variables_and_prefix_env() -> None:
    script = (
        "#!/bin/bash\n"
        "export VLLM_USE_V2_MODEL_RUNNER=0\n"
        'MODEL="${MODEL:-Qwen/Qwen3-30B-A3B-FP8}"\n'
        "CUDA_VISIBLE_DEVICES=0,1 exec vllm serve \"$MODEL\" \\\n"
        "  --kv_cache_dtype=fp8 \\\n"
        "  -tp 2 \\\n"
        "  --speculative-config '{\"method\": \"qwen3_next_mtp\", \"num_speculative_tokens\": 2}' \\\n"
        "  --enforce-eager &\n"
    )
    (facts,) = facts_of(script)
    assert facts["kv_cache.dtype"] == ("fp8", "flag", 5, 3)
    assert facts["parallel.tensor"] == (2, "flag", 6, 3)
    assert facts["spec_decode.method"] == ("mtp", "flag", 7, 3)
    assert facts["spec_decode.num_tokens"] == (2, "flag", 7, 3)
    assert facts["spec_decode.enabled"] == (True, "flag", 7, 3)
    assert facts["cuda_graphs.enabled"] == (False, "flag", 8, 3)
    assert facts["model.name"] == ("Qwen/Qwen3-30B-A3B-FP8", "flag", 4, 42)
    assert facts["model.quantization"] == ("fp8", "inferred", 4, 42)
    assert facts["model.moe"] == (True, "inferred", 4, 42)
    assert facts["gpu.count"] == (2, "env", 4, 1)
    assert facts["env.VLLM_USE_V2_MODEL_RUNNER"] == ("0", "env", 2, 8)
    assert facts["serve.dtype"] == ("auto", "default", None, None)


def test_equivalent_spellings_give_the_same_fact(tmp_path: Any) -> None:
    spellings = ["--kv-cache-dtype fp8", "--kv_cache_dtype=fp8", "--kv-cache-dtype=fp8", "--kv-cache fp8"]
    for spelling in spellings:
        (facts,) = facts_of(f"vllm serve m {spelling}\n")
        assert facts["kv_cache.dtype"][:2] == ("fp8", "flag"), spelling
    script = tmp_path / "serve.sh"
    (tmp_path / "cfg.yaml").write_text("kv_cache_dtype: fp8\nenforce-eager: true\n")
    script.write_text("vllm serve m --config cfg.yaml\n")
    from relialint.engines import extract as run_extract
    from relialint.run.files import DiskOpener

    opener = DiskOpener()
    (dep,) = run_extract(shell.read(script.read_text(), str(script), opener), opener)
    fact = dep.facts.facts["kv_cache.dtype"]
    assert (fact.value, fact.origin, fact.path, fact.line, fact.column) == ("fp8", "config-file",
                                                                            str(tmp_path / "cfg.yaml"), 1, 1)
    assert dep.facts.facts["cuda_graphs.enabled"].value is False


def test_heredoc_config_is_read() -> None:
    script = "cat > cfg.yaml <<EOF\nkv-cache-dtype: fp8_e5m2\nEOF\nvllm serve m --config cfg.yaml\n"
    (facts,) = facts_of(script)
    assert facts["kv_cache.dtype"] == ("fp8_e5m2", "config-file", 2, 1)


def test_config_equals_form_is_not_expanded() -> None:
    script = "cat > cfg.yaml <<EOF\nkv-cache-dtype: fp8\nEOF\nvllm serve m --config=cfg.yaml\n"
    (facts,) = facts_of(script)
    assert facts["kv_cache.dtype"] == ("auto", "default", None, None)


def test_splice_makes_flags_unknown_not_absent() -> None:
    (facts,) = facts_of('vllm serve m $EXTRA_ARGS\n')
    assert "kv_cache.dtype" not in facts
    (facts,) = facts_of('vllm serve m "$@"\n')
    assert "serve.dtype" not in facts


def test_unresolved_variable_is_unknown() -> None:
    (facts,) = facts_of('vllm serve m --dtype "$DTYPE"\n')
    assert "serve.dtype" not in facts


def test_pip_pin_gives_version_and_defaults() -> None:
    script = 'uv pip install "vllm==0.30.0"\nvllm serve m\n'
    (facts,) = facts_of(script)
    assert facts["engine.version"] == ("0.30.0", "inferred", 1, 16)
    assert facts["prefix_caching.enabled"] == (True, "default", None, None)
    assert facts["memory.gpu_utilization"] == (0.92, "default", None, None)
    assert facts["engine.v2_model_runner"] == (True, "default", None, None)


def test_docker_run_image_entrypoint_by_tag() -> None:
    script = ("docker run --gpus all -e VLLM_USE_V2_MODEL_RUNNER=0 vllm/vllm-openai:v0.29.0 \\\n"
              "  nvidia/Llama-3.1-8B-Instruct-FP8 --dtype half\n")
    (facts,) = facts_of(script)
    assert facts["engine.version"] == ("0.29.0", "image", 1, 53)
    assert facts["serve.dtype"] == ("float16", "flag", 2, 36)
    assert facts["model.quantization"] == ("fp8", "inferred", 2, 3)
    assert facts["engine.v2_model_runner"] == (False, "env", 1, 26)


def test_api_server_form() -> None:
    script = "python3 -m vllm.entrypoints.openai.api_server --model m-AWQ --quantization awq\n"
    (facts,) = facts_of(script)
    assert facts["model.name"] == ("m-AWQ", "flag", 1, 55)
    assert facts["model.quantization"] == ("awq", "flag", 1, 61)
    assert facts["model.weight_only"] == (True, "flag", 1, 61)


def test_llama_server_and_cmake_build() -> None:
    script = ("cmake -B build -DGGML_HIP=ON -DGGML_CUDA_NO_PEER_COPY=ON\n"
              "./build/bin/llama-server -m /m/model-Q4_0.gguf -ub 256 -sm row -ts 1,1\n")
    (facts,) = facts_of(script)
    assert facts["engine.name"] == ("llama.cpp", "inferred", 2, 1)
    assert facts["engine.backend"] == ("hip", "build", 1, 16)
    assert facts["build.GGML_CUDA_NO_PEER_COPY"] == ("ON", "build", 1, 30)
    assert facts["llama.ubatch"] == (256, "flag", 2, 48)
    assert facts["llama.split_mode"] == ("row", "flag", 2, 56)
    assert facts["gpu.count"] == (2, "flag", 2, 64)
    assert facts["model.quantization"] == ("gguf-q4_0", "inferred", 2, 29)


def test_non_deployments_give_nothing() -> None:
    assert facts_of("#!/bin/sh\nset -e\nls -la\nbash -c 'echo vllm serve m'\necho done\n") == []


def test_broken_syntax_keeps_what_it_can_read() -> None:
    result = shell.read("vllm serve m --dtype bfloat16\nif [ x; then\n  (\n", "s.sh", MemoryOpener({}))
    assert [e.severity for e in result.errors] and all(e.severity == "warning" for e in result.errors)
    assert len(extract(result)) == 1


TOKENS = st.sampled_from(["vllm", "serve", "--dtype", "bfloat16", "$X", '"$@"', "\\\n", "'", '"', "${A:-b}",
                          "<<EOF", "EOF", "|", "&&", ";", "(", ")", "{", "}", "--config", "=", "docker", "run",
                          "-e", "llama-server", "-fa", "\n", " ", "$(", "`", "#", "export", "A=1", "\x00", "é"])


@settings(max_examples=200, deadline=None)
@given(st.lists(TOKENS, max_size=40))
def test_token_soup_never_raises(tokens: list[str]) -> None:
    result = shell.read(" ".join(tokens), "soup.sh", MemoryOpener({}))
    for d in extract(result):
        finish(d)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_random_bytes_never_raise(data: bytes) -> None:
    text = data.decode("utf-8", errors="replace")
    result = shell.read(text, "bytes.sh", MemoryOpener({}))
    for d in extract(result):
        finish(d)


def test_unquoted_empty_expansion_is_no_word() -> None:
    # ${EXTRA_ARGS:-} with the variable unset expands to nothing and, unquoted, field splitting removes the word:
    # the model is the next word, located there
    (facts,) = facts_of("vllm serve ${EXTRA_ARGS:-} Qwen/Qwen3-8B --port 8000\n")
    assert facts["model.name"] == ("Qwen/Qwen3-8B", "flag", 1, 28)
    (facts,) = facts_of("EMPTY=\nvllm serve $EMPTY${NONE:-} Qwen/Qwen3-8B\n")
    assert facts["model.name"] == ("Qwen/Qwen3-8B", "flag", 2, 28)
    # quoted, it is one empty word (here the positional model); beside literal text it is no word of its own
    (facts,) = facts_of('vllm serve "${EXTRA_ARGS:-}" Qwen/Qwen3-8B\n')
    assert facts["model.name"] == ("", "flag", 1, 12)
    (facts,) = facts_of("vllm serve --served-model-name=${NAME:-} Qwen/Qwen3-8B\n")
    assert facts["model.name"] == ("Qwen/Qwen3-8B", "flag", 1, 42)
