"""Helm values read the way each chart's template renders them: exact facts (value, origin, line, column)."""

from __future__ import annotations

from pathlib import Path

from relialint.core.deployment import Deployment
from relialint.core.facts import render
from relialint.readers.helmvalues import go_float
from relialint.run.lint import Options, RunResult, lint_paths


def lint(tmp_path: Path, values: str, chart: str | None = None, name: str = "values.yaml") -> RunResult:
    (tmp_path / name).write_text(values)
    if chart is not None:
        (tmp_path / "Chart.yaml").write_text(chart)
    result = lint_paths([str(tmp_path / name)], Options())
    assert result.errors == [], result.errors
    return result


def fact(d: Deployment, key: str) -> tuple[str, str, int | None, int | None] | None:
    f = d.facts.get(key)
    if f is None:
        return None
    return render(f.value) if f.value is not None else "<unset>", f.origin, f.line, f.column


def codes(result: RunResult) -> list[tuple[str, str, int, int]]:
    return [(f.code, f.certainty, f.line, f.column) for f in result.findings]


STACK_CURRENT = """\
servingEngineSpec:
  modelSpec:
    - name: qwen
      repository: vllm/vllm-openai
      tag: v0.10.1
      modelURL: Qwen/Qwen3-8B
      requestGPU: 2
      vllmConfig:
        v0: "1"
        maxModelLen: 1048576
        gpuMemoryUtilization: 0.85
        tensorParallelSize: 2
        kvCacheDtype: fp8
        extraArgs: ["--kv-cache-dtype", "fp8"]
"""


def test_production_stack_v0_is_an_env_var_not_a_flag(tmp_path: Path) -> None:
    result = lint(tmp_path, STACK_CURRENT)
    (d,) = result.deployments
    # the audit case: vllmConfig.v0 "1" is VLLM_USE_V1=0 (the current template), never `--v0`
    assert fact(d, "env.VLLM_USE_V1") == ("0", "env", 9, 9)
    assert fact(d, "engine.v1") == ("false", "env", 9, 9)
    assert "flag.vllm.v0" not in d.facts.facts
    assert not [f for f in result.findings if f.code == "RL507"]
    # no enablePrefixCaching in a non-empty vllmConfig: the current template renders --no-enable-prefix-caching
    assert fact(d, "prefix_caching.enabled") == ("false", "flag", 8, 7)
    assert fact(d, "memory.gpu_utilization") == ("0.85", "flag", 11, 9)
    assert fact(d, "parallel.tensor") == ("2", "flag", 12, 9)
    # Helm prints the number as a float64: the server is given the text 1.048576e+06
    assert fact(d, "flag.vllm.max-model-len") == ("1.048576e+06", "flag", 10, 9)
    assert fact(d, "kv_cache.dtype") == ("fp8", "flag", 14, 21)
    assert fact(d, "gpu.count") == ("2", "manifest", 7, 19)
    # a key the template never reads renders nothing: a warning at the key, no flag
    assert [(w.line, w.column, w.message) for w in result.warnings] == [
        (13, 9, "vllmConfig.kvCacheDtype is not a key the production-stack chart's templates render: it is "
                "ignored (put the option in vllmConfig.extraArgs)")]
    assert "flag.vllm.kv-cache-dtype" in d.facts.facts  # from extraArgs only


STACK_LMCACHE = """\
servingEngineSpec:
  modelSpec:
  - name: "mistral"
    repository: "lmcache/vllm-openai"
    tag: "latest"
    modelURL: "mistralai/Mistral-7B-Instruct-v0.3"
    requestGPU: 1
"""


def test_production_stack_request_gpu_renders_an_nvidia_resource(tmp_path: Path) -> None:
    """Issue 23: `requestGPU` renders `nvidia.com/gpu` (``default "nvidia.com/gpu" $modelSpec.requestGPUType`` in
    the chart's _helpers.tpl), so an image that names no vendor still runs on NVIDIA: RL214 (AMD RDNA3) is out."""
    result = lint(tmp_path, STACK_LMCACHE)
    (d,) = result.deployments
    assert fact(d, "gpu.count") == ("1", "manifest", 7, 17)
    assert fact(d, "gpu.vendor") == ("nvidia", "manifest", 7, 5)
    assert fact(d, "engine.backend") == ("cuda", "inferred", 7, 5)
    assert [f.code for f in result.findings if f.code == "RL214"] == []
    # a quoted count is read as Helm's `int` reads it; another requestGPUType is disputed between the templates
    other = lint(tmp_path, STACK_LMCACHE.replace("requestGPU: 1", 'requestGPU: "2"\n    requestGPUType: amd.com/gpu'),
                 name="other.yaml")
    (e,) = other.deployments
    assert fact(e, "gpu.count") == ("2", "manifest", 7, 17)
    assert fact(e, "gpu.vendor") is None
    none = lint(tmp_path, STACK_LMCACHE.replace("requestGPU: 1", "requestGPU: 0"), name="none.yaml")
    (f,) = none.deployments
    assert fact(f, "gpu.vendor") is None


STACK_012 = """\
vllm-stack:
  servingEngineSpec:
    modelSpec:
      - name: llama
        repository: vllm/vllm-openai
        tag: v0.8.5
        modelURL: meta-llama/Llama-3.1-8B-Instruct
        vllmConfig:
          v1: 1
          enablePrefixCaching: false
          enableChunkedPrefill: false
          maxNumSeqs: 64
"""

UMBRELLA = """\
apiVersion: v2
name: my-llm
version: 1.0.0
dependencies:
  - name: vllm-stack
    version: 0.1.2
    repository: https://vllm-project.github.io/production-stack
"""


def test_production_stack_chart_012_from_chart_yaml(tmp_path: Path) -> None:
    result = lint(tmp_path, STACK_012, UMBRELLA)
    (d,) = result.deployments
    # chart 0.1.2 reads vllmConfig.v1 into VLLM_USE_V1 and renders nothing for a false enablePrefixCaching
    assert fact(d, "env.VLLM_USE_V1") == ("1", "env", 9, 11)
    assert fact(d, "flag.vllm.enable-prefix-caching") == ("<unset>", "inferred", None, None)
    assert fact(d, "prefix_caching.enabled") == ("true", "default", None, None)
    assert fact(d, "flag.vllm.enable-chunked-prefill") == ("false", "flag", 11, 11)
    assert fact(d, "flag.vllm.max-num-seqs") == ("64", "flag", 12, 11)
    assert fact(d, "engine.version") == ("0.8.5", "image", 6, 14)


def test_production_stack_v1_key_without_chart_version(tmp_path: Path) -> None:
    values = STACK_012.replace("v0.8.5", "v0.9.2")
    result = lint(tmp_path, values)
    (d,) = result.deployments
    # `v1` is read only by the older templates: VLLM_USE_V1 from it; the templates that read it disagree on a
    # false enablePrefixCaching, so no flag is read from it
    assert fact(d, "env.VLLM_USE_V1") == ("1", "env", 9, 11)
    assert fact(d, "flag.vllm.enable-prefix-caching") == ("<unset>", "inferred", None, None)


CHART_VLLM = """\
image:
  repository: "vllm/vllm-openai"
  tag: "v0.11.0"
  command: ["vllm", "serve", "/data/", "--served-model-name", "opt-125m", "--enforce-eager",
            "--dtype", "bfloat16", "--kv-cache-dtype", "fp8"]
  env:
    - name: VLLM_ATTENTION_BACKEND
      value: FLASHINFER
containerPort: 8000
resources:
  requests:
    nvidia.com/gpu: 1
  limits:
    nvidia.com/gpu: 1
gpuModels:
  - "NVIDIA-L40S"
extraInit:
  pvcStorage: "1Gi"
"""


def test_vllm_example_chart_command_env_and_gpu_models(tmp_path: Path) -> None:
    result = lint(tmp_path, CHART_VLLM)
    (d,) = result.deployments
    assert (d.engine, d.kind, d.span.line, d.span.column) == ("vllm", "helm", 4, 13)
    assert fact(d, "engine.version") == ("0.11.0", "image", 3, 8)
    assert fact(d, "model.name") == ("/data/", "flag", 4, 30)
    assert fact(d, "cuda_graphs.enabled") == ("false", "flag", 4, 75)
    assert fact(d, "serve.dtype") == ("bfloat16", "flag", 5, 13)
    assert fact(d, "kv_cache.dtype") == ("fp8", "flag", 5, 36)
    assert fact(d, "env.VLLM_ATTENTION_BACKEND") == ("FLASHINFER", "env", 7, 13)
    assert fact(d, "gpu.count") == ("1", "manifest", 14, 5)
    assert fact(d, "gpu.model") == ("L40S", "manifest", 15, 1)


LLAMA_SERVER = """\
image:
  repository: "ghcr.io/ggml-org/llama.cpp"
  tag: "server-cuda-b6500"
llama:
  args:
    n-gpu-layers: 99
    model: "/models/qwen3-8b-q4_k_m.gguf"
    ctx-size: 1048576
    ubatch-size: 1024
service:
  port: 80
"""


def test_llama_server_chart_args_map_sorted_with_helm_number_text(tmp_path: Path) -> None:
    result = lint(tmp_path, LLAMA_SERVER)
    (d,) = result.deployments
    assert (d.engine, d.kind) == ("llama.cpp", "helm")
    assert fact(d, "engine.version") == ("b6500", "image", 3, 8)
    assert fact(d, "llama.n_gpu_layers") == ("99", "flag", 6, 5)
    assert fact(d, "llama.ubatch") == ("1024", "flag", 9, 5)
    assert fact(d, "flag.llama.cpp.ctx-size") == ("1.048576e+06", "flag", 8, 5)
    assert fact(d, "flag.llama.cpp.port") == ("80", "flag", 5, 3)
    assert fact(d, "flag.llama.cpp.model") == ("/models/qwen3-8b-q4_k_m.gguf", "flag", 7, 5)


APP_TEMPLATE = """\
controllers:
  llama:
    containers:
      app:
        image:
          repository: ghcr.io/ggml-org/llama.cpp
          tag: server-vulkan-b6327
        args:
          - --model
          - /models/gpt-oss-20b.gguf
          - -ngl
          - "999"
          - --ubatch-size
          - "2048"
        env:
          LLAMA_ARG_CTX_SIZE: "65536"
          HF_TOKEN:
            valueFrom:
              secretKeyRef: {name: hf, key: token}
persistence:
  models:
    type: persistentVolumeClaim
"""


def test_app_template_controller_container_args_and_env_map(tmp_path: Path) -> None:
    result = lint(tmp_path, APP_TEMPLATE)
    (d,) = result.deployments
    assert (d.engine, d.kind) == ("llama.cpp", "helm")
    assert fact(d, "engine.version") == ("b6327", "image", 7, 16)
    assert fact(d, "engine.backend") == ("vulkan", "image", 7, 16)
    assert fact(d, "llama.n_gpu_layers") == ("999", "flag", 11, 13)
    assert fact(d, "llama.ubatch") == ("2048", "flag", 13, 13)
    assert fact(d, "llama.ctx_size") == ("65536", "env", 16, 11)


def test_unknown_chart_without_option_lists_is_not_read(tmp_path: Path) -> None:
    values = "image:\n  repository: vllm/vllm-openai\n  tag: v0.30.0\nargs: []\nmodel: Qwen/Qwen3-8B\n"
    (tmp_path / "values.yaml").write_text(values)
    result = lint_paths([str(tmp_path / "values.yaml")], Options())
    assert result.deployments == []


def test_go_float_matches_go_percent_v() -> None:
    assert [go_float(x) for x in (131072.0, 1e6, 1048576.0, 0.9, 0.0001, 0.00001, 2.0, -3.5, 123456.5)] == [
        "131072", "1e+06", "1.048576e+06", "0.9", "0.0001", "1e-05", "2", "-3.5", "123456.5"]


STACK_PLAIN = """\
servingEngineSpec:
  modelSpec:
    - name: qwen
      repository: vllm/vllm-openai
      tag: v0.10.1
      modelURL: Qwen/Qwen3-8B
      vllmConfig:
        v0: "1"
        maxModelLen: 8192
"""

OWN_CHART = "apiVersion: v2\nname: vllm-stack\nversion: {}\n"


def test_production_stack_chart_version_decides_over_keys(tmp_path: Path) -> None:
    # chart 0.1.2 does not read v0: no VLLM_USE_V1, and no flag either
    result = lint(tmp_path, STACK_PLAIN, OWN_CHART.format("0.1.2"))
    (d,) = result.deployments
    assert fact(d, "env.VLLM_USE_V1") == ("<unset>", "inferred", None, None)
    assert "flag.vllm.v0" not in d.facts.facts
    assert fact(d, "flag.vllm.enable-prefix-caching") == ("<unset>", "inferred", None, None)
    assert fact(d, "limits.max_model_len") == ("8192", "flag", 9, 9)


def test_production_stack_newer_chart_without_switch_leaves_prefix_caching_to_the_engine(tmp_path: Path) -> None:
    # a chart newer than 0.1.2 with neither v0 nor v1: the templates disagree on a missing enablePrefixCaching
    values = STACK_PLAIN.replace('        v0: "1"\n', "")
    result = lint(tmp_path, values, OWN_CHART.format("0.1.9"))
    (d,) = result.deployments
    assert fact(d, "flag.vllm.enable-prefix-caching") == ("<unset>", "inferred", None, None)
    # without a chart version the current template applies: --no-enable-prefix-caching at vllmConfig
    (tmp_path / "Chart.yaml").unlink()
    result = lint(tmp_path, values)
    (d,) = result.deployments
    assert fact(d, "prefix_caching.enabled") == ("false", "flag", 7, 7)


def test_list_items_toyaml_and_unknown_chart_numbers(tmp_path: Path) -> None:
    # chart-vllm renders image.command with toYaml: a whole number stays whole
    values = CHART_VLLM.replace('"--kv-cache-dtype", "fp8"]', '"--max-model-len", 1048576]')
    (d,) = lint(tmp_path, values).deployments
    assert fact(d, "flag.vllm.max-model-len") == ("1048576", "flag", 5, 36)
    # an unknown chart's list: {{ . }} would print 1e+06 and toYaml 1000000, so the value is not known
    generic = "image:\n  repository: vllm/vllm-openai\n  tag: v0.30.0\nextraArgs:\n  - --max-model-len\n  - 1000000\n"
    (d,) = lint(tmp_path, generic, name="other.yaml").deployments
    assert "limits.max_model_len" not in d.facts.facts
    assert d.facts.get("flag.vllm.max-model-len") is None  # unknown: neither a value nor known unset


SILOGEN = """\
image: "rocm/vllm-dev:20250612_aiter"
model: "s3://models/Qwen/Qwen3-8B/"
gpus: 4
vllm_engine_args:
  max-num-seqs: "64"
  enforce-eager:
  gpu-memory-utilization: 0.9
  max-model-len: "{{ .Values.ctx }}"
env_vars:
  VLLM_USE_V1: "1"
  HF_TOKEN:
    name: hf-secret
    key: token
"""


def test_silogen_llm_inference_vllm_chart(tmp_path: Path) -> None:
    """AMD Silo AI's llm-inference-vllm chart: _entrypoint.tpl's api_server line, keys sorted, a null value a bare
    switch, an s3:// model copied under /workload, gpus as --tensor-parallel-size and amd.com/gpu (issue 25)."""
    (d,) = lint(tmp_path, SILOGEN).deployments
    assert (d.engine, d.kind, d.span.line, d.span.column) == ("vllm", "helm", 1, 8)
    assert fact(d, "engine.backend") == ("hip", "image", 1, 8)
    assert fact(d, "model.name") == ("/workload/models/Qwen/Qwen3-8B", "flag", 2, 8)
    assert fact(d, "parallel.tensor") == ("4", "flag", 3, 7)
    assert fact(d, "gpu.count") == ("4", "manifest", 3, 7)
    assert fact(d, "gpu.vendor") is not None and fact(d, "gpu.vendor")[:2] == ("amd", "manifest")  # type: ignore[index]
    assert fact(d, "flag.vllm.max-num-seqs") == ("64", "flag", 5, 3)
    assert fact(d, "flag.vllm.enforce-eager") == ("true", "flag", 6, 3)
    assert fact(d, "flag.vllm.port") == ("8080", "flag", 1, 8)
    # a number makes the chart's `tpl` fail and a template is rendered from other values: neither is known
    assert fact(d, "flag.vllm.gpu-memory-utilization") is None
    assert fact(d, "memory.gpu_utilization") is None  # not the default either: the option is given
    assert fact(d, "limits.max_model_len") is None
    assert fact(d, "env.VLLM_USE_V1") == ("1", "env", 10, 3)
    assert fact(d, "env.HF_TOKEN") is None  # a secret reference: no value is read from the map


KUBEAI = """\
all:
  enabled: false
catalog:
  qwen-l4:
    enabled: true
    url: "hf://Qwen/Qwen3-8B"
    engine: VLLM
    resourceProfile: nvidia-gpu-l4:1
    args: ["--max-model-len=8192"]
    env: {VLLM_USE_V1: "1"}
  off:
    enabled: false
    url: "hf://org/other"
    engine: VLLM
  from-pvc:
    enabled: true
    url: "pvc://models/qwen"
    engine: VLLM
  gemma-cpu:
    enabled: true
    url: "ollama://gemma2:2b"
    engine: OLlama
"""


def test_kubeai_models_chart(tmp_path: Path) -> None:
    """KubeAI's models chart: an enabled VLLM catalog entry is the api_server KubeAI's controller starts
    (--model from the hf:// url, --served-model-name the entry's name, then args; env sorted after the controller's
    own); a disabled entry and another engine give nothing; a pvc:// model is not a name (issue 25)."""
    first, second = lint(tmp_path, KUBEAI).deployments
    assert (first.engine, first.kind, first.span.line, first.span.column) == ("vllm", "helm", 4, 3)
    assert fact(first, "model.name") == ("Qwen/Qwen3-8B", "flag", 6, 10)
    assert fact(first, "flag.vllm.served-model-name") == ("qwen-l4", "flag", 4, 3)
    assert fact(first, "limits.max_model_len") == ("8192", "flag", 9, 12)
    assert fact(first, "env.VLLM_USE_V1") == ("1", "env", 10, 11)
    assert fact(first, "env.VLLM_ALLOW_RUNTIME_LORA_UPDATING") == ("True", "env", 4, 3)
    assert fact(first, "gpu.vendor") is None  # a resource profile's name is the cluster's, not evidence
    assert fact(first, "host.os") == ("linux", "inferred", 4, 3)
    assert (second.span.line, fact(second, "model.name")) == (15, None)
    assert lint(tmp_path, KUBEAI.replace("  enabled: false\ncatalog", "  enabled: true\ncatalog")).deployments[1] \
        .span.line == 11  # `all.enabled` renders the disabled entry too
