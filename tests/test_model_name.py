"""Model facts from the model's name (issue 12): each with origin `inferred` and the token that decided it."""

from __future__ import annotations

import pytest

from relialint.engines.model_name import infer
from relialint.run.lint import Options, lint_text

PLAIN = "no quantization token, and {} publishes full-precision weights under plain names"


def family(base: str, name: str, arch: str, vllm: str, llamacpp: str, **facts: object
           ) -> dict[str, tuple[object, str]]:
    """The facts a family of data/model_families.yaml gives (``model.family`` with its witnessed floors)."""
    token = f"{base}: {name} ({arch}; vLLM >= {vllm}, llama.cpp >= {llamacpp} (witnessed in the released code))"
    return {"model.family": (name, token), **{f"model.{k}": (v, f"{base} ({name})") for k, v in facts.items()}}


def family_no_floor(base: str, name: str, arch: str, **facts: object) -> dict[str, tuple[object, str]]:
    """A family of data/model_families.yaml that names no engine floor (``llama-3``, ``qwen2.5``, merge27)."""
    return {"model.family": (name, f"{base}: {name} ({arch})"),
            **{f"model.{k}": (v, f"{base} ({name})") for k, v in facts.items()}}


def table(name: str) -> dict[str, tuple[object, str]]:
    return {i.key: (i.value, i.token) for i in infer(name)}


@pytest.mark.parametrize(("name", "expected"), [
    ("meta-llama/Llama-3.1-8B-Instruct", {
        "model.quantization": (None, PLAIN.format("meta-llama")),
        "model.kv_cache_scales": (None, PLAIN.format("meta-llama")),
        **family_no_floor("Llama-3.1-8B-Instruct", "llama-3", "LlamaForCausalLM", moe=False, hybrid=False,
                          sliding_window=False)}),
    ("Qwen/Qwen3-30B-A3B-FP8", {
        "model.quantization": ("fp8", "FP8"), "model.weight_only": (False, "FP8"),
        **family("Qwen3-30B-A3B-FP8", "qwen3-moe", "Qwen3MoeForCausalLM", "0.8.4", "b4876", moe=True, hybrid=False,
                 sliding_window=False)}),
    ("RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-dynamic", {
        "model.quantization": ("fp8", "FP8-dynamic"), "model.weight_only": (False, "FP8-dynamic"),
        **family_no_floor("Meta-Llama-3.1-8B-Instruct-FP8-dynamic", "llama-3", "LlamaForCausalLM", moe=False,
                          hybrid=False, sliding_window=False)}),
    ("nvidia/Qwen3-235B-A22B-NVFP4", {
        "model.quantization": ("nvfp4", "NVFP4"),
        **family("Qwen3-235B-A22B-NVFP4", "qwen3-moe", "Qwen3MoeForCausalLM", "0.8.4", "b4876", moe=True,
                 hybrid=False, sliding_window=False)}),
    ("myorg/Qwen3-32B-MXFP4-W4A16", {
        "model.quantization": ("mxfp4", "MXFP4"), "model.weight_only": (True, "W4A16"),
        **family("Qwen3-32B-MXFP4-W4A16", "qwen3", "Qwen3ForCausalLM", "0.8.4", "b4876", moe=False, hybrid=False,
                 sliding_window=False)}),
    ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4", {
        "model.quantization": ("gptq", "GPTQ-Int4"), "model.weight_only": (True, "GPTQ-Int4"),
        **family_no_floor("Qwen2.5-7B-Instruct-GPTQ-Int4", "qwen2.5", "Qwen2ForCausalLM", moe=False, hybrid=False,
                          sliding_window=False)}),
    ("TheBloke/Mistral-7B-Instruct-v0.1-AWQ", {
        "model.quantization": ("awq", "AWQ"), "model.weight_only": (True, "AWQ"),
        "model.moe": (False, "Mistral-7B (Mistral-7B, dense)"),
        "model.sliding_window": (True, "Mistral-7B-Instruct-v0.1 (Mistral-7B v0.1)")}),
    ("neuralmagic/Llama-3.2-1B-Instruct-quantized.w8a8", {
        "model.quantization": ("int8", "w8a8"), "model.weight_only": (False, "w8a8"),
        **family_no_floor("Llama-3.2-1B-Instruct-quantized.w8a8", "llama-3", "LlamaForCausalLM", moe=False,
                          hybrid=False, sliding_window=False)}),
    ("unsloth/gemma-3-12b-it-bnb-4bit", {
        "model.quantization": ("bitsandbytes", "bnb-4bit"), "model.weight_only": (True, "bnb-4bit"),
        **family("gemma-3-12b-it-bnb-4bit", "gemma3", "Gemma3ForConditionalGeneration/Gemma3ForCausalLM", "0.8.0",
                 "b4580", moe=False, hybrid=False, sliding_window=True)}),
    ("/models/Qwen3-30B-A3B-Q4_K_M.gguf", {
        "model.quantization": ("gguf-q4_k_m", "Q4_K_M"),  # a GGUF file's name identifies the checkpoint
        **family("Qwen3-30B-A3B-Q4_K_M.gguf", "qwen3-moe", "Qwen3MoeForCausalLM", "0.8.4", "b4876", moe=True,
                 hybrid=False, sliding_window=False)}),
    ("/models/gpt-oss-20b-mxfp4.gguf", {
        "model.quantization": ("gguf-mxfp4", "mxfp4"),
        **family("gpt-oss-20b-mxfp4.gguf", "gpt-oss", "GptOssForCausalLM", "0.10.1", "b5905", moe=True, hybrid=False,
                 sliding_window=True)}),
    ("deepseek-ai/DeepSeek-V3", {
        "model.quantization": ("fp8", "DeepSeek-V3 (released in FP8)"),
        "model.weight_only": (False, "DeepSeek-V3 (released in FP8)"),
        **family("DeepSeek-V3", "deepseek-v3", "DeepseekV3ForCausalLM", "0.6.6", "b2863", moe=True, hybrid=False)}),
    ("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", {}),  # a dense BF16 distillation, by a publisher not listed
    ("openai/gpt-oss-120b", {
        "model.quantization": ("mxfp4", "gpt-oss-120b (released in MXFP4)"),
        **family("gpt-oss-120b", "gpt-oss", "GptOssForCausalLM", "0.10.1", "b5905", moe=True, hybrid=False,
                 sliding_window=True)}),
    ("meta-llama/Llama-4-Scout-17B-16E-Instruct", {
        "model.quantization": (None, PLAIN.format("meta-llama")),
        "model.kv_cache_scales": (None, PLAIN.format("meta-llama")),
        **family("Llama-4-Scout-17B-16E-Instruct", "llama4", "Llama4ForConditionalGeneration", "0.8.3", "b4876",
                 moe=True, hybrid=False)}),
    ("mistralai/Mixtral-8x7B-Instruct-v0.1", {"model.moe": (True, "8x7B")}),  # mistralai: not a plain-name publisher
    ("Qwen/Qwen3-8B-MLX-4bit", {  # another format's token: not taken for full precision
        **family("Qwen3-8B-MLX-4bit", "qwen3", "Qwen3ForCausalLM", "0.8.4", "b4876", moe=False, hybrid=False,
                 sliding_window=False)}),
    ("/models/llama", {}),  # a local path says nothing
    ("/models/gpt-oss-120b", {  # a local folder named after a family: what it says of the kind, but no model.family
        "model.moe": (True, "gpt-oss-120b (gpt-oss)"), "model.hybrid": (False, "gpt-oss-120b (gpt-oss)"),
        "model.sliding_window": (True, "gpt-oss-120b (gpt-oss)")}),  # (and so no engine floor)
    ("./checkpoints/my-model", {}),
])
def test_inference(name: str, expected: dict[str, tuple[object, str]]) -> None:
    assert table(name) == expected


def facts(text: str) -> dict[str, tuple[object, str, int | None, int | None, str | None]]:
    (deployment,) = lint_text(text, "serve.sh", "shell", Options()).deployments
    return {k: (f.value, f.origin, f.line, f.column, f.note) for k, f in deployment.facts.items()
            if k.startswith("model.")}


def test_located_with_origin_and_note() -> None:
    assert facts("vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192\n") == {
        "model.name": ("meta-llama/Llama-3.1-8B-Instruct", "flag", 1, 12, None),
        "model.quantization": (None, "inferred", 1, 12, "from the model name: " + PLAIN.format("meta-llama")),
        "model.kv_cache_scales": (None, "inferred", 1, 12, "from the model name: " + PLAIN.format("meta-llama")),
        # the llama-3 family of data/model_families.yaml (merge27)
        "model.family": ("llama-3", "inferred", 1, 12,
                         "from the model name: Llama-3.1-8B-Instruct: llama-3 (LlamaForCausalLM)"),
        "model.moe": (False, "inferred", 1, 12, "from the model name: Llama-3.1-8B-Instruct (llama-3)"),
        "model.hybrid": (False, "inferred", 1, 12, "from the model name: Llama-3.1-8B-Instruct (llama-3)"),
        "model.sliding_window": (False, "inferred", 1, 12, "from the model name: Llama-3.1-8B-Instruct (llama-3)"),
    }


def test_quantization_flag_wins_over_the_name() -> None:
    found = facts("vllm serve Qwen/Qwen2.5-7B-Instruct-AWQ --quantization fp8\n")
    assert found["model.quantization"] == ("fp8", "flag", 1, 41, None)
    assert "model.weight_only" not in found  # the method given decides the scheme, not the name
    found = facts("vllm serve meta-llama/Llama-3.1-8B-Instruct -q awq_marlin\n")
    assert found["model.quantization"] == ("awq", "flag", 1, 45, None)
    assert found["model.weight_only"] == (True, "flag", 1, 45, None)


def test_llamacpp_model_file() -> None:
    (deployment,) = lint_text("llama-server -m /models/gemma-2-9b-it-Q5_K_S.gguf\n", "serve.sh", "shell",
                              Options()).deployments
    got = {k: (f.value, f.origin, f.line, f.column) for k, f in deployment.facts.items() if k.startswith("model.")}
    assert got == {"model.name": ("/models/gemma-2-9b-it-Q5_K_S.gguf", "flag", 1, 17),
                   "model.quantization": ("gguf-q5_k_s", "inferred", 1, 17),
                   "model.moe": (False, "inferred", 1, 17), "model.sliding_window": (True, "inferred", 1, 17)}


def test_llamacpp_hf_repo_with_a_quant_type() -> None:
    (deployment,) = lint_text("llama-server -hf unsloth/Qwen3-30B-A3B-GGUF:Q4_K_M\n", "serve.sh", "shell",
                              Options()).deployments
    got = {k: (f.value, f.origin, f.line, f.column, f.note) for k, f in deployment.facts.items()
           if k.startswith("model.")}
    assert got == {"model.name": ("unsloth/Qwen3-30B-A3B-GGUF:Q4_K_M", "flag", 1, 18, None),
                   "model.quantization": ("gguf-q4_k_m", "inferred", 1, 18, "from the model name: Q4_K_M"),
                   **{k: (v, "inferred", 1, 18, f"from the model name: {token}") for k, (v, token) in family(
                       "Qwen3-30B-A3B-GGUF", "qwen3-moe", "Qwen3MoeForCausalLM", "0.8.4", "b4876", moe=True,
                       hybrid=False, sliding_window=False).items()}}
    # a GGUF repository without a quant type: llama.cpp picks one; never taken for full precision
    assert {i.key for i in infer("Qwen/Qwen3-8B", gguf=True)} == {"model.family", "model.moe", "model.hybrid",
                                                                   "model.sliding_window"}


@pytest.mark.parametrize(("text", "path", "kind", "line", "column"), [
    ('vllm serve --model="Qwen/Qwen3-8B" --port 8000\n', "serve.sh", "shell", 1, 12),
    ("vllm serve --model=Qwen/Qwen3-8B\n", "serve.sh", "shell", 1, 12),
    ('bash -c "vllm serve --model=Qwen/Qwen3-8B --port 8000"\n', "serve.sh", "shell", 1, 21),
    ("python3 -m vllm.entrypoints.openai.api_server --model='Qwen/Qwen3-8B'\n", "serve.sh", "shell", 1, 47),
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: m}\nspec:\n  containers:\n  - name: vllm\n"
     "    image: vllm/vllm-openai:v0.11.0\n    args: [\"--model=Qwen/Qwen3-8B\"]\n", "pod.yaml", "kubernetes", 8, 12),
])
def test_a_model_given_as_model_equals_name_keeps_neither_the_option_nor_a_quote(
        text: str, path: str, kind: str, line: int, column: int) -> None:
    """``--model=NAME`` (quoted or not): the model is NAME, located at the word that gives it (issue 25)."""
    (deployment,) = lint_text(text, path, kind, Options()).deployments
    name = deployment.facts.facts["model.name"]
    assert (name.value, name.origin, name.line, name.column) == ("Qwen/Qwen3-8B", "flag", line, column)
    assert deployment.facts.facts["model.moe"].value is False
