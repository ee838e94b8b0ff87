"""The facts vLLM sets itself when a config says nothing, by version (``origin: default``). Where the default
depends on a version that is not known, the fact stays unknown."""

from __future__ import annotations

from bisect import bisect_right
from functools import lru_cache

from relialint.deployment import Deployment
from relialint.engines import flagcheck
from relialint.engines.versioning import parse_engine_version
from relialint.engines.vllm_args import _number
from relialint.facts import Fact, FactSet
from relialint.versions import Version

V = {text: parse_engine_version("vllm", text) for text in
     ("0.8.0", "0.10.1", "0.10.2", "0.11.0", "0.11.1", "0.12.0", "0.14.0", "0.15.0", "0.20.0", "0.21.0", "0.22.0",
      "0.24.0", "0.29.0")}


def _truthy(value: object) -> bool | None:
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    return None


def apply_defaults(deployment: Deployment) -> None:
    """Facts the engine sets when the config says nothing, for the version in force (``origin: default``)."""
    flagcheck.finish_vllm(deployment)
    version_defaults(deployment.facts)


_THRESHOLDS = sorted(V.values())


@lru_cache(maxsize=1024)
def version_class(version: Version) -> tuple[object, ...]:
    """The defaults below read the version only through comparisons with the thresholds in ``V`` (keep it so):
    versions on the same side of every threshold get the same defaults. The class is how many thresholds the
    version has reached (the thresholds are ordered, so that count says on which side of each it is)."""
    return (bisect_right(_THRESHOLDS, version),)


def version_defaults(facts: FactSet) -> None:
    """The defaults alone (no option checks): what the possible-worlds evaluator computes inside each version."""
    version_fact = facts.get("engine.version")
    version = version_fact.value if version_fact is not None and isinstance(version_fact.value, Version) else None
    if version is not None and version.scheme != "pep440":
        version = None
    flags_closed = "flag.vllm." in facts.closed

    def default(key: str, value: object, note: str | None = None) -> None:
        if not facts.settled(key) and flags_closed:
            facts.set(key, Fact(value, "default", note=note))  # type: ignore[arg-type]

    default("serve.dtype", "auto")
    default("kv_cache.dtype", "auto")
    default("cuda_graphs.enabled", True)
    _cudagraph_mode(facts, version, flags_closed)
    default("spec_decode.enabled", False)
    default("spec_decode.method", None)
    default("spec_decode.num_tokens", None)
    default("parallel.tensor", 1)
    default("parallel.pipeline", 1)
    default("moe.backend", "auto")
    default("limits.max_model_len", None)
    default("limits.max_num_batched_tokens", None)

    env_closed = "env." in facts.closed
    # engine.v1: VLLM_USE_V1 is read up to 0.11.0; V1 is the only engine from 0.11.1.
    use_v1 = facts.get("env.VLLM_USE_V1")
    if not facts.settled("engine.v1"):
        if version is not None and not version < V["0.11.1"]:
            facts.set("engine.v1", Fact(True, "default", note="V1 is the only engine from 0.11.1"))
        elif use_v1 is not None and use_v1.value is not None and _truthy(use_v1.value) is not None:
            facts.set("engine.v1", Fact(_truthy(use_v1.value), "env", use_v1.path, use_v1.line, use_v1.column))
        elif version is not None and (use_v1 is not None or env_closed):
            facts.set("engine.v1", Fact(not version < V["0.8.0"], "default"))
    # prefix caching: off in V0, on in V1 (the default from 0.8.0).
    v1 = facts.get("engine.v1")
    if not facts.settled("prefix_caching.enabled") and flags_closed and v1 is not None and v1.value is not None:
        facts.set("prefix_caching.enabled", Fact(bool(v1.value), "default",
                                                 note="the engine's default for this version"))
    # V2 model runner.
    v2 = facts.get("env.VLLM_USE_V2_MODEL_RUNNER")
    if not facts.settled("engine.v2_model_runner"):
        if version is not None and version < V["0.12.0"]:
            # no release before 0.12.0 reads VLLM_USE_V2_MODEL_RUNNER: whatever the environment holds
            facts.set("engine.v2_model_runner", Fact(False, "default", note="no V2 model runner before 0.12.0"))
        elif v2 is not None and v2.value is not None and _truthy(v2.value) is not None and (
                version is None or not version < V["0.12.0"]):
            facts.set("engine.v2_model_runner", Fact(_truthy(v2.value), "env", v2.path, v2.line, v2.column))
        elif version is not None and env_closed and (v2 is None or v2.value is None):
            # VllmConfig.use_v2_model_runner with the variable unset: up to 0.21.0 the variable defaults to 0;
            # 0.22.0-0.28.x use V2 only for the architectures in DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES (a list that
            # changes per release; the config does not show the architecture), so it stays unknown; from 0.29.0
            # V2 is the default wherever it supports the configuration (vllm/config/vllm.py)
            if version < V["0.22.0"]:
                facts.set("engine.v2_model_runner", Fact(False, "default"))
            elif not version < V["0.29.0"]:
                facts.set("engine.v2_model_runner", Fact(True, "default",
                                                         note="from 0.29.0 the V2 runner is used where supported"))
    # gpu_memory_utilization default.
    if not facts.settled("memory.gpu_utilization") and flags_closed and version is not None:
        facts.set("memory.gpu_utilization", Fact(0.92 if not version < V["0.20.0"] else 0.9, "default"))
    # engine-ready timeout.
    timeout = facts.get("env.VLLM_ENGINE_READY_TIMEOUT_S")
    if not facts.settled("engine.ready_timeout_s"):
        if timeout is not None and timeout.value is not None:
            number = _number(str(timeout.value), int)
            if number is not None:
                facts.set("engine.ready_timeout_s", Fact(number, "env", timeout.path, timeout.line, timeout.column))
        elif version is not None and not version < V["0.14.0"] and (timeout is not None or env_closed):
            facts.set("engine.ready_timeout_s", Fact(600, "default"))
    # attention backend from the env var, where the version still reads it.
    backend = facts.get("env.VLLM_ATTENTION_BACKEND")
    if not facts.settled("attention.backend"):
        if backend is not None and backend.value is not None:
            if version is None or version < V["0.15.0"]:
                note = None if version is not None else "read only by vLLM up to 0.14.0"
                facts.set("attention.backend", Fact(str(backend.value).upper(), "env", backend.path, backend.line,
                                                    backend.column, note=note))
                if version is None:
                    facts.unknown("attention.backend")
            elif flags_closed:
                facts.set("attention.backend", Fact("auto", "default", note="VLLM_ATTENTION_BACKEND is ignored"))
        elif flags_closed and (backend is not None or env_closed):
            facts.set("attention.backend", Fact("auto", "default"))
    _flashinfer_q_quant(facts, version, flags_closed, env_closed)


def _cudagraph_mode(facts: FactSet, version: Version | None, flags_closed: bool) -> None:
    """The cudagraph mode the engine uses when the config names none: ``NONE`` under ``--enforce-eager``,
    ``PIECEWISE`` in 0.10.1-0.10.2, ``FULL_AND_PIECEWISE`` from 0.11.0 (``config/compilation.py``); unknown
    before 0.10.1, when the mode did not exist, and when the version is unknown."""
    key = "cuda_graphs.mode"
    if facts.settled(key) or not flags_closed:
        return
    graphs = facts.get("cuda_graphs.enabled")
    if graphs is not None and graphs.value is False:
        facts.set(key, Fact("NONE", "default", note="CUDA graphs are off"))
    elif version is not None and not version < V["0.11.0"]:
        facts.set(key, Fact("FULL_AND_PIECEWISE", "default"))
    elif version is not None and not version < V["0.10.1"]:
        facts.set(key, Fact("PIECEWISE", "default"))


def _flashinfer_q_quant(facts: FactSet, version: Version | None, flags_closed: bool, env_closed: bool) -> None:
    """FlashInfer Q-quantization: on unless ``VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION`` (read 0.10.2-0.14.x,
    default 0) or ``--attention-config`` ``disable_flashinfer_q_quantization`` (0.13.0+, default false) turns it
    off; the switch does not exist before 0.10.2."""
    key = "attention.flashinfer_q_quant"
    if facts.settled(key):
        return
    env = facts.get("env.VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION")
    env_read = version is not None and not version < V["0.10.2"] and version < V["0.15.0"]
    if env is not None and env.value is not None and _truthy(env.value) is not None:
        if env_read:
            facts.set(key, Fact(not _truthy(env.value), "env", env.path, env.line, env.column))
            return
        if version is None:
            return  # read by some versions only: unknown until the version is known
    if version is not None and not version < V["0.10.2"] and flags_closed and (env_closed or not env_read):
        facts.set(key, Fact(True, "default", note="Q is quantized to FP8 with an FP8 KV cache unless disabled"))
