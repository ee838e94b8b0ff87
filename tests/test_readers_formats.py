"""Config readers end to end: exact deployments and facts (value, origin, line, column) per format."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from relialint.core.deployment import Deployment
from relialint.core.facts import render
from relialint.run.lint import Options, Target, lint_paths, lint_text

FIXTURES = Path(__file__).parent / "fixtures" / "readers"


def _copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(FIXTURES / name, target)
    return target


def run(*paths: Path, gpu: str | None = None) -> list[Deployment]:
    result = lint_paths([str(p) for p in paths], Options(Target(gpu=gpu)))
    assert result.errors == [], result.errors
    return result.deployments


def fact(d: Deployment, key: str) -> tuple[str, str, str | None, int | None, int | None]:
    f = d.facts.facts[key]
    return render(f.value), f.origin, Path(f.path).name if f.path else None, f.line, f.column


def note(d: Deployment, key: str) -> str | None:
    return d.facts.facts[key].note


def where(d: Deployment) -> tuple[str, str, str, int, int]:
    return d.engine, d.kind, Path(d.span.path).name, d.span.line, d.span.column


# -- compose --------------------------------------------------------------------------------------------------------


def test_compose_interpolation_from_dotenv_origin_and_location(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "compose-env")
    vllm, llama = run(folder / "compose.yaml")
    assert where(vllm) == ("vllm", "compose", "compose.yaml", 14, 12)
    # the acceptance case: fp8 from .env, located at the compose line, origin the .env line
    assert fact(vllm, "kv_cache.dtype") == ("fp8", "flag", "compose.yaml", 21, 7)
    assert note(vllm, "kv_cache.dtype") == f"value from {folder / '.env'}:1:1"
    assert fact(vllm, "model.name") == ("Qwen/Qwen3-8B", "flag", "compose.yaml", 20, 7)
    assert note(vllm, "model.name") == f"value from {folder / '.env'}:3:1"
    assert fact(vllm, "engine.version") == ("0.30.0", "image", "compose.yaml", 14, 12)
    assert fact(vllm, "limits.max_model_len") == ("8192", "flag", "compose.yaml", 22, 7)
    # x- extension block merged with <<: *gpu: the device reservation count and driver
    assert fact(vllm, "gpu.count") == ("1", "manifest", "compose.yaml", 8, 20)
    assert fact(vllm, "gpu.vendor") == ("nvidia", "manifest", "compose.yaml", 7, 21)
    assert fact(vllm, "env.VLLM_USE_V2_MODEL_RUNNER") == ("0", "env", "compose.yaml", 17, 7)
    assert fact(vllm, "engine.v2_model_runner") == ("false", "env", "compose.yaml", 17, 7)
    assert "env.HF_TOKEN" not in vllm.facts.facts  # `HF_TOKEN:` with no value passes the host's through: unknown
    assert vllm.facts.get("env.HF_TOKEN") is None

    assert where(llama) == ("llama.cpp", "compose", "compose.yaml", 24, 12)
    # ${N_GPU_LAYERS:--1}: not in .env, the default applies; ${UBATCH-256} likewise
    assert fact(llama, "llama.n_gpu_layers") == ("-1", "flag", "compose.yaml", 28, 15)
    assert fact(llama, "llama.ubatch") == ("256", "flag", "compose.yaml", 29, 15)
    assert fact(llama, "llama.ctx_size") == ("16384", "env", "compose.yaml", 31, 9)
    assert fact(llama, "model.name") == ("/models/qwen3-8b-q4_k_m.gguf", "flag", "compose.yaml", 27, 21)
    assert fact(llama, "engine.backend") == ("hip", "image", "compose.yaml", 24, 12)
    assert fact(llama, "engine.version") == ("b6500", "image", "compose.yaml", 24, 12)


def test_compose_interpolation_finding_points_at_compose_line(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "compose-env")
    compose = folder / "compose.yaml"  # on 0.10.2 with sleep mode, the .env's fp8 KV cache is RL120
    compose.write_text(compose.read_text().replace("vllm-openai:v0.30.0", "vllm-openai:v0.10.2").replace(
        "      --max-model-len 8192\n", "      --max-model-len 8192\n      --enable-sleep-mode\n"))
    result = lint_paths([str(compose)], Options(Target(gpu="H100"), select=["RL120"]))
    (finding,) = result.findings
    assert (finding.code, finding.certainty, Path(finding.path).name, finding.line, finding.column) == \
        ("RL120", "definite", "compose.yaml", 21, 7)


def test_compose_without_dotenv_uses_default(tmp_path: Path) -> None:
    (tmp_path / "compose.yaml").write_text(
        "services:\n  llm:\n    image: vllm/vllm-openai:v0.30.0\n"
        "    command: [\"m\", \"--kv-cache-dtype\", \"${KV_DTYPE:-auto}\", \"--dtype\", \"${DTYPE}\"]\n")
    (d,) = run(tmp_path / "compose.yaml")
    assert fact(d, "kv_cache.dtype") == ("auto", "flag", "compose.yaml", 4, 20)
    assert note(d, "kv_cache.dtype") is None
    assert "serve.dtype" not in d.facts.facts  # ${DTYPE} with neither .env nor default: unknown


def test_compose_build_combines_dockerfile(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "compose-build")
    server, shell_service = run(folder / "compose.yaml")
    assert where(server) == ("vllm", "compose", "compose.yaml", 4, 7)
    assert fact(server, "engine.version") == ("0.30.0", "image", "compose.yaml", 4, 7)
    assert note(server, "engine.version") == f"value from {folder / 'Dockerfile.vllm'}:1:5"
    assert fact(server, "env.VLLM_USE_V2_MODEL_RUNNER") == ("0", "env", "Dockerfile.vllm", 3, 5)
    assert fact(server, "model.name") == ("Qwen/Qwen3-32B-FP8", "flag", "compose.yaml", 7, 9)
    assert fact(server, "parallel.tensor") == ("2", "flag", "compose.yaml", 9, 9)
    # `entrypoint: [bash, -c]` with a literal block script: the command inside, in the image's version
    assert where(shell_service) == ("vllm", "compose", "compose.yaml", 18, 14)
    assert fact(shell_service, "engine.version") == ("0.10.1", "image", "compose.yaml", 13, 12)
    assert fact(shell_service, "cuda_graphs.enabled") == ("false", "flag", "compose.yaml", 18, 58)
    assert fact(shell_service, "model.name") == ("meta-llama/Llama-3.1-8B-Instruct", "flag", "compose.yaml", 18, 25)


COMPOSE_SHAPES = (
    "services:\n"
    "  a:\n"
    "    image: vllm/vllm-openai:v0.30.0\n"
    "    entrypoint: [\"vllm\"]\n"
    "    command: [serve, Qwen/Qwen3-8B, --kv-cache-dtype, fp8]\n"
    "  b:\n"
    "    image: vllm/vllm-openai:v0.30.0\n"
    "    command: Qwen/Qwen3-8B --tensor-parallel-size 4 --dtype 'bfloat16'\n"
    "    environment:\n"
    "      - CUDA_VISIBLE_DEVICES=0,1,2,3\n"
)


def test_compose_shapes_entrypoint_override_flow_array_string_command() -> None:
    run_ = lint_text(COMPOSE_SHAPES, "compose.yaml", "compose", Options())
    a, b = run_.deployments
    assert where(a) == ("vllm", "compose", "compose.yaml", 4, 18)
    assert fact(a, "kv_cache.dtype") == ("fp8", "flag", "compose.yaml", 5, 37)
    assert fact(a, "model.name") == ("Qwen/Qwen3-8B", "flag", "compose.yaml", 5, 22)
    assert fact(b, "parallel.tensor") == ("4", "flag", "compose.yaml", 8, 28)
    assert fact(b, "serve.dtype") == ("bfloat16", "flag", "compose.yaml", 8, 53)
    assert fact(b, "gpu.count") == ("4", "env", "compose.yaml", 10, 9)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_compose_crlf_bom_non_ascii_no_final_newline(tmp_path: Path, newline: str, bom: bytes) -> None:
    text = ("# модель — serveur\r\n".replace("\r\n", newline)
            + newline.join(["services:", "  llm:", "    image: vllm/vllm-openai:v0.30.0  # é",
                            "    command: [\"Qwen/Qwen3-8B\", \"--kv-cache-dtype\", \"fp8\"]"]))
    (tmp_path / "compose.yaml").write_bytes(bom + text.encode("utf-8"))
    (d,) = run(tmp_path / "compose.yaml")
    assert fact(d, "kv_cache.dtype") == ("fp8", "flag", "compose.yaml", 5, 32)
    assert fact(d, "engine.version") == ("0.30.0", "image", "compose.yaml", 4, 12)


# -- Kubernetes -----------------------------------------------------------------------------------------------------


def test_kubernetes_deployment_env_refs_node_selector_limits() -> None:
    (d,) = run(FIXTURES / "k8s" / "vllm.yaml")
    assert where(d) == ("vllm", "kubernetes", "vllm.yaml", 20, 21)
    assert fact(d, "model.name") == ("Qwen/Qwen3-32B", "flag", "vllm.yaml", 22, 15)  # $(MODEL_ID)
    assert note(d, "model.name") == f"value from {FIXTURES / 'k8s' / 'vllm.yaml'}:30:21"
    assert fact(d, "kv_cache.dtype") == ("fp8", "flag", "vllm.yaml", 23, 15)
    assert fact(d, "parallel.tensor") == ("2", "flag", "vllm.yaml", 25, 15)
    assert fact(d, "gpu.count") == ("2", "manifest", "vllm.yaml", 37, 15)
    assert fact(d, "gpu.model") == ("H100", "manifest", "vllm.yaml", 16, 9)
    assert fact(d, "gpu.sm") == ("9.0", "manifest", "vllm.yaml", 16, 9)
    assert fact(d, "gpu.native_fp8") == ("true", "manifest", "vllm.yaml", 16, 9)
    # $(API_KEY) from a secretKeyRef: the key is passed (the pod does not start without it), its value unknown
    assert fact(d, "flag.vllm.api-key") == ("(set from secretKeyRef vllm/api-key (API_KEY))", "flag", "vllm.yaml",
                                            27, 15)
    assert fact(d, "env.API_KEY") == ("(set from secretKeyRef vllm/api-key (API_KEY))", "env", "vllm.yaml", 32, 21)
    assert note(d, "env.API_KEY") == "the value is not in the file"


def test_kubernetes_secret_values_are_present_but_unknown(tmp_path: Path) -> None:
    manifest = tmp_path / "k.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: vllm\n"
        "      image: vllm/vllm-openai:v0.20.0\n"
        "      env:\n"
        "        - {name: VLLM_API_KEY, valueFrom: {secretKeyRef: {name: s, key: k}}}\n"
        "        - {name: MAYBE, valueFrom: {secretKeyRef: {name: s, key: m, optional: true}}}\n"
        "        - {name: LEN, value: '4096'}\n"
        "      args: ['--model=Qwen/Qwen3-8B', '--api-key=$(MAYBE)', '--max-model-len=$(LEN)',\n"
        "             '--served-model-name=$$(LEN)']\n")
    result = lint_paths([str(manifest)], Options(Target(), select=["RL510"]))
    (d,) = result.deployments
    assert fact(d, "env.VLLM_API_KEY") == ("(set from secretKeyRef s/k (VLLM_API_KEY))", "env", "k.yaml", 9, 18)
    assert "env.MAYBE" not in d.facts.facts  # optional: the kubelet may leave it unset
    assert "flag.vllm.api-key" not in d.facts.facts  # and so the word it makes stays unknown
    assert fact(d, "limits.max_model_len") == ("4096", "flag", "k.yaml", 12, 61)
    assert fact(d, "flag.vllm.served-model-name") == ("$(LEN)", "flag", "k.yaml", 13, 14)  # $$ escapes
    (finding,) = result.findings  # the key from the secret is set: RL510 is certain on 0.20.0
    assert (finding.code, finding.certainty, finding.line, finding.column) == ("RL510", "definite", 9, 18)


def test_kubernetes_list_lws_sh_c_cronjob_unmapped_label() -> None:
    result = lint_paths([str(FIXTURES / "k8s" / "lws.yaml")], Options())
    leader, llama = result.deployments
    assert where(leader) == ("vllm", "kubernetes", "lws.yaml", 22, 40)
    assert fact(leader, "parallel.tensor") == ("8", "flag", "lws.yaml", 22, 75)
    assert fact(leader, "parallel.pipeline") == ("2", "flag", "lws.yaml", 22, 100)
    assert fact(leader, "gpu.model") == ("H100", "manifest", "lws.yaml", 16, 27)  # gke-accelerator affinity
    assert where(llama) == ("llama.cpp", "kubernetes", "lws.yaml", 35, 26)
    assert fact(llama, "engine.backend") == ("cuda", "image", "lws.yaml", 35, 26)
    assert fact(llama, "llama.flash_attn") == ("on", "flag", "lws.yaml", 36, 54)
    # an NVIDIA product label and a CUDA image, but an amd.com/gpu resource: the vendor is left unknown, with a note
    assert "gpu.vendor" not in llama.facts.facts and "gpu.vendor" in llama.facts.blocked
    assert any("gpu.vendor left unknown: the file says nvidia (resource or label nvidia.com/gpu.product" in n
               and "amd (resource or label amd.com/gpu" in n and "lws.yaml:38:30" in n for n in llama.notes)
    assert "gpu.model" not in llama.facts.facts and "gpu.sm" not in llama.facts.facts
    assert any("Contoso-X900" in n and "lws.yaml:32:17" in n for n in result.notes)


SH_C_REF = """apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
    - name: server
      image: vllm/vllm-openai:v0.8.5
      command: ["/bin/sh", "-c"]
      args:
        - vllm serve $(MODEL_ID) --port 8000 --max-model-len 4096
      env:
        - name: MODEL_ID
          value: mistralai/Mistral-7B-Instruct-v0.3
"""


def test_kubernetes_ref_expanded_in_an_sh_c_script_keeps_the_columns(tmp_path: Path) -> None:
    """Issue 23: the `$(MODEL_ID)` Kubernetes expands before `sh -c` runs lands on the reference, and the words after
    it keep their own columns (the expanded script is mapped back through the substitution)."""
    (tmp_path / "pod.yaml").write_text(SH_C_REF)
    (d,) = run(tmp_path / "pod.yaml")
    assert fact(d, "engine.name") == ("vllm", "inferred", "pod.yaml", 10, 11)
    assert fact(d, "model.name") == ("mistralai/Mistral-7B-Instruct-v0.3", "flag", "pod.yaml", 10, 22)
    model = d.facts.facts["model.name"]
    assert (model.end_line, model.end_column) == (10, 33)  # the whole `$(MODEL_ID)`
    assert fact(d, "flag.vllm.port") == ("8000", "flag", "pod.yaml", 10, 34)
    assert fact(d, "limits.max_model_len") == ("4096", "flag", "pod.yaml", 10, 46)
    # the same for compose interpolation from a .env file
    (tmp_path / ".env").write_text("MODEL=Qwen/Qwen2.5-7B-Instruct\n")
    (tmp_path / "compose.yaml").write_text(
        'services:\n  vllm:\n    image: vllm/vllm-openai:v0.10.1\n'
        '    entrypoint: ["sh", "-c", "vllm serve ${MODEL} --max-model-len 4096"]\n')
    (c,) = run(tmp_path / "compose.yaml")
    assert fact(c, "model.name") == ("Qwen/Qwen2.5-7B-Instruct", "flag", "compose.yaml", 4, 42)
    assert fact(c, "limits.max_model_len") == ("4096", "flag", "compose.yaml", 4, 51)


def test_kubernetes_compute_capability_labels_and_alternatives() -> None:
    text = """apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  nodeSelector:
    nvidia.com/gpu.compute.major: "12"
    nvidia.com/gpu.compute.minor: "1"
  containers:
    - name: s
      image: vllm/vllm-openai:v0.30.0
      args: [m]
---
apiVersion: v1
kind: Pod
metadata: {name: q}
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - {key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-H100-80GB-HBM3, NVIDIA-H200]}
  containers:
    - {name: s, image: "vllm/vllm-openai:v0.30.0", args: [m]}
"""
    first, second = lint_text(text, "pods.yaml", "kubernetes", Options()).deployments
    assert fact(first, "gpu.sm") == ("12.1", "manifest", "pods.yaml", 6, 5)
    assert fact(second, "gpu.sm") == ("9.0", "manifest", "pods.yaml", 22, 17)
    assert "gpu.model" not in second.facts.facts  # H100 or H200: only what both share


# -- Helm, env files, systemd, vLLM --config, Dockerfile --------------------------------------------------------------


def test_helm_production_stack_values() -> None:
    (d,) = run(FIXTURES / "helm" / "values.yaml")
    assert where(d) == ("vllm", "helm", "values.yaml", 5, 19)
    assert fact(d, "engine.version") == ("0.30.0", "image", "values.yaml", 6, 12)
    assert fact(d, "model.name") == ("meta-llama/Llama-3.1-8B-Instruct", "flag", "values.yaml", 7, 17)
    assert fact(d, "prefix_caching.enabled") == ("false", "flag", "values.yaml", 11, 9)
    assert fact(d, "limits.max_model_len") == ("4096", "flag", "values.yaml", 12, 9)
    assert fact(d, "serve.dtype") == ("bfloat16", "flag", "values.yaml", 13, 9)
    assert fact(d, "kv_cache.dtype") == ("fp8", "flag", "values.yaml", 14, 21)
    assert fact(d, "memory.gpu_utilization") == ("0.8", "flag", "values.yaml", 14, 48)
    assert fact(d, "gpu.count") == ("1", "manifest", "values.yaml", 9, 19)
    assert fact(d, "gpu.model") == ("L4", "manifest", "values.yaml", 20, 15)
    assert fact(d, "engine.v2_model_runner") == ("false", "env", "values.yaml", 16, 17)


def test_env_file_alone_is_a_llamacpp_deployment() -> None:
    (d,) = run(FIXTURES / "envonly")
    assert where(d) == ("llama.cpp", "env", "llama.env", 2, 8)
    assert fact(d, "llama.ubatch") == ("1024", "env", "llama.env", 2, 8)
    assert fact(d, "llama.ctx_size") == ("32768", "env", "llama.env", 3, 1)
    assert fact(d, "llama.n_gpu_layers") == ("99", "env", "llama.env", 5, 1)
    assert fact(d, "env.LLAMA_ARG_MODEL") == ("/models/qwen3-8b-q4_k_m.gguf", "env", "llama.env", 4, 1)
    assert "llama.batch" not in d.facts.facts  # flags unknown: no defaults assumed


def test_systemd_unit_stray_text_continuations_environment_files() -> None:
    result = lint_paths([str(FIXTURES / "systemd" / "vllm.service")], Options())
    assert [(w.line, w.message) for w in result.warnings] == [(1, "text before the first [Section]; ignored")]
    (d,) = result.deployments
    assert where(d) == ("vllm", "systemd", "vllm.service", 9, 11)
    assert fact(d, "model.name") == ("Qwen/Qwen3-8B", "flag", "vllm.service", 9, 36)
    assert fact(d, "parallel.tensor") == ("2", "flag", "vllm.service", 10, 5)
    assert note(d, "parallel.tensor") == f"value from {FIXTURES / 'systemd' / 'vllm.service'}:6:35"
    assert fact(d, "kv_cache.dtype") == ("fp8", "flag", "vllm.service", 12, 5)
    assert fact(d, "env.VLLM_ATTENTION_BACKEND") == ("FLASHINFER", "env", "vllm.env", 1, 1)
    assert "flag.vllm.download-dir" not in d.facts.facts  # %h/models: a specifier, unknown


def test_vllm_config_standalone_true_and_mixed_keys() -> None:
    (d,) = run(FIXTURES / "vllm-config" / "config.yaml")
    assert where(d) == ("vllm", "vllm-config", "config.yaml", 1, 1)
    assert fact(d, "model.name") == ("Qwen/Qwen3-8B", "config-file", "config.yaml", 1, 1)
    assert fact(d, "parallel.tensor") == ("2", "config-file", "config.yaml", 2, 1)
    assert fact(d, "cuda_graphs.enabled") == ("false", "config-file", "config.yaml", 3, 1)  # enforce-eager: True
    assert fact(d, "prefix_caching.enabled") == ("false", "config-file", "config.yaml", 4, 1)
    assert fact(d, "kv_cache.dtype") == ("fp8", "config-file", "config.yaml", 5, 1)
    assert fact(d, "limits.max_model_len") == ("16384", "config-file", "config.yaml", 6, 1)  # no final newline


def test_dockerfile_multistage_build_facts_shell_form_cmd() -> None:
    (d,) = run(FIXTURES / "dockerfile" / "Dockerfile")
    assert where(d) == ("llama.cpp", "dockerfile", "Dockerfile", 9, 5)
    assert fact(d, "build.GGML_VULKAN") == ("ON", "build", "Dockerfile", 5, 20)
    assert fact(d, "engine.backend") == ("vulkan", "build", "Dockerfile", 5, 20)
    assert fact(d, "llama.ubatch") == ("2048", "env", "Dockerfile", 8, 5)
    assert fact(d, "llama.ctx_size") == ("4096", "flag", "Dockerfile", 9, 61)
    assert fact(d, "model.quantization") == ("gguf-q4_0", "inferred", "Dockerfile", 9, 32)


def test_dockerfile_exec_form_entrypoint_and_cmd() -> None:
    text = ('FROM vllm/vllm-openai:v0.30.0\nENV VLLM_USE_V2_MODEL_RUNNER 0\n'
            'ENTRYPOINT ["vllm", "serve"]\nCMD ["Qwen/Qwen3-8B", "--kv-cache-dtype", "fp8"]\n')
    (d,) = lint_text(text, "Dockerfile", "dockerfile", Options()).deployments
    assert where(d) == ("vllm", "dockerfile", "Dockerfile", 3, 13)
    assert fact(d, "engine.version") == ("0.30.0", "image", "Dockerfile", 1, 6)
    assert fact(d, "env.VLLM_USE_V2_MODEL_RUNNER") == ("0", "env", "Dockerfile", 2, 5)
    assert fact(d, "kv_cache.dtype") == ("fp8", "flag", "Dockerfile", 4, 23)
    assert fact(d, "model.name") == ("Qwen/Qwen3-8B", "flag", "Dockerfile", 4, 6)


# -- finding files --------------------------------------------------------------------------------------------------


def test_folder_discovery_by_shape_skips_unknown_yaml_and_used_env(tmp_path: Path) -> None:
    _copy(tmp_path, "compose-env")
    (tmp_path / "compose-env" / "workflow.yaml").write_text("on: push\njobs: {}\n")
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "compose.yaml").write_text("services: {}\n")
    (tmp_path / "cfg.yml").write_text("model: Qwen/Qwen3-8B\nmax-model-len: 4096\n")
    shutil.copy(FIXTURES / "k8s" / "vllm.yaml", tmp_path / "manifest.yml")
    result = lint_paths([str(tmp_path)], Options())
    assert result.errors == []
    assert sorted((d.kind, Path(d.path).name) for d in result.deployments) == [
        ("compose", "compose.yaml"), ("compose", "compose.yaml"), ("kubernetes", "manifest.yml"),
        ("vllm-config", "cfg.yml")]
    assert result.files == 3


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_helm_detected_by_shape_not_name(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "helm" / "values.yaml", tmp_path / "prod.yaml")
    (d,) = run(tmp_path)
    assert d.kind == "helm"


def test_compose_required_variable_is_set(tmp_path: Path) -> None:
    """`${VAR:?message}` stops compose when VAR is unset or empty: a running service has it set, its value not in
    the files; a plain `${VAR}` that no file sets stays unknown (it may be empty)."""
    (tmp_path / "compose.yaml").write_text(
        "services:\n  llm:\n    image: vllm/vllm-openai:v0.20.0\n    environment:\n"
        "      VLLM_API_KEY: ${VLLM_API_KEY:?set the key}\n      HF_TOKEN: ${HF_TOKEN}\n"
        "    command: [\"Qwen/Qwen3-8B\"]\n")
    result = lint_paths([str(tmp_path / "compose.yaml")], Options(Target(), select=["RL510"]))
    (d,) = result.deployments
    assert fact(d, "env.VLLM_API_KEY")[1:] == ("env", "compose.yaml", 5, 7)
    assert "env.HF_TOKEN" not in d.facts.facts
    (finding,) = result.findings
    assert (finding.code, finding.certainty, finding.line, finding.column) == ("RL510", "definite", 5, 7)


def test_kubernetes_sh_c_script_with_a_secret_reference_is_still_read(tmp_path: Path) -> None:
    """The kubelet writes a secret's value into an `sh -c` script before the shell runs: the script's commands are
    still there, only the word holding the reference is unknown (read as the shell's `${KEY}`, same columns)."""
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: vllm\n"
        "      image: vllm/vllm-openai:v0.20.0\n"
        "      env:\n        - name: KEY\n          valueFrom: {secretKeyRef: {name: s, key: k}}\n"
        "      command: [\"/bin/sh\", \"-c\"]\n      args:\n        - |\n"
        "          vllm serve Qwen/Qwen3-8B --max-model-len 8192 --api-key \"$(KEY)\" --port 8000\n")
    (d,) = run(manifest)
    assert where(d) == ("vllm", "kubernetes", "pod.yaml", 14, 11)
    assert fact(d, "model.name") == ("Qwen/Qwen3-8B", "flag", "pod.yaml", 14, 22)
    assert fact(d, "limits.max_model_len") == ("8192", "flag", "pod.yaml", 14, 36)
    assert fact(d, "flag.vllm.port") == ("8000", "flag", "pod.yaml", 14, 76)
    assert "flag.vllm.api-key" not in d.facts.facts  # the secret's text, unknown
