"""The facts vLLM sets itself when a config says nothing, by version (``origin: default``). Where the default
depends on a version that is not known, the fact stays unknown.

The defaults are data: rows of (fact, versions, preconditions, value, note), read by one small function
(:func:`version_defaults`). The version is compared only with the bounds of the rows' version ranges, and those
bounds are the thresholds of :func:`version_class`, so two versions on the same side of every threshold get the same
defaults by construction (the version worlds evaluate the defaults once per class: ``worlds._plan``).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from relialint.base.plain import Frozen
from relialint.core.deployment import Deployment
from relialint.core.facts import Fact, FactSet, Value
from relialint.core.versions import Version, parse_in_family
from relialint.engines import flagcheck
from relialint.engines.vllm_args import _number

if TYPE_CHECKING:
    from relialint.core.evaluate import FactView


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


# -- the vocabulary of a row ------------------------------------------------------------------------------------------


class Versions(Frozen):
    """The versions a row holds for: the known versions from ``since`` (inclusive) up to ``before`` (exclusive);
    ``unknown``: also a deployment whose version is unknown (or not a vLLM release number); ``known``: False for a
    row that holds only where the version is unknown."""

    since: Version | None
    before: Version | None
    known: bool
    unknown: bool
    _fields = ("since", "before", "known", "unknown")

    def __init__(self, since: Version | None = None, before: Version | None = None, known: bool = True,
                 unknown: bool = False) -> None:
        self.since = since
        self.before = before
        self.known = known
        self.unknown = unknown

    def admits(self, version: Version | None) -> bool:
        if version is None:
            return self.unknown
        return self.known and (self.since is None or not version < self.since) and (
            self.before is None or version < self.before)

    def bounds(self) -> tuple[Version, ...]:
        return tuple(bound for bound in (self.since, self.before) if bound is not None)


def _v(text: str) -> Version:
    return parse_in_family(False, text)


def since(text: str) -> Versions:
    return Versions(since=_v(text))


def before(text: str) -> Versions:
    return Versions(before=_v(text))


def between(first: str, end: str) -> Versions:
    """From ``first`` up to, not including, ``end``."""
    return Versions(_v(first), _v(end))


EVERY = Versions(unknown=True)
"""Every version, and an unknown one."""
UNKNOWN_VERSION = Versions(known=False, unknown=True)
"""Only where the version is unknown."""


class Closed(Frozen):
    """The config is complete for the keys under ``prefix`` (a full command line closes ``flag.vllm.``, a full
    environment ``env.``): an absent key there is known unset."""

    prefix: str
    _fields = ("prefix",)

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def holds(self, facts: FactSet) -> bool:
        return self.prefix in facts.closed


class _KeyCondition(Frozen):
    """A condition on one fact."""

    key: str
    _fields = ("key",)

    def __init__(self, key: str) -> None:
        self.key = key


class Known(_KeyCondition):
    """The fact is known: set to a value or known to be unset."""

    def holds(self, facts: FactSet) -> bool:
        return facts.get(self.key) is not None


class HasValue(_KeyCondition):
    """The fact is set to a value."""

    def holds(self, facts: FactSet) -> bool:
        fact = facts.get(self.key)
        return fact is not None and fact.value is not None


class NoValue(_KeyCondition):
    """The fact is not set to a value: known unset, or unknown."""

    def holds(self, facts: FactSet) -> bool:
        fact = facts.get(self.key)
        return fact is None or fact.value is None


Parse = Callable[[object], Value | None]
"""How a fact's value is read (an environment variable's text as a boolean, a number); ``None``: it reads as
nothing."""


class Reads(Frozen):
    """The fact is set to a value that ``parse`` reads (an environment variable vLLM reads as a boolean)."""

    key: str
    parse: Parse
    _fields = ("key", "parse")

    def __init__(self, key: str, parse: Parse) -> None:
        self.key = key
        self.parse = parse

    def holds(self, facts: FactSet) -> bool:
        fact = facts.get(self.key)
        return fact is not None and fact.value is not None and self.parse(fact.value) is not None


class Is(Frozen):
    """The fact holds exactly this boolean."""

    key: str
    value: bool
    _fields = ("key", "value")

    def __init__(self, key: str, value: bool) -> None:
        self.key = key
        self.value = value

    def holds(self, facts: FactSet) -> bool:
        fact = facts.get(self.key)
        return fact is not None and fact.value is self.value


class Either(Frozen):
    """One of the conditions holds."""

    first: Condition
    second: Condition
    _fields = ("first", "second")

    def __init__(self, first: Condition, second: Condition) -> None:
        self.first = first
        self.second = second

    def holds(self, facts: FactSet) -> bool:
        return self.first.holds(facts) or self.second.holds(facts)


class Unset(_KeyCondition):
    """The fact is known to be unset (an env var no file sets, in a complete environment)."""

    def holds(self, facts: FactSet) -> bool:
        fact = facts.get(self.key)
        return fact is not None and fact.value is None


class CudaBelow(Frozen):
    """The deployment runs on a CUDA GPU of compute capability below ``sm``: ``certain`` where the file says so
    (``gpu.sm`` known), else where it may (``gpu.sm`` unknown, and neither the vendor nor the backend rules CUDA
    out)."""

    sm: float
    certain: bool
    _fields = ("sm", "certain")

    def __init__(self, sm: float, certain: bool) -> None:
        self.sm = sm
        self.certain = certain

    def holds(self, facts: FactSet) -> bool:
        below = cuda_below(facts, self.sm)
        return below is True if self.certain else below is None


def cuda_below(facts: FactView, sm: float) -> bool | None:
    """Whether the deployment's GPU is a CUDA GPU below compute capability ``sm`` (``None``: not known)."""
    backend, vendor, capability = facts.get("engine.backend"), facts.get("gpu.vendor"), facts.get("gpu.sm")
    if backend is not None and backend.value not in (None, "cuda"):
        return False  # ROCm, CPU, XPU, TPU: vLLM's platform is not CUDA (current_platform.is_cuda() is false)
    if vendor is not None and vendor.value is not None and vendor.value != "nvidia":
        return False
    if capability is None:
        return None
    if capability.value is None:
        return False  # known to have no CUDA compute capability (another vendor's GPU, no GPU)
    try:
        return float(str(capability.value)) < sm
    except ValueError:
        return None


class Condition(Protocol):
    """A precondition of a row (the classes above; another engine's rows may add their own)."""

    def holds(self, facts: FactSet) -> bool: ...


class Const(Frozen):
    """A fixed value, ``origin: default``."""

    value: Value | None
    _fields = ("value",)

    def __init__(self, value: Value | None) -> None:
        self.value = value


class _Derived(Frozen):
    key: str
    parse: Parse
    _fields = ("key", "parse")

    def __init__(self, key: str, parse: Parse) -> None:
        self.key = key
        self.parse = parse


class FromEnv(_Derived):
    """The value of the environment variable ``key`` as ``parse`` reads it, located where the variable is set
    (``origin: env``); nothing is set where ``parse`` reads nothing."""


class Follows(_Derived):
    """The engine's default derived from another fact's value (``origin: default``)."""


class Unknown:
    """The fact is made unknown: no value, and no later default may fill it."""


MADE_UNKNOWN = Unknown()

Outcome = Const | FromEnv | Follows | Unknown


class Row(Frozen):
    """One default: ``fact`` takes ``value`` for the versions in ``versions`` where every condition in ``when``
    holds. ``note`` is shown with the fact; ``why`` says where the default comes from (vLLM's source). The first of
    a fact's rows that applies decides, even where its value reads as nothing (a variable set to no number): the
    rows after it are not tried."""

    fact: str
    versions: Versions
    when: tuple[Condition, ...]
    value: Outcome
    note: str | None
    why: str
    _fields = ("fact", "versions", "when", "value", "note", "why")

    def __init__(self, fact: str, versions: Versions, when: tuple[Condition, ...], value: Outcome,
                 note: str | None = None, why: str = "") -> None:
        self.fact = fact
        self.versions = versions
        self.when = when
        self.value = value
        self.note = note
        self.why = why

    def applies(self, version: Version | None, facts: FactSet) -> bool:
        return self.versions.admits(version) and all(condition.holds(facts) for condition in self.when)

    def apply(self, facts: FactSet) -> None:
        value = self.value
        if isinstance(value, Unknown):
            facts.unknown(self.fact)
        elif isinstance(value, Const):
            facts.set(self.fact, Fact(value.value, "default", note=self.note))
        else:
            source = facts.get(value.key)
            parsed = value.parse(source.value) if source is not None and source.value is not None else None
            if source is None or parsed is None:
                return
            if isinstance(value, FromEnv):
                facts.set(self.fact, Fact(parsed, "env", source.path, source.line, source.column, note=self.note))
            else:
                facts.set(self.fact, Fact(parsed, "default", note=self.note))


def _not_truthy(value: object) -> bool | None:
    truthy = _truthy(value)
    return None if truthy is None else not truthy


def _whole_number(value: object) -> int | None:
    number = _number(str(value), int)
    return None if number is None else int(number)


def _upper(value: object) -> str:
    return str(value).upper()


def _flag(value: object) -> bool:
    return bool(value)


# -- the table --------------------------------------------------------------------------------------------------------

FLAGS = Closed("flag.vllm.")
ENV = Closed("env.")
USE_V1 = "env.VLLM_USE_V1"
USE_V2 = "env.VLLM_USE_V2_MODEL_RUNNER"
READY_TIMEOUT = "env.VLLM_ENGINE_READY_TIMEOUT_S"
ATTENTION = "env.VLLM_ATTENTION_BACKEND"
NO_Q_QUANT = "env.VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION"
Q_QUANT_NOTE = "Q is quantized to FP8 with an FP8 KV cache unless disabled"

V0_FALLBACK = between("0.8.0", "0.10.2")
"""The releases that run V0 on a CUDA GPU below compute capability 8.0 when VLLM_USE_V1 is unset."""
V0_NOTE = "vLLM 0.8.0-0.10.1.1 fall back to the V0 engine on compute capability below 8.0"

ROWS: tuple[Row, ...] = (
    Row("serve.dtype", EVERY, (FLAGS,), Const("auto")),
    Row("kv_cache.dtype", EVERY, (FLAGS,), Const("auto")),
    Row("cuda_graphs.enabled", EVERY, (FLAGS,), Const(True)),
    # the cudagraph mode when the config names none (config/compilation.py); none before 0.10.1, when the mode did
    # not exist
    Row("cuda_graphs.mode", EVERY, (FLAGS, Is("cuda_graphs.enabled", False)), Const("NONE"),
        note="CUDA graphs are off", why="--enforce-eager turns CUDA graphs off"),
    Row("cuda_graphs.mode", since("0.11.0"), (FLAGS,), Const("FULL_AND_PIECEWISE")),
    Row("cuda_graphs.mode", between("0.10.1", "0.11.0"), (FLAGS,), Const("PIECEWISE")),
    Row("spec_decode.enabled", EVERY, (FLAGS,), Const(False)),
    Row("spec_decode.method", EVERY, (FLAGS,), Const(None)),
    Row("spec_decode.num_tokens", EVERY, (FLAGS,), Const(None)),
    Row("parallel.tensor", EVERY, (FLAGS,), Const(1)),
    Row("parallel.pipeline", EVERY, (FLAGS,), Const(1)),
    Row("moe.backend", EVERY, (FLAGS,), Const("auto")),
    Row("limits.max_model_len", EVERY, (FLAGS,), Const(None)),
    Row("limits.max_num_batched_tokens", EVERY, (FLAGS,), Const(None)),
    # unset: the engine sizes it itself (SchedulerConfig / EngineArgs defaults: 128 to 1024 by usage context and
    # device in the releases checked, 256 in 0.6.x); the records read only whether it is below a threshold
    Row("limits.max_num_seqs", EVERY, (FLAGS,), Const(None)),
    # VLLM_USE_V1 is read up to 0.11.0; V1 is the only engine from 0.11.1, and the default from 0.8.0
    Row("engine.v1", since("0.11.1"), (), Const(True), note="V1 is the only engine from 0.11.1"),
    Row("engine.v1", EVERY, (Reads(USE_V1, _truthy),), FromEnv(USE_V1, _truthy)),
    Row("engine.v1", before("0.8.0"), (Either(Known(USE_V1), ENV),), Const(False)),
    # with VLLM_USE_V1 unset, 0.8.0-0.10.1.1 fall back to V0 on a CUDA GPU below compute capability 8.0
    # (EngineArgs._is_v1_supported_oracle, vllm/engine/arg_utils.py: `_raise_or_fallback(feature_name="Compute
    # Capability < 8.0")` when current_platform.is_cuda() and get_device_capability().major < 8; gone in 0.10.2:
    # `tools/witness.py --explore vllm vllm/engine/arg_utils.py 'feature_name="Compute Capability < 8\.0"'` finds
    # it in every wheel 0.8.0-0.10.1.1 and in no other). Where the GPU is not known the default is decided in each
    # GPU world (gpu_defaults)
    Row("engine.v1", V0_FALLBACK, (Either(Unset(USE_V1), ENV), NoValue(USE_V1), CudaBelow(8.0, certain=True)),
        Const(False), note=V0_NOTE),
    Row("engine.v1", V0_FALLBACK, (Either(Unset(USE_V1), ENV), NoValue(USE_V1), CudaBelow(8.0, certain=False)),
        MADE_UNKNOWN, why="V1 or V0 by the GPU's compute capability"),
    Row("engine.v1", since("0.8.0"), (Either(Known(USE_V1), ENV),), Const(True)),
    # prefix caching: off in V0, on in V1
    Row("prefix_caching.enabled", EVERY, (FLAGS, HasValue("engine.v1")), Follows("engine.v1", _flag),
        note="the engine's default for this version"),
    # no release before 0.12.0 reads VLLM_USE_V2_MODEL_RUNNER, whatever the environment holds. With the variable
    # unset (VllmConfig.use_v2_model_runner, vllm/config/vllm.py): up to 0.21.x it defaults to 0; 0.22.0-0.28.x use
    # V2 only for the architectures in DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES (a list that changes per release; the
    # config does not show the architecture), so it stays unknown; from 0.29.0 V2 is the default wherever it
    # supports the configuration
    Row("engine.v2_model_runner", before("0.12.0"), (), Const(False), note="no V2 model runner before 0.12.0"),
    Row("engine.v2_model_runner", EVERY, (Reads(USE_V2, _truthy),), FromEnv(USE_V2, _truthy)),
    Row("engine.v2_model_runner", between("0.12.0", "0.22.0"), (ENV, NoValue(USE_V2)), Const(False)),
    Row("engine.v2_model_runner", since("0.29.0"), (ENV, NoValue(USE_V2)), Const(True),
        note="from 0.29.0 the V2 runner is used where supported"),
    Row("memory.gpu_utilization", before("0.20.0"), (FLAGS,), Const(0.9)),
    Row("memory.gpu_utilization", since("0.20.0"), (FLAGS,), Const(0.92)),
    # the variable set to something that is no number: no default either
    Row("engine.ready_timeout_s", EVERY, (HasValue(READY_TIMEOUT),), FromEnv(READY_TIMEOUT, _whole_number)),
    Row("engine.ready_timeout_s", since("0.14.0"), (Either(Known(READY_TIMEOUT), ENV),), Const(600)),
    # VLLM_ATTENTION_BACKEND is read only by vLLM up to 0.14.x: unknown where the version is unknown
    Row("attention.backend", UNKNOWN_VERSION, (HasValue(ATTENTION),), MADE_UNKNOWN,
        why="read only by vLLM up to 0.14.0"),
    Row("attention.backend", before("0.15.0"), (HasValue(ATTENTION),), FromEnv(ATTENTION, _upper)),
    Row("attention.backend", since("0.15.0"), (HasValue(ATTENTION), FLAGS), Const("auto"),
        note="VLLM_ATTENTION_BACKEND is ignored"),
    Row("attention.backend", EVERY, (FLAGS, Either(Known(ATTENTION), ENV)), Const("auto")),
    # FlashInfer Q-quantization: on unless VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION (read 0.10.2-0.14.x, default 0)
    # or --attention-config disable_flashinfer_q_quantization (0.13.0+, default false) turns it off; the switch does
    # not exist before 0.10.2
    Row("attention.flashinfer_q_quant", between("0.10.2", "0.15.0"), (Reads(NO_Q_QUANT, _truthy),),
        FromEnv(NO_Q_QUANT, _not_truthy)),
    Row("attention.flashinfer_q_quant", between("0.10.2", "0.15.0"), (FLAGS, ENV), Const(True), note=Q_QUANT_NOTE),
    Row("attention.flashinfer_q_quant", since("0.15.0"), (FLAGS,), Const(True), note=Q_QUANT_NOTE),
)


def _by_fact(rows: tuple[Row, ...]) -> tuple[tuple[str, tuple[Row, ...]], ...]:
    """The rows of each fact in table order, the facts in order of first appearance (a fact's rows are tried in
    order; the first that applies decides)."""
    facts = dict.fromkeys(row.fact for row in rows)
    return tuple((fact, tuple(row for row in rows if row.fact == fact)) for fact in facts)


BY_FACT = _by_fact(ROWS)
THRESHOLDS: tuple[Version, ...] = tuple(sorted({bound for row in ROWS for bound in row.versions.bounds()}))
"""Every version a row's range starts or ends at: the only versions the defaults compare with."""


def _version(facts: FactSet) -> Version | None:
    """The deployment's vLLM version, or ``None`` when it is unknown or not a vLLM release number."""
    fact = facts.get("engine.version")
    version = fact.value if fact is not None and isinstance(fact.value, Version) else None
    return version if version is not None and version.scheme == "pep440" else None


@lru_cache(maxsize=1024)
def version_class(version: Version) -> tuple[object, ...]:
    """Which side of every threshold the version is on, as how many thresholds it has reached (they are ordered):
    versions of one class get the same defaults, since the rows compare the version only with the thresholds."""
    return (bisect_right(THRESHOLDS, version),)


def version_defaults(facts: FactSet) -> None:
    """The defaults alone (no option checks): what the possible-worlds evaluator computes inside each version. Each
    fact not already settled takes the first of its rows that applies, if any."""
    version = _version(facts)
    for fact, rows in BY_FACT:
        if facts.settled(fact):
            continue
        for row in rows:
            if row.applies(version, facts):
                row.apply(facts)
                break


# -- defaults that depend on the GPU ----------------------------------------------------------------------------------

GPU_DEPENDENT = frozenset({"engine.v1", "prefix_caching.enabled"})
"""Defaults that can depend on the GPU: where the file does not name it, :func:`gpu_defaults` decides them in each
GPU world."""
GPU_CONDITIONS: tuple[Mapping[str, Any], ...] = ({"fact": "gpu.sm", "lt": "8.0"},)
"""What tells the GPU worlds apart for :func:`gpu_defaults` (as trigger leaves): below 8.0 or not (a GPU of another
vendor has no ``gpu.sm`` and answers as one of 8.0 or more does)."""
GPU_READS: tuple[str, ...] = ("engine.version", "engine.backend", USE_V1, "flag.vllm.enable-prefix-caching")
"""What :func:`gpu_defaults` reads besides the ``gpu.*`` facts."""
GPU_BOUNDS: tuple[Version, ...] = V0_FALLBACK.bounds()
"""The versions where :func:`gpu_defaults` starts or stops deciding something."""


def gpu_defaults(facts: FactView) -> dict[str, Fact | None]:
    """The defaults the rows left unknown for want of the GPU (``CudaBelow(certain=False)``), decided in one GPU
    world (``facts``: a version world with a GPU world over it): V1 or the V0 fallback, and prefix caching, which
    follows the engine where no flag sets it."""
    if facts.get("engine.v1") is not None:
        return {}
    version = facts.get("engine.version")
    if version is None or not isinstance(version.value, Version) or version.value.scheme != "pep440" \
            or not V0_FALLBACK.admits(version.value):
        return {}
    use_v1 = facts.get(USE_V1)
    if use_v1 is None or use_v1.value is not None:
        return {}
    below = cuda_below(facts, 8.0)
    if below is None:  # a GPU the file does not name: unknown for want of it (the worlds say gpu.sm decides)
        return dict.fromkeys(GPU_DEPENDENT & {"engine.v1", *_prefix_follows(facts)})
    note = V0_NOTE if below else "V1 is the default from 0.8.0 (compute capability 8.0 or more, or not CUDA)"
    out: dict[str, Fact | None] = {"engine.v1": Fact(not below, "default", note=note)}
    for key in _prefix_follows(facts):
        out[key] = Fact(not below, "default", note="the engine's default for this version")
    return out


def _prefix_follows(facts: FactView) -> tuple[str, ...]:
    """``prefix_caching.enabled`` where it follows the engine (no flag sets it and the rows left it unknown)."""
    flag = facts.get("flag.vllm.enable-prefix-caching")
    follows = facts.get("prefix_caching.enabled") is None and flag is not None and flag.value is None
    return ("prefix_caching.enabled",) if follows else ()
