"""The "my setup" verdicts on each engine's default launch, made by the linter's own pipeline.

Each engine names the smallest launch a user writes (``Engine.default_launch``: ``vllm serve "$MODEL"``,
``llama-server -m "$MODEL"``, ``python -m sglang.launch_server --model-path "$MODEL"``). A setup (engine, version,
GPU, backend, OS) is that line read as a shell file, its deployments extracted by the engine, the setup laid over
them as target facts (``--gpu``, ``--engine-version``, ``--os``, ``--fact engine.backend=``), finished with the
engine's defaults for the version, and every record evaluated over the possible worlds: the stages ``relialint
check`` runs (:func:`relialint.run.lint.lint_paths`), so that the page says what

    relialint check launch.sh --gpu G --engine-version V [--os OS] [--fact engine.backend=B] --show-possible

says, record for record and certainty for certainty (the tests compare the two).

A record is evaluated once per class of setups that its verdict cannot tell apart: GPUs that agree on the ``gpu.*``
facts its trigger reads and on the vendor and compute capability (the engines' defaults read those), versions that
compare alike with every version it names and share the engine's class of defaults (``Engine.version_class``), the
OS only where the trigger reads ``host.os``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from relialint.core.hardware import Gpu
from relialint.core.results import Target
from relialint.core.versions import Version, VersionBound

if TYPE_CHECKING:
    from relialint.core.deployment import Deployment
    from relialint.core.evaluator import Evaluator
    from relialint.engines.protocol import Engine

LAUNCH_PATH = "launch.sh"
"""The name the default launch is linted under (a shell script; it is never written to disk)."""
BACKEND_LABELS = {"cuda": "CUDA", "hip": "ROCm (HIP)", "vulkan": "Vulkan", "metal": "Metal",
                  "sycl": "SYCL (oneAPI)", "cpu": "CPU only"}
OS_CHOICES = (("linux", "Linux"), ("windows", "Windows"), ("macos", "macOS"))
"""``host.os`` values (the vocabulary's, ``--os``) and their labels."""
GPU_DEFAULT_KEYS = ("gpu.vendor", "gpu.sm")
"""The GPU facts the engines' defaults read (vLLM's V0 fallback below compute capability 8.0, its backend by
vendor): part of every record's class of GPUs."""


@dataclass(frozen=True)
class Setup:
    """One choice of the form; ``None``: "not sure", the fact stays unknown as the linter leaves it."""

    engine: str
    gpu: Gpu | None = None
    version: Version | VersionBound | None = None
    backend: str | None = None
    os: str | None = None

    def target(self) -> Target:
        """The setup as the command line's target (a version beyond the known ones has no option: see
        :meth:`LaunchLinter.deployments`)."""
        return Target(gpu=self.gpu.name if self.gpu else None,
                      engine_version=self.version.text if isinstance(self.version, Version) else None,
                      os=self.os, facts={"engine.backend": self.backend} if self.backend else {})

    def cli_args(self) -> list[str]:
        """The options of ``relialint check`` that state this setup (a version beyond the known ones cannot be
        stated, the linter's worlds stand for it)."""
        out = ["--gpu", self.gpu.name] if self.gpu else []
        if isinstance(self.version, Version):
            out += ["--engine-version", self.version.text]
        if self.os:
            out += ["--os", self.os]
        if self.backend:
            out += ["--fact", f"engine.backend={self.backend}"]
        return out


@dataclass(frozen=True)
class Verdict:
    """A record on one setup: ``definite`` or ``possible``, and the facts that would decide a possible one."""

    certainty: str
    missing: tuple[str, ...] = ()


@dataclass
class LaunchLinter:
    """The linter's stages over the default launches, with one evaluator (the memo of judgements over worlds) for
    every setup, as one run of the linter has over its files and targets."""

    evaluator: Evaluator | None = None
    _made: dict[Setup, list[Deployment]] = field(default_factory=dict)

    def deployments(self, setup: Setup) -> list[Deployment]:
        """The default launch of ``setup.engine``, read, extracted, given the setup's target facts and finished
        (``relialint.run.lint``'s stages, in its order); made once per setup."""
        made = self._made.get(setup)
        if made is not None:
            return made
        from relialint.core.facts import Fact
        from relialint.engines.registry import default_registry
        from relialint.readers.opener import MemoryOpener
        from relialint.run.lint import apply_target, finish, read_file, shared_memory, target_facts

        registry = default_registry()
        engine = _engine(setup.engine)
        opener = MemoryOpener({})  # the launch names no file
        result = read_file(engine.default_launch + "\n", LAUNCH_PATH, "shell", opener)
        deployments = [d for d in registry.extract(result, opener, None) if d.engine == setup.engine]
        given = target_facts(setup.target())
        notes: list[str] = []
        for deployment in deployments:
            if engine.takes_version:
                deployment.facts.closed.add("bench.")
            if isinstance(setup.version, VersionBound):  # as the worlds past the tables have it
                deployment.facts.set("engine.version",
                                     Fact(setup.version, "inferred", note="a version beyond the known ones"))
            apply_target(deployment, given, notes, registry)
            finish(deployment, registry)
        shared_memory(deployments, registry)
        self._made[setup] = deployments
        return deployments

    def verdict(self, record: Mapping[str, Any], setup: Setup) -> Verdict | None:
        """The linter's verdict on ``record`` for the setup's default launch; ``None`` where it reports nothing."""
        from relialint.core.evaluator import Evaluator
        from relialint.core.findings import evaluate
        from relialint.engines.registry import default_registry

        if self.evaluator is None:
            self.evaluator = Evaluator()
        found = []
        for deployment in self.deployments(setup):
            found += evaluate(deployment, [dict(record)], default_registry().get(deployment.engine), self.evaluator)
        if not found:
            return None
        if any(f.certainty == "definite" for f in found):
            return Verdict("definite")
        return Verdict("possible", tuple(sorted({m for f in found for m in f.missing_facts})))


def _engine(name: str) -> Engine:
    from relialint.engines.registry import default_registry

    engine = default_registry().get(name)
    if engine is None:
        raise ValueError(f"no engine {name!r} in the registry")
    return engine


def backend_choices(engine: str) -> list[str | None]:
    """``None`` ("not sure"), then the backends the engine is built for; only "not sure" where the GPU decides."""
    return [None, *_engine(engine).backends]


def os_choices() -> list[str | None]:
    return [None, *(value for value, _ in OS_CHOICES)]


# -- every setup of one record, by classes -----------------------------------------------------------------------------


Grid = list[list[Verdict | None]]
"""``grid[g][v]``: the verdict for GPU choice ``g`` and version choice ``v`` (``None``: not reported)."""


@dataclass
class LaunchSetups:
    """One record's verdicts on the default launch of each engine: ``grids[engine][(b, o)]`` for backend choice
    ``b`` and OS choice ``o``; ``oses`` is ``(None,)`` where the trigger does not read the OS (one grid stands for
    every OS choice)."""

    record: Mapping[str, Any]
    grids: dict[str, dict[tuple[int, int], Grid]] = field(default_factory=dict)
    reads_os: bool = False

    def by(self, engine: str) -> list[str]:
        """What changes the verdict for this engine, among the GPU, the version, the backend and the OS."""
        grids = self.grids.get(engine) or {}
        out: list[str] = []
        if any(len({_key(row[v]) for row in grid[1:]}) > 1 for grid in grids.values() for v in range(len(grid[0]))):
            out.append("gpu")
        if any(len({_key(c) for c in row[1:]}) > 1 for grid in grids.values() for row in grid):
            out.append("version")
        if len({_grid_key(grid) for (b, _), grid in grids.items() if b > 0}) > 1:
            out.append("backend")
        if len({_grid_key(grid) for (_, o), grid in grids.items() if o > 0}) > 1:
            out.append("os")
        return out


def _key(cell: Verdict | None) -> object:
    return None if cell is None else (cell.certainty, cell.missing)


def _grid_key(grid: Grid) -> object:
    return tuple(tuple(_key(c) for c in row) for row in grid)


BACKEND_FACTS = frozenset({"engine.backend", "engine.flashinfer"})
"""Facts a GPU's vendor can decide: the backend, and FlashInfer, a CUDA library (off on any other backend)."""


def version_order(version: Version | VersionBound | None, literal: Version) -> object:
    """Where a version choice lies against one literal of a trigger: -1, 0, 1, or what keeps it from comparing
    (unknown, another scheme). Choices with the same orders against every literal get the same verdict."""
    if version is None:
        return "unknown"
    if isinstance(version, VersionBound):
        return version.order(literal)
    if not version.comparable(literal):
        return "other scheme"
    return -1 if version < literal else (1 if literal < version else 0)


def _version_key(engine: Engine, version: Version | VersionBound | None, literals: Sequence[Version]) -> object:
    orders = tuple(version_order(version, lit) for lit in literals)
    if version is None:
        return None
    if isinstance(version, VersionBound):
        return ("beyond", version.above, orders)
    return ("release", engine.version_class(version), orders)


def _gpu_key(gpu: Gpu | None, keys: Sequence[str]) -> object:
    if gpu is None:
        return None
    facts = gpu.facts()
    return tuple((k, str(facts[k]) if k in facts else "?") for k in keys)


def launch_setups(record: Mapping[str, Any], gpus: Sequence[Gpu | None],
                  versions: Mapping[str, Sequence[Version | VersionBound | None]], linter: LaunchLinter
                  ) -> LaunchSetups:
    """The record's verdict on every engine's default launch for every choice, one evaluation per class."""
    from relialint.core.evaluator import Evaluator

    out = LaunchSetups(record)
    trigger = Evaluator().trigger(record)
    if trigger is None or record.get("status") == "withdrawn":
        return out
    out.reads_os = "host.os" in trigger.keys
    gkeys = sorted({k for k in trigger.keys if k.startswith("gpu.")} | set(GPU_DEFAULT_KEYS))
    oses = os_choices() if out.reads_os else [None]
    # a stated backend can tell the GPU's vendor (HIP runs on AMD): it matters where the trigger reads the backend
    # or the GPU (the engines' defaults read neither for the engines that offer a choice of backend)
    reads_backend = any(k in BACKEND_FACTS or k.startswith("gpu.") for k in trigger.keys)
    for name in versions:
        if record.get("engines") and name not in record["engines"]:
            continue
        engine = _engine(name)
        literals = [f for f in (engine.own_version(v) for v in trigger.literals) if f is not None]
        vkeys = [_version_key(engine, v, literals) for v in versions[name]]
        gkeyed = [_gpu_key(g, gkeys) for g in gpus]
        memo: dict[tuple[object, ...], Verdict | None] = {}
        grids: dict[tuple[int, int], Grid] = {}
        for b, backend in enumerate(backend_choices(name)):
            if b > 0 and not reads_backend:  # as on "not sure": the trigger reads neither it nor what it implies
                grids.update({(b, o): grids[(0, o)] for o in range(len(oses))})
                continue
            for o, host in enumerate(oses):
                grid: Grid = []
                for gpu, gkey in zip(gpus, gkeyed, strict=True):
                    row: list[Verdict | None] = []
                    for version, vkey in zip(versions[name], vkeys, strict=True):
                        key = (backend, host, gkey, vkey)
                        if key not in memo:
                            memo[key] = linter.verdict(record, Setup(name, gpu, version, backend, host))
                        row.append(memo[key])
                    grid.append(row)
                grids[(b, o)] = grid
        out.grids[name] = grids
    return out


# -- what decides a possible verdict, in the user's words ------------------------------------------------------------


def deciding(engine: str, missing: Sequence[str]) -> str:
    """What the user would set or look up to decide a possible verdict: the engine's options and variables that set
    each missing fact (``Engine.option_flags``, ``Engine.option_env``), the variable or build option a fact is, "the
    model" for what the model decides (with the options that override it), else what the fact is (the
    vocabulary's description); never the fact key. Parts are joined by "; "."""
    model = _engine(engine)
    parts: list[str] = []
    model_flags = [f for key in missing if key.startswith("model.") for f in model.option_flags(key)]
    for key in missing:
        if key.startswith("env."):
            said = key[4:]
        elif key.startswith("build."):
            said = f"the build option {key[6:]}"
        elif key.startswith("model."):  # one entry for all the model decides, with the options that override it
            said = "the model" + (f" (or {' or '.join(dict.fromkeys(model_flags))})" if model_flags else "")
        elif key == "engine.version":
            said = f"the {model.label} version"
        elif key == "engine.backend":
            said = "the backend"
        elif key == "engine.flashinfer":
            said = "whether FlashInfer is installed"
        elif key == "host.os":
            said = "the OS"
        elif key in ("gpu.model", "gpu.vendor", "gpu.sm", "gpu.arch"):
            said = "the GPU"
        else:
            settings = [*model.option_flags(key), *model.option_env(key)]
            said = " or ".join(settings) if settings else _described(key)
        if said not in parts:
            parts.append(said)
    return "; ".join(parts)


def _described(key: str) -> str:
    """A fact no option or variable sets: a boolean in the records' own phrase ("whether the GPU has native FP4"),
    else as the vocabulary describes it (its first clause): "whether a port of the container is reachable on every
    host interface"."""
    from relialint.core.facts import spec_for
    from relialint.kb.describe import fact_phrase

    phrase = fact_phrase(key)
    if phrase is not None:
        return f"whether {phrase}"
    spec = spec_for(key)
    if spec is None:
        return key
    first = spec.description
    for stop in (": ", "; ", " (", ", "):
        first = first.split(stop, 1)[0]
    first = first.strip()
    return f"whether {first}" if spec.type == "bool" else first
