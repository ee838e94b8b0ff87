"""The fact vocabulary, typed fact values and their provenance.

Records are written against these keys, never against raw flags, so one record covers every way of saying the
same thing. A fact of a deployment is in one of three states:

* known with a value (``Fact(value=...)``);
* known to be unset (``Fact(value=None)``: no flag, no env var, and no default applies);
* unknown (no entry at all, or a key that the deployment does not close): the config cannot tell.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any, Literal

from relialint.base.errors import RelialintError
from relialint.base.plain import Frozen
from relialint.core.versions import Version, VersionBound, VersionError, parse_sm, parse_version

FactType = Literal["string", "bool", "int", "float", "version", "sm"]
Origin = Literal[
    "flag",
    "env",
    "config-file",
    "image",
    "manifest",
    "build",
    "default",
    "inferred",
    "cli",
    "configuration",
    "directive",
    "probe",
]

class Withheld(Frozen):
    """A value that is set but not written in the files: an env var from a Kubernetes ``secretKeyRef`` /
    ``configMapKeyRef``, an option word built from one with ``$(VAR)``. A trigger's ``present`` sees it set; every
    comparison of its value stays unknown. ``source`` says what supplies it (shown with the fact)."""

    source: str
    _fields = ("source",)

    def __init__(self, source: str) -> None:
        self.source = source

    def __str__(self) -> str:
        return f"(set from {self.source})"


Value = str | bool | int | float | Version | VersionBound | Withheld


class FactSpec(Frozen):
    """One key of the vocabulary."""

    key: str
    type: FactType
    description: str
    allowed: tuple[str, ...] = ()

    _fields = ("key", "type", "description", "allowed")

    def __init__(self, key: str, type: FactType, description: str, allowed: tuple[str, ...] = ()) -> None:
        self.key = key
        self.type = type
        self.description = description
        self.allowed = allowed


class Fact(Frozen):
    """A fact's value (``None``: known to be unset) with where it came from."""

    value: Value | None
    origin: Origin
    path: str | None = None
    line: int | None = None
    column: int | None = None
    end_line: int | None = None
    end_column: int | None = None
    note: str | None = None
    source: tuple[str, int, int] | None = None
    """Where the value itself was written when that is elsewhere (a ``.env`` line, an earlier assignment)."""

    _fields = ("value", "origin", "path", "line", "column", "end_line", "end_column", "note", "source")

    def __init__(self, value: Value | None, origin: Origin, path: str | None = None, line: int | None = None,
                 column: int | None = None, end_line: int | None = None, end_column: int | None = None,
                 note: str | None = None, source: tuple[str, int, int] | None = None) -> None:
        self.value = value
        self.origin = origin
        self.path = path
        self.line = line
        self.column = column
        self.end_line = end_line
        self.end_column = end_column
        self.note = note
        self.source = source

    def located(self) -> bool:
        return self.path is not None and self.line is not None


def _spec(key: str, type_: FactType, description: str, *allowed: str) -> FactSpec:
    return FactSpec(key, type_, description, tuple(allowed))


VOCABULARY: dict[str, FactSpec] = {
    s.key: s
    for s in [
        # its values are the engines' names (engines.registry): checked by `relialint validate`, listed on the site
        _spec("engine.name", "string", "which engine the deployment runs"),
        _spec("engine.version", "version",
              "vLLM or SGLang PEP 440 version, or llama.cpp build number (b6327) or release (v0.3.0)"),
        _spec(
            "engine.backend",
            "string",
            "compute backend",
            "cuda",
            "hip",
            "vulkan",
            "metal",
            "sycl",
            "cpu",
            "tpu",
            "xpu",
            "musa",
            "npu",
        ),
        _spec("engine.version_range", "string",
              "the engine versions the file allows, as a PEP 440 specifier (`>=0.10.0,<0.11`), e.g. from "
              "`pip install vllm>=0.10.0`"),
        _spec("engine.flashinfer", "bool",
              "FlashInfer is installed beside the engine (vLLM's CUDA image ships it; a pip install before 0.11.1 "
              "has it only with the extra)"),
        _spec("engine.v1", "bool", "vLLM runs the V1 engine"),
        _spec("engine.v2_model_runner", "bool", "vLLM uses the V2 model runner"),
        _spec("engine.ready_timeout_s", "int", "vLLM engine-ready timeout in seconds"),
        _spec("gpu.model", "string", "canonical product name from the hardware catalogue"),
        _spec("gpu.candidates", "string", "the catalogue GPUs the file allows, |-joined (a node affinity list, a MIG "
              "profile, an L4T release): the GPU is one of them"),
        _spec("gpu.vendor", "string", "accelerator vendor (google: a TPU; moore-threads: a MUSA GPU)", "nvidia",
              "amd", "intel", "apple", "google", "moore-threads"),
        _spec("gpu.sm", "sm", "NVIDIA compute capability (8.0, 9.0, 10.0, 12.1)"),
        _spec("gpu.arch", "string", "AMD target (gfx1100, gfx1151, gfx1201, gfx942)"),
        _spec("gpu.native_fp8", "bool", "tensor cores with native FP8"),
        _spec("gpu.native_fp4", "bool", "tensor cores with native FP4"),
        _spec("gpu.count", "int", "GPUs used by the deployment"),
        _spec("gpu.memory_gb", "int", "memory of one GPU in GB, from the hardware catalogue"),
        _spec("gpu.cc_capable", "bool", "the GPU can run in NVIDIA Confidential Computing mode (Hopper and "
              "Blackwell data-centre parts)"),
        _spec("gpu.cc_mode", "bool", "NVIDIA Confidential Computing mode on"),
        _spec("host.os", "string", "host operating system", "linux", "windows", "macos"),
        _spec("host.rebar", "bool", "Resizable BAR / Smart Access Memory enabled"),
        _spec("model.name", "string", "model id or path as written"),
        _spec("model.quantization", "string", "quantization scheme (nvfp4, mxfp4, fp8, awq, gptq, int4, ...)"),
        _spec("model.weight_only", "bool", "weight-only quantization (W4A16 and the like)"),
        _spec("model.kv_cache_scheme", "bool",
              "the checkpoint's quantization_config declares a kv_cache_scheme (not null): vLLM then stores the KV "
              "cache as FP8 unless --kv-cache-dtype says otherwise; from a local config.json or --fact only"),
        _spec("model.fp8_block", "bool",
              "the checkpoint's FP8 weights are scaled per block (quantization_config.weight_block_size, or a "
              "compressed-tensors block strategy), not per tensor or per channel; from a local config.json or "
              "--fact only"),
        _spec("model.moe", "bool", "mixture-of-experts model"),
        _spec("model.hybrid", "bool",
              "hybrid model: Mamba, Gated DeltaNet or other linear-attention layers beside attention (Qwen3-Next, "
              "Qwen3.5, Granite 4.0-H, Nemotron-H, Jamba, Falcon-H1)"),
        _spec("model.family", "string",
              "the model family a hub id or GGUF name identifies (data/model_families.yaml: gpt-oss, qwen3, "
              "qwen3-next, qwen3.5, gemma3, glm-4.5, glm-4.7-flash, ...); its note gives the first engine builds "
              "that run it"),
        _spec("model.sliding_window", "bool", "model uses sliding-window attention"),
        _spec("model.kv_cache_scales", "string",
              "the checkpoint ships calibrated KV-cache scales, in this format: compressed-tensors (a non-null "
              "kv_cache_scheme), modelopt (a kv_cache_quant_algo); unset when its config says it ships none",
              "compressed-tensors", "modelopt"),
        _spec("serve.dtype", "string", "activation/compute dtype (auto, float16, bfloat16, float32)"),
        _spec("kv_cache.dtype", "string", "KV cache dtype (auto, fp8, fp8_e4m3, fp8_e5m2, f16, q8_0, ...)"),
        _spec("cuda_graphs.enabled", "bool", "CUDA graphs are captured"),
        _spec("cuda_graphs.mode", "string", "vLLM cudagraph mode (NONE, PIECEWISE, FULL, ...)"),
        _spec("spec_decode.enabled", "bool", "speculative decoding is on"),
        _spec("spec_decode.method", "string",
              "mtp, eagle, eagle3, ngram, draft_model, medusa, ...; a drafter given without a method takes the one "
              "vLLM detects from it (data/model_families.yaml drafters), draft_model otherwise"),
        _spec("spec_decode.num_tokens", "int", "speculative tokens per step"),
        _spec("spec_decode.draft_model", "string", "the draft model of draft-model speculative decoding"),
        _spec("prefix_caching.enabled", "bool", "prefix caching on (explicit, or the engine default)"),
        _spec("attention.backend", "string", "upper-case attention backend name, or auto"),
        _spec("attention.flashinfer_q_quant", "bool", "FlashInfer Q-quantization enabled"),
        _spec("attention.fa4", "bool", "vLLM runs FlashAttention 4 (its start-up log says which version; on SM90 "
                                       "it upgrades from 3 only for some models)"),
        _spec("moe.backend", "string", "vLLM --moe-backend value"),
        _spec("parallel.tensor", "int", "tensor-parallel size"),
        _spec("parallel.pipeline", "int", "pipeline-parallel size"),
        _spec("parallel.data", "int", "data-parallel size (SGLang --dp-size)"),
        _spec("parallel.expert", "int", "expert-parallel size (SGLang --ep-size)"),
        _spec("chunked_prefill.enabled", "bool", "chunked prefill on (SGLang: false with --chunked-prefill-size -1)"),
        _spec("torch_compile.enabled", "bool", "the model is compiled with torch.compile (SGLang "
              "--enable-torch-compile)"),
        _spec("sglang.launch_form", "string", "how SGLang is launched: launch_server (python -m "
              "sglang.launch_server), serve (the `sglang serve` program, from 0.5.5), router (python -m "
              "sglang_router.launch_server: a router with its workers)", "launch_server", "serve", "router"),
        _spec("sglang.dp_attention", "bool", "SGLang --enable-dp-attention"),
        _spec("sglang.prefill_attention_backend", "string", "SGLang --prefill-attention-backend, upper case"),
        _spec("sglang.decode_attention_backend", "string", "SGLang --decode-attention-backend, upper case"),
        _spec("sglang.max_total_tokens", "int", "SGLang --max-total-tokens (the KV pool size in tokens)"),
        _spec("sglang.chunked_prefill_size", "int", "SGLang --chunked-prefill-size (-1: chunked prefill off)"),
        _spec("sglang.max_prefill_tokens", "int", "SGLang --max-prefill-tokens"),
        _spec("sglang.cuda_graph_max_bs", "int", "SGLang --cuda-graph-max-bs"),
        _spec("sglang.speculative_num_steps", "int", "SGLang --speculative-num-steps"),
        _spec("sglang.speculative_eagle_topk", "int", "SGLang --speculative-eagle-topk"),
        _spec("sglang.moe_a2a_backend", "string", "SGLang --moe-a2a-backend, as written"),
        _spec("sglang.sampling_backend", "string", "SGLang --sampling-backend, as written"),
        _spec("sglang.grammar_backend", "string", "SGLang --grammar-backend, as written"),
        _spec("memory.gpu_utilization", "float", "vLLM --gpu-memory-utilization"),
        _spec(
            "memory.gpu_utilization_shared_total",
            "float",
            "sum of --gpu-memory-utilization of the deployments in one file set that share a GPU",
        ),
        _spec("memory.releasable", "bool",
              "the engine can give its GPU memory back while it runs (vLLM sleep mode reachable by POST /sleep)"),
        _spec("limits.max_model_len", "int", "vLLM --max-model-len"),
        _spec("limits.max_num_batched_tokens", "int", "vLLM --max-num-batched-tokens"),
        _spec("limits.max_num_seqs", "int", "vLLM --max-num-seqs (unset: the engine's own default)"),
        _spec("llama.ubatch", "int", "llama.cpp physical batch size (n_ubatch)"),
        _spec("llama.batch", "int", "llama.cpp logical batch size"),
        _spec("llama.n_gpu_layers", "string", "llama.cpp layers offloaded (number, auto or all)"),
        _spec("llama.split_mode", "string", "llama.cpp multi-GPU split mode", "none", "layer", "row", "tensor"),
        _spec("llama.flash_attn", "string", "llama.cpp flash attention", "on", "off", "auto"),
        _spec("llama.ctx_size", "int", "llama.cpp context size"),
        _spec("llama.threads", "int", "llama.cpp -t/--threads (or LLAMA_ARG_THREADS): CPU threads for generation"),
        _spec("llama.parallel", "int", "llama.cpp -np/--parallel (or LLAMA_ARG_N_PARALLEL): server slots"),
        _spec("serve.host", "string", "the address the server listens on, as written (vLLM/SGLang --host, llama.cpp "
              "--host or LLAMA_ARG_HOST); unset where a complete launch gives none (no default address is assumed)"),
        _spec("serve.api_key", "bool", "the server asks for an API key: vLLM --api-key or VLLM_API_KEY, llama.cpp "
              "--api-key, --api-key-file, LLAMA_API_KEY or LLAMA_ARG_API_KEY_FILE, SGLang --api-key, set and not "
              "empty; false where the launch's options and environment are known and set none"),
        _spec("container.kind", "string", "the container the launch runs in: compose (a compose service), docker "
              "(docker run / podman run), kubernetes (a pod spec, also one a Helm chart renders)", "compose", "docker",
              "kubernetes"),
        _spec("container.cpu_limit", "float", "the container's CPU limit in CPUs (compose cpus / "
              "deploy.resources.limits.cpus, docker run --cpus, Kubernetes resources.limits.cpu; 1500m is 1.5); "
              "absent where none is written"),
        _spec("container.port_on_all_interfaces", "bool",
              "a port of the container is reachable on every host interface: a port published without a host "
              "address or with 0.0.0.0, -P, the host network, a Kubernetes hostPort, or a LoadBalancer/NodePort "
              "Service in the file; false where every published port is bound to the loopback or none is"),
        _spec("container.ipc_host", "bool", "the container shares the host's IPC namespace (compose ipc: host, "
              "docker --ipc=host, Kubernetes hostIPC: true)"),
        _spec("container.shm_mib", "int", "the container's /dev/shm in MiB as written (compose shm_size, docker "
              "--shm-size, a Kubernetes memory-backed emptyDir at /dev/shm with a sizeLimit)"),
        _spec("container.shm_enlarged", "bool", "/dev/shm is larger than the runtime's 64 MiB default: host IPC, "
              "a shm size of 1 GiB or more, or a memory-backed emptyDir at /dev/shm; false where none of these"),
        _spec("container.memlock_unlimited", "bool", "the container's process may lock a model in RAM: compose "
              "ulimits memlock -1 (or soft limit >= 1 GiB), docker run --ulimit memlock=-1, privileged or the "
              "IPC_LOCK capability (also a Kubernetes securityContext); false for a compose service or docker run "
              "that sets none; otherwise unknown in Kubernetes"),
        _spec("lora.unmounted_path", "string", "the first absolute LoRA adapter path (vLLM --lora-modules, llama.cpp "
              "--lora/--lora-scaled) under none of container.mount_targets; unset where every adapter is mounted; "
              "only where the mount targets are known (an adapter the image itself holds is not a mount either)"),
        _spec("container.mount_targets", "string", "every mount target of the container, sorted and wrapped in "
              "commas (`,/models,/root/.cache/huggingface,`; `,` for none): compose volumes and tmpfs, docker -v, "
              "--mount and --tmpfs, Kubernetes volumeMounts"),
        _spec("bench.tool", "string", "benchmark command (vllm-bench-serve, llama-bench, ...)"),
        _spec("bench.duration_s", "float", "benchmark duration in seconds, where the command says"),
        _spec("bench.percentiles", "string", "latency percentiles the benchmark reports, comma separated"),
        _spec("bench.reports_tail", "bool", "the benchmark reports a percentile above p50"),
        _spec("bench.clocks_locked", "bool", "GPU clocks are locked before the benchmark runs"),
        _spec("runtime.hw_thermal_slowdown", "bool", "probe: HW Thermal Slowdown active in a sample (unknown when "
              "every sample is idle and it is not active)"),
        _spec("runtime.hw_power_brake", "bool", "probe: HW Power Brake Slowdown active in a sample (load-only, like "
              "runtime.hw_thermal_slowdown)"),
        _spec("runtime.sw_power_cap", "bool", "probe: SW Power Cap active in a sample (load-only)"),
        _spec("runtime.sw_thermal_slowdown", "bool", "probe: SW Thermal Slowdown active in a sample (load-only)"),
        _spec("runtime.hw_slowdown", "bool", "probe: HW Slowdown active in a sample (load-only)"),
        _spec("runtime.gpu_idle", "bool", "probe: GPU Idle active in every sample (clocks parked)"),
        _spec("runtime.load_seen", "bool", "probe: some sample shows the GPU under load (GPU Idle not active)"),
        _spec("runtime.samples", "int", "probe: samples read per GPU"),
        _spec("runtime.clock_event_reasons", "string",
              "probe: the clock event reasons seen active, comma separated (none when none)"),
        _spec("runtime.sm_clock_ratio", "float", "probe: lowest SM clock over the maximum SM clock"),
        _spec("runtime.sm_clock_mhz", "string", "probe: SM clock read, MHz (a range low-high over several samples)"),
        _spec("runtime.idle_sm_clock_mhz", "int", "probe: lowest SM clock read while the GPU was idle and parked, MHz"),
        _spec("runtime.sm_clock_max_mhz", "int", "probe: maximum SM clock of the GPU, MHz"),
        _spec("runtime.app_clock_mhz", "int", "probe: applications graphics clock, MHz"),
        _spec("runtime.clocks_locked", "bool",
              "probe: clocks locked at a working clock; false when an idle GPU shows its SM clock parked below "
              "half its maximum, else unknown (no counter reads a lock)"),
        _spec("runtime.power_draw_w", "float", "probe: board power draw, W (mean over the samples)"),
        _spec("runtime.power_limit_w", "float", "probe: enforced power limit, W"),
        _spec("runtime.power_default_limit_w", "float", "probe: default power limit, W"),
        _spec("runtime.temperature_c", "int", "probe: highest GPU temperature read, degrees C"),
        _spec("runtime.ecc_uncorrectable", "int", "probe: aggregate uncorrectable ECC errors (highest GPU)"),
        _spec("runtime.retired_pages", "int", "probe: retired memory pages (highest GPU), where the GPU retires "
              "pages"),
        _spec("runtime.remapped_rows_pending", "bool", "probe: a row remapping waits for a GPU reset"),
        _spec("gpu.memory_mib", "int", "probe: memory of one GPU, MiB"),
        _spec("gpu.ecc", "bool", "probe: ECC mode on"),
        _spec("host.driver_version", "string", "the GPU driver version (NVIDIA 580.159.04)"),
        _spec("host.cuda_version", "string", "the CUDA version the driver supports (nvidia-smi's CUDA Version)"),
        _spec("host.cuda_runtime_version", "string", "the CUDA runtime (toolkit) version installed, from vllm "
              "collect-env"),
        _spec("host.psu_degraded", "bool",
              "some of the node's power supplies are offline (from the BMC or the operator; no GPU counter reads "
              "it); how many, host.psu_offline, decides whether a redundant node loses performance"),
        _spec("host.psu_offline", "int",
              "how many of the node's power supplies are offline or without input power (from the BMC, its "
              "Redfish PSU health, or the operator; no GPU counter reads it)"),
        _spec("host.system", "string",
              "the host's system model as its vendor names it (DGX H100, DGX H200, an OEM server), from the BMC, "
              "DMI (dmidecode -s system-product-name) or the operator; no GPU counter reads it"),
        _spec("host.runs_benchmarks", "bool",
              "the host runs benchmarks or probes whose results are compared across runs, parts or versions "
              "(stated by the operator; no counter reads it)"),
        # What the deployment's requests use: stated by the user (--fact, a facts file, configuration `facts`,
        # directives), never read from a deployment file (REQUEST_KEYS): a record about request-level behaviour
        # is possible until the user says, and not shown on a version pin alone (findings.points_at).
        _spec("requests.repetition_penalty", "bool",
              "the deployment's requests use repetition_penalty other than 1 (clients send it, or the model's "
              "generation config makes it the default); stated by the user only"),
        _spec("requests.logit_bias", "bool", "clients send logit_bias in their requests; stated by the user only"),
        _spec("requests.min_p", "bool", "clients send min_p above 0 in their requests; stated by the user only"),
        _spec("requests.seed", "bool", "clients send a seed in their OpenAI-API requests and expect it honoured; "
              "stated by the user only"),
        _spec("sglang.max_running_requests", "int",
              "the request pool SGLang sized at start-up when --max-running-requests is not given (its start-up "
              "log's max_running_requests, 2048-4096 from the KV pool); stated by the user only, no file shows it"),
        _spec("launch.form", "string", "how vLLM is launched: serve (vllm serve), api_server (python -m "
              "vllm.entrypoints.openai.api_server, or an image whose entrypoint it is), image (entrypoint unknown)",
              "serve", "api_server", "image"),
        _spec("launch.positional_model", "string",
              "a positional model given to vLLM's api_server entrypoint, which never reads it (located at the word)"),
        _spec("launch.serve_repeated", "bool",
              "a vllm/vllm-openai container whose command starts with `vllm serve` again after the image entrypoint"),
        _spec("args.unknown_option", "string",
              "an option the engine's parser does not have for the detected version (or for any version the other "
              "options allow), as written, with where it exists and the engine's replacement or a did-you-mean; "
              "one instance per such option; unset when every option is known"),
        _spec("llama.flash_attn_takes_value", "bool",
              "-fa/--flash-attn takes a value in every build the deployment may run (false: a switch in every one; "
              "unset where the builds differ), from llama-server's option tables"),
        _spec("llama.unknown_option", "string",
              "an option llama-server does not have in the build(s) the deployment may run, as written, with the "
              "builds that have it and the option to use; unset when every option is known (each further one is "
              "reported at its own word)"),
        _spec("llama.option_refused", "bool",
              "derived per build world: the build refuses the option of this llama.unknown_option instance (set "
              "from each tabled build's options; unknown for a build outside the tables)"),
        _spec("llama.bad_value", "string",
              "a value llama-server rejects for its option (-sm, -ctk, -ctv, -fa, -ngl) in the build(s) the "
              "deployment may run, with the values it accepts"),
        _spec("llama.value_refused", "bool",
              "derived per build world: the build refuses the value of this llama.bad_value instance (set from "
              "each tabled build's accepted words; unknown for a build outside the tables)"),
        _spec("llama.stray_word", "string",
              "a word on llama-server's command line that is neither an option nor an option's value (the parser "
              "stops with \"invalid argument\")"),
        _spec("llama.stray_word_refused", "bool",
              "derived per build world: the build's parser stops at the word of this llama.stray_word instance "
              "(set from each tabled build's option kinds; unknown for a build outside the tables)"),
        _spec("llama.unread_env", "string",
              "a variable llama-server's build(s) do nothing with: an LLAMA_ARG_* name (or a name some build reads for "
              "an option, LLAMA_LOG_FILE) the build does not read, or a switch's variable whose value it does not "
              "apply, with the builds that read it and the name to use; one instance per such variable"),
        _spec("llama.env_overridden", "string",
              "the first LLAMA_ARG_* variable (located at the variable) whose option the llama-server command line "
              "also gives, in some build that reads it; unset where no variable's option is on the command line"),
        _spec("llama.env_not_read", "bool",
              "derived per build world: the build does nothing with the variable of this llama.unread_env instance "
              "(set from each tabled build's variables; unknown for a build outside the tables; true in every "
              "build for a name no tabled build reads)"),
        _spec("llama.negated_env", "string",
              "a boolean's LLAMA_ARG_NO_* variable given a false word (LLAMA_ARG_NO_MMAP=false), which the build(s) "
              "read as turning the option off whatever the value; one instance per such variable"),
        _spec("llama.env_negates", "bool",
              "derived per build world: the build reads the variable of this llama.negated_env instance as the "
              "option's negative (from @49bfddeca; unknown for a build outside the tables)"),
        _spec("args.option_refused", "bool",
              "derived per version world: the version refuses the option of this args.unknown_option instance "
              "(set from each tabled version's options; unknown for a version beyond the tables)"),
        _spec("args.spec_method", "string",
              "the speculative decoding method as written in --speculative-config (deepseek_mtp, eagle3, ...)"),
        _spec("args.unread_env", "string",
              "a VLLM_* variable that the detected vLLM version (or no version accepting the options) does not "
              "read, with where it is read; one instance per such variable"),
        _spec("args.env_not_read", "bool",
              "derived per version world: the version does not read the variable of this args.unread_env instance "
              "(set from each tabled version's variables; unknown for a version beyond the tables)"),
        _spec("args.unlisted_env", "string",
              "with vLLM's --fail-on-environ-validation set: a VLLM_* variable that envs.environment_variables of "
              "the detected vLLM version (or of every version accepting the options) does not list, with why; one "
              "instance per such variable"),
        _spec("args.env_not_listed", "bool",
              "derived per version world: the version validates the environment and its envs.environment_variables "
              "lacks the variable of this args.unlisted_env instance (unknown for a version beyond the tables)"),
        _spec("args.config_equals", "string", "vLLM `--config=FILE` as written (the = form is never expanded)"),
        _spec("args.config_false", "string",
              "the first key of a vLLM `--config` YAML whose value is `false`, as written"),
        _spec("args.equals_form", "string", "a llama.cpp `--flag=value` token (llama.cpp never splits at =)"),
        _spec("llama.flash_attn_bare", "string",
              "the token after a bare llama.cpp -fa/--flash-attn that is not on/off/auto ('' at the end)"),
        _spec("llama.flash_attn_value", "string", "the on/off/auto value word written after llama.cpp -fa"),
    ]
}

# Keys only the user states (--fact, a facts file, configuration, directives): no extractor sets them, and a
# possible finding that waits on one is not shown on a pinned version alone (findings.points_at).
USER_STATED_PREFIXES: tuple[str, ...] = ("requests.",)
USER_STATED_KEYS: frozenset[str] = frozenset({"sglang.max_running_requests"})


def user_stated(key: str) -> bool:
    """Whether only the user can state ``key`` (what the requests use, a value the server sizes at start-up)."""
    return key in USER_STATED_KEYS or key.startswith(USER_STATED_PREFIXES)


# Raw namespaces: any key under these prefixes is valid and holds a string.
RAW_PREFIXES: tuple[str, ...] = ("flag.vllm.", "flag.llama.cpp.", "flag.sglang.", "env.", "build.")

_RAW_NAME = re.compile(r"^[A-Za-z0-9_.\-]+$")


def spec_for(key: str) -> FactSpec | None:
    """The spec of a key, including raw ``flag.``/``env.``/``build.`` keys; ``None`` when not in the vocabulary."""
    spec = VOCABULARY.get(key)
    if spec is not None:
        return spec
    for prefix in RAW_PREFIXES:
        if key.startswith(prefix) and len(key) > len(prefix) and _RAW_NAME.match(key[len(prefix) :]):
            return FactSpec(key, "string", f"raw value of {key[len(prefix):]}")
    return None


class FactValueError(RelialintError, ValueError):
    """A value that does not parse as its fact's type."""


_COUNTS = frozenset({"gpu.count", "parallel.tensor", "parallel.pipeline", "parallel.data", "parallel.expert",
                     "spec_decode.num_tokens", "llama.ubatch",
                     "llama.batch", "engine.ready_timeout_s"})
"""Integer facts that count something: a negative value is a usage error."""

_TRUE = {"true", "on", "yes", "1", "enabled"}
_FALSE = {"false", "off", "no", "0", "disabled"}


def parse_value(spec: FactSpec, raw: object) -> Value:
    """Parse ``raw`` (text from the command line, YAML scalar) as ``spec``'s type."""
    try:
        if spec.type == "bool":
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in _TRUE:
                return True
            if text in _FALSE:
                return False
            raise FactValueError(f"{spec.key} takes true/false, not {raw!r}")
        if spec.type == "int":
            text = str(raw).strip()
            if isinstance(raw, bool) or not re.fullmatch(r"[+-]?[0-9]{1,4300}", text):
                raise FactValueError(f"{spec.key} takes an integer, not {raw!r}")
            number = int(text)
            if number < 0 and spec.key in _COUNTS:
                raise FactValueError(f"{spec.key} takes a non-negative integer, not {raw!r}")
            return number
        if spec.type == "float":
            if isinstance(raw, bool):
                raise FactValueError(f"{spec.key} takes a number, not {raw!r}")
            try:
                number_f = float(str(raw).strip())
            except ValueError:
                raise FactValueError(f"{spec.key} takes a number, not {raw!r}") from None
            if not math.isfinite(number_f):
                raise FactValueError(f"{spec.key} takes a finite number, not {raw!r}")
            return number_f
        if spec.type == "version":
            return parse_version(str(raw))
        if spec.type == "sm":
            return parse_sm(str(raw))
    except (ValueError, VersionError) as exc:
        if isinstance(exc, FactValueError):
            raise
        raise FactValueError(f"{spec.key}: {exc}") from exc
    text = str(raw)
    if spec.allowed and text not in spec.allowed:
        raise FactValueError(f"{spec.key} takes one of {', '.join(spec.allowed)}, not {text!r}")
    return text


_PLACEHOLDER = re.compile(r"\{fact:([A-Za-z0-9_.\-|]+)\}")


SETTING = re.compile(r"\{set:([A-Za-z0-9_.\-]+)=([^{}]+)\}")
"""``{set:KEY=VALUE}`` in a record's message: a setting the deployment's engine spells (``Engine.fill_settings``)."""


def fill_settings(message: str, spell: Callable[[str, str], str | None] | None = None) -> str:
    """``{set:KEY=VALUE}`` placeholders replaced by ``spell(KEY, VALUE)``, or ``KEY=VALUE`` as written where it gives
    nothing (or there is no ``spell``: a deployment of no engine)."""
    if "{set:" not in message:
        return message

    def spelled(match: re.Match[str]) -> str:
        found = spell(match.group(1), match.group(2)) if spell is not None else None
        return found or f"{match.group(1)}={match.group(2)}"

    return SETTING.sub(spelled, message)


def fill_message(message: str, facts: FactSet) -> str:
    """A record message with ``{fact:KEY}`` placeholders replaced by the deployment's fact values;
    ``{fact:A|B}`` takes the first of the keys that has a value."""
    if "{fact:" not in message:
        return message

    def value(match: re.Match[str]) -> str:
        for key in match.group(1).split("|"):
            fact = facts.get(key)
            if fact is not None and fact.value is not None:
                return shown(key, fact.value)
        return "(unknown)"

    return _PLACEHOLDER.sub(value, message)


def render(value: Value | None) -> str:
    """A fact value as text (for messages and JSON)."""
    if value is None:
        return "(unset)"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def shown(key: str, value: Value | None) -> str:
    """A fact's value as any output shows it: ``render``, or ``<set, N chars>`` for a secret (``secrets``)."""
    from relialint.base.secrets import hidden, secret_name

    if value is not None and secret_name(key) and not isinstance(value, Withheld | bool):  # a flag says no secret
        return hidden(render(value))
    return render(value)


def json_value(value: Value | None) -> object:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


MAX_INSTANCES = 100
"""The most instances of one problem one deployment reports (every unknown option of a real command line, the first
hundred of a generated one)."""


CLOSED_UNSET = Fact(None, "inferred")
"""What a key under a closed prefix reads as: known to be unset (one shared object; facts are frozen)."""


PER_VERSION = {"args.option_refused": "args.unknown_option", "args.env_not_read": "args.unread_env",
               "args.env_not_listed": "args.unlisted_env",
               "llama.option_refused": "llama.unknown_option", "llama.value_refused": "llama.bad_value",
               "llama.stray_word_refused": "llama.stray_word", "llama.env_not_read": "llama.unread_env",
               "llama.env_negates": "llama.negated_env"}
"""The facts derived per version world (:class:`ByVersion`), each with the located instance fact it decides: what
the engine version alone decides, so a finding that is possible for want of one of them depends on
``engine.version``."""


class ByVersion:
    """A boolean fact derived per version world (declared ``per_version`` in the vocabulary): it holds in the
    tabled versions ``holds`` and not in the other tabled versions; in a world beyond the tables it is unknown.
    ``leave_out``: the written option the instance is about, left out of the options that narrow its worlds (a
    version that refuses it is exactly what the finding is about), and with it ``options_range``, the
    ``engine.version_range`` the options themselves gave (counting the left-out one), which does not narrow them
    either. ``older`` / ``newer``: its value in a version older / newer than the tables, where the engine can say
    (an option the newest table has is kept in a newer release); ``None``: unknown there. A plain class: a
    dataclass costs start-up time."""

    __slots__ = ("holds", "leave_out", "newer", "older", "options_range")

    def __init__(self, holds: frozenset[Any], leave_out: str | None = None, options_range: str | None = None,
                 older: bool | None = None, newer: bool | None = None) -> None:
        self.holds = holds
        self.leave_out = leave_out
        self.options_range = options_range
        self.older = older
        self.newer = newer


class FactSet:
    """The facts of one deployment.

    ``closed`` lists key prefixes for which an absent key means *known unset* rather than unknown (a complete
    argv closes ``flag.vllm.``; a ``$OPTS`` splice leaves it open).
    """

    facts: dict[str, Fact]
    closed: set[str]
    blocked: set[str]
    instances: dict[str, list[dict[str, Fact | None]]]
    """Facts that hold once per located instance (three unknown options, two unread variables): ``key`` -> one
    group per instance, each mapping ``key`` and its companion keys to their facts (``None``: unknown in that
    instance). ``facts[key]`` holds the first instance; a record that locates ``key`` is evaluated once per group
    (:meth:`instance_views`)."""
    by_version: dict[str, ByVersion]
    """Facts derived per version world, unknown here: in which tabled versions each holds (the worlds set them).
    Only an instance's view has them (:meth:`instance_views`): the leave-one-out narrowing is the instance's."""
    instance_by_version: dict[str, list[dict[str, ByVersion]]]
    """Beside :attr:`instances`: each instance's facts derived per version world."""

    def __init__(self, facts: dict[str, Fact] | None = None, closed: set[str] | None = None,
                 blocked: set[str] | None = None, instances: dict[str, list[dict[str,
                 Fact | None]]] | None = None, by_version: dict[str, ByVersion] | None = None) -> None:
        self.facts = {} if facts is None else facts
        self.closed = set() if closed is None else closed
        self.blocked = set() if blocked is None else blocked
        self.instances = {} if instances is None else instances
        self.by_version = {} if by_version is None else by_version
        self.instance_by_version = {}

    def get(self, key: str) -> Fact | None:
        """The fact, a synthetic unset fact for a closed prefix, or ``None`` when unknown."""
        fact = self.facts.get(key)
        if fact is not None:
            return fact
        if key in self.blocked:
            return None
        for prefix in self.closed:
            if key.startswith(prefix) and (key == prefix or prefix.endswith(".")):
                return CLOSED_UNSET
        return None

    def set(self, key: str, fact: Fact) -> None:
        self.facts[key] = fact
        self.blocked.discard(key)

    def setdefault(self, key: str, fact: Fact) -> None:
        """Set only where nothing is known, and nothing made the key unknown on purpose."""
        if key not in self.facts and key not in self.blocked:
            self.facts[key] = fact

    def unknown(self, key: str) -> None:
        """Make a key unknown: no value, and no default may fill it (the config sets it to something unseen)."""
        self.facts.pop(key, None)
        self.closed.discard(key)
        self.blocked.add(key)

    def settled(self, key: str) -> bool:
        """Whether the key has a value or was made unknown on purpose (so a default must not apply)."""
        return key in self.facts or key in self.blocked

    def copy(self) -> FactSet:
        copied = FactSet(dict(self.facts), set(self.closed), set(self.blocked),
                         {key: list(groups) for key, groups in self.instances.items()}, dict(self.by_version))
        copied.instance_by_version = {key: list(groups) for key, groups in self.instance_by_version.items()}
        return copied

    def items(self) -> list[tuple[str, Fact]]:
        return sorted(self.facts.items())

    def add_instance(self, key: str, group: dict[str, Fact | None],
                     by_version: dict[str, ByVersion] | None = None) -> None:
        """One more instance of ``key`` (``group`` holds ``key`` and its companions; ``by_version`` the companions
        derived per version world, unknown in ``group``); the first also sets the plain facts, so a reader of
        ``facts`` sees one instance as before."""
        if key not in self.instances:
            for name, fact in group.items():
                if fact is None:
                    self.unknown(name)
                else:
                    self.set(name, fact)
            for name in by_version or {}:
                self.unknown(name)  # decided in each version world of the instance's own view
        found = self.instances.setdefault(key, [])
        if len(found) < MAX_INSTANCES:  # a generated command line: the first ones are reported, not 5,000
            found.append(group)
            derivations = self.instance_by_version.setdefault(key, [])
            derivations.extend({} for _ in range(len(found) - 1 - len(derivations)))
            derivations.append(by_version or {})

    def drop_instances(self, key: str) -> None:
        """Forget every instance of ``key`` (the checks that make them run again)."""
        self.instances.pop(key, None)
        self.instance_by_version.pop(key, None)

    def instance_views(self, key: str | None) -> list[FactSet]:
        """One fact set per instance of ``key`` (its group laid over these facts), or ``[self]`` when ``key``
        has no instances."""
        groups = self.instances.get(key) if key is not None else None
        if not groups:
            return [self]
        views = []
        derivations = self.instance_by_version.get(key) or [] if key is not None else []
        for i, group in enumerate(groups):
            derived = derivations[i] if i < len(derivations) else {}
            known = {k: f for k, f in group.items() if f is not None}
            unknown = {k for k, f in group.items() if f is None} | derived.keys()
            facts = {k: f for k, f in self.facts.items() if k not in unknown}
            facts.update(known)
            by_version = {k: v for k, v in self.by_version.items() if k not in group and k not in derived}
            by_version.update(derived)
            views.append(FactSet(facts, set(self.closed) - unknown, (self.blocked - known.keys()) | unknown,
                                 by_version=by_version))
        return views
