"""Facts given outside the files (command line, configuration): parsed, typed, and laid under each deployment's
own facts, which always win; then the engine's defaults for what is still unknown."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relialint.base.plain import replace
from relialint.core.deployment import Deployment, exclusive
from relialint.core.facts import Fact, FactSet, FactValueError, parse_value, render, spec_for
from relialint.core.results import Target, UsageError

if TYPE_CHECKING:
    from relialint.engines.protocol import Engine
    from relialint.engines.registry import Registry

# -- target facts ---------------------------------------------------------------------------------------------------


def target_facts(target: Target) -> dict[str, Fact]:
    """The target as facts; raises ``UsageError`` for an unknown GPU, key or badly typed value."""
    origin: Any = target.origin
    out: dict[str, Fact] = facts_file_facts(target.facts_file) if target.facts_file is not None else {}
    if target.gpu:
        from relialint.core import hardware

        try:
            gpu = hardware.resolve(target.gpu)
        except hardware.UnknownGpu as exc:
            raise UsageError(str(exc)) from exc
        out = {k: v for k, v in out.items() if k not in HARDWARE_KEYS}
        for key, value in gpu.facts().items():
            out[key] = Fact(value, origin)  # type: ignore[arg-type]
    if target.os:
        out["host.os"] = _typed_fact("host.os", target.os, origin)
    if target.engine_version:
        out["engine.version"] = _typed_fact("engine.version", target.engine_version, origin)
    for key, value in target.facts.items():
        out[key] = _typed_fact(key, value, origin)
    return out


HARDWARE_KEYS = ("gpu.model", "gpu.vendor", "gpu.sm", "gpu.arch", "gpu.native_fp8", "gpu.native_fp4")


class FactsFileError(UsageError):
    """A facts file that cannot be used, located in it (``path:line:column: message`` as a usage error)."""

    def __init__(self, path: str, line: int, column: int, message: str) -> None:
        super().__init__(f"{path}:{line}:{column}: {message}")
        self.path, self.line, self.column, self.message = path, line, column, message


def facts_file_facts(path: Path) -> dict[str, Fact]:
    """A facts file (``probe --write-facts`` JSON/TOML, or ``vllm collect-env`` text) as target facts, origin
    ``probe``, each with its line in the file as ``source``. A GPU name goes through the hardware catalogue as ``--gpu``
    does; the file's own ``gpu.*`` values come on top. ``FactsFileError`` (located) for anything the file gets
    wrong. Read each time it is asked for: a run asks once per target (``lint.Session``)."""
    from relialint.probe import factsfile

    read = factsfile.read(path)
    if read.errors:
        e = read.errors[0]
        raise FactsFileError(e.path, e.line, e.column, e.message)
    out: dict[str, Fact] = {}
    entries = list(read.entries)
    gpu_entries = [e for e in entries if e.key == "gpu"] or [e for e in entries if e.key == "gpu.model"]
    if gpu_entries:
        from relialint.core import hardware

        entry = gpu_entries[0]
        try:
            gpu = hardware.resolve(entry.raw)
        except hardware.UnknownGpu as exc:
            raise FactsFileError(read.path, entry.line, entry.column, str(exc)) from exc
        for name, value in gpu.facts().items():
            out[name] = Fact(value, "probe", note=f"{read.kind}: {entry.raw}",  # type: ignore[arg-type]
                             source=(read.path, entry.line, entry.column))
    for entry in entries:
        if entry.key == "gpu" or (entry.key == "gpu.model" and gpu_entries):
            continue
        try:
            fact = _typed_fact(entry.key, entry.raw, "probe")
        except UsageError as exc:
            raise FactsFileError(read.path, entry.line, entry.column, str(exc)) from exc
        out[entry.key] = replace(fact, note=read.kind, source=(read.path, entry.line, entry.column))
    return out


def _typed_fact(key: str, raw: str, origin: Any) -> Fact:
    spec = spec_for(key)
    if spec is None:
        raise UsageError(f"unknown fact {key!r}; see `relialint facts --help` or docs/reference/facts.md")
    try:
        return Fact(parse_value(spec, raw), origin)
    except FactValueError as exc:
        raise UsageError(str(exc)) from exc


def apply_target(deployment: Deployment, given: dict[str, Fact], notes: list[str],
                 registry: Registry | None = None) -> None:
    """Target facts fill what the files leave unknown; where a file says otherwise, the file wins with a note.
    The deployment's engine, from ``registry`` (default: the engines relialint ships), reads a given version in
    its scheme; one without versions (a benchmark) takes none. What the given facts imply for the engine
    (:func:`relialint.engines.evidence.implied`: a GPU vendor gives vLLM its backend) is derived as for facts
    read from the file."""
    engine = engine_of(deployment, registry)
    facts = deployment.facts
    model, among = given.get("gpu.model"), facts.facts.get("gpu.candidates")
    if model is not None and among is not None and \
            render(model.value).lower() not in render(among.value).lower().split("|"):
        # the file allows only some GPUs (a node affinity list, a MIG profile): a GPU outside them is not used
        notes.append(f"{among.path}:{among.line}: the file allows only {render(among.value).replace('|', ', ')}; "
                     f"the {model.origin} GPU {render(model.value)} is not used")
        given = {k: f for k, f in given.items() if not k.startswith("gpu.") or k == "gpu.count"}
    for key, fact in given.items():
        if key == "engine.version" and engine is not None and not engine.takes_version:
            continue
        current = facts.facts.get(key)
        if current is None:
            if key == "engine.version":
                fitted = _version_fits(engine, fact)
                if fitted is None:
                    continue
                fact = fitted
            facts.set(key, fact)
        elif render(current.value).lower() != render(fact.value).lower():
            where = f"{current.path}:{current.line}" if current.path else deployment.path
            notes.append(f"{where}: {key} is {render(current.value)} in the file; the {fact.origin} value "
                         f"{render(fact.value)} is not used")
    if given:
        from relialint.engines.evidence import implied

        # a GPU given outside the files gives the engine what one named in the file gives it (vLLM on an AMD GPU
        # runs its ROCm build, HIP): the same rule, so `--gpu MI300X` and a compose file's /dev/kfd agree
        implied(deployment)


def _version_fits(engine: Engine | None, fact: Fact) -> Fact | None:
    """The given version read in the deployment's engine scheme, or ``None`` where it is not one of its versions
    (``--engine-version v0.3.0`` is a llama.cpp release for a llama.cpp deployment, vLLM 0.3.0 for a vLLM one)."""
    from relialint.core.versions import Version

    if not isinstance(fact.value, Version):
        return None
    version = engine.own_version(fact.value) if engine is not None else fact.value
    return None if version is None else replace(fact, value=version)


SEPARATE_PODS = frozenset({"kubernetes", "helm"})
"""Deployment kinds whose engines run in pods of their own, with GPUs allocated to each."""


def shared_memory(deployments: list[Deployment], registry: Registry | None = None) -> None:
    """``memory.gpu_utilization_shared_total``: vLLM deployments of one file on the same GPUs add up. Set on the
    finished facts and, summed anew from what the file itself states, on the snapshot taken before the defaults
    (:attr:`Deployment.unfinished`, which the version worlds are built from): a total that leans on a
    version's default ``--gpu-memory-utilization`` stays unknown there."""
    groups: dict[tuple[str, str], list[Deployment]] = {}
    for d in deployments:
        engine = engine_of(d, registry)
        if engine is None or not engine.shares_gpu_memory:
            continue
        if d.kind in SEPARATE_PODS:
            # each pod gets its own GPUs from the device plugin: two engines of one manifest never share one
            fact = Fact(None, "inferred", note="a pod's GPUs are its own (Kubernetes device plugin)")
            for facts in _both(d):
                facts.set("memory.gpu_utilization_shared_total", fact)
            continue
        visible = d.facts.get("env.CUDA_VISIBLE_DEVICES")
        key = (d.path, str(visible.value) if visible is not None and visible.value is not None else "*")
        groups.setdefault(key, []).append(d)
    for members in groups.values():
        if len(members) > 1 and _may_take_turns(members):
            continue
        _group_total(members, _finished)
        if all(m.unfinished is not None for m in members):
            _group_total(members, _unfinished)


def _may_take_turns(members: list[Deployment]) -> bool:
    """Engines on one GPU each of which can give its memory back while it runs (``memory.releasable``: vLLM's
    sleep mode) may take turns rather than share it: whether they ever hold their memory at once is decided at run
    time, so their total stays unknown, with a note. Any member known not to release its memory is always there
    when another one is awake: the sum stands."""
    if any((f := m.facts.get("memory.releasable")) is not None and f.value is False for m in members):
        return False
    for member in members:
        for facts in _both(member):
            facts.unknown("memory.gpu_utilization_shared_total")
        member.notes.append(f"{len(members)} engines on the same GPUs can each release their memory at run time "
                            "(memory.releasable): they may take turns, so their --gpu-memory-utilization total "
                            "is not certain")
    return True


def _finished(d: Deployment) -> FactSet:
    return d.facts


def _unfinished(d: Deployment) -> FactSet:
    # only called where every member has its snapshot (shared_memory); the finished facts otherwise
    return d.unfinished if d.unfinished is not None else d.facts


def _both(d: Deployment) -> list[FactSet]:
    return [d.facts] if d.unfinished is None else [d.facts, d.unfinished]


def _group_total(members: list[Deployment], view: Callable[[Deployment], FactSet]) -> None:
    """The shared total of each deployment of one group, read from and set on the facts ``view`` gives."""
    branched = any(m.branch for m in members)
    if branched and len(members) > _MAX_WEIGHED:
        return  # too many deployments in alternatives to weigh (pairwise work): the total stays unknown
    plain = None if branched or len(members) == 1 else _plain_total(members, view)
    for member in members:
        together = members if not branched else [m for m in members if not exclusive(m, member)]
        if len(together) == 1:
            view(member).set("memory.gpu_utilization_shared_total",
                             Fact(None, "inferred", note="no other engine on the same GPUs in this file"))
            continue
        total = plain if not branched else _largest_total(member, together, view)
        value = view(member).get("memory.gpu_utilization")
        if total is None or value is None:
            continue
        view(member).set("memory.gpu_utilization_shared_total",
                         Fact(total[0], "inferred", value.path, value.line, value.column, value.end_line,
                              value.end_column, note=f"sum over {total[1]} deployment(s) on the same GPUs"))


_MAX_WEIGHED = 64
"""The most deployments of one file on the same GPUs weighed pairwise for ``if`` / ``case`` alternatives."""


def _plain_total(together: list[Deployment], view: Callable[[Deployment], FactSet]) -> tuple[float, int] | None:
    """The sum over deployments none of which sits in an ``if`` / ``case`` arm (all run together), in one pass."""
    total = 0.0
    for d in together:
        fact = view(d).get("memory.gpu_utilization")
        if fact is None or not isinstance(fact.value, int | float) or isinstance(fact.value, bool):
            return None
        total += float(fact.value)
    return round(total, 4), len(together)


def _largest_total(member: Deployment, together: list[Deployment],
                   view: Callable[[Deployment], FactSet]) -> tuple[float, int] | None:
    """The largest sum of ``--gpu-memory-utilization`` over deployments that can run at the same time as
    ``member`` (deployments in different arms of one ``if`` / ``case`` never do), with how many it adds."""
    values: dict[int, float] = {}
    for d in together:
        fact = view(d).get("memory.gpu_utilization")
        if fact is None or not isinstance(fact.value, int | float) or isinstance(fact.value, bool):
            return None
        values[id(d)] = float(fact.value)
    others = [d for d in together if d is not member]
    if not any(exclusive(a, b) for a in others for b in others):
        return round(sum(values.values()), 4), len(together)  # no alternatives among them: all run together
    if len(others) > 12:
        return None  # too many alternatives to weigh: the total stays unknown rather than guessed
    best: tuple[float, int] | None = None
    for mask in range(1 << len(others)):
        chosen = [member] + [d for i, d in enumerate(others) if mask >> i & 1]
        if any(exclusive(a, b) for a in chosen for b in chosen):
            continue
        candidate = (round(sum(values[id(d)] for d in chosen), 4), len(chosen))
        if best is None or candidate > best:
            best = candidate
    return best


def engine_of(deployment: Deployment, registry: Registry | None = None) -> Engine | None:
    """The deployment's engine in ``registry`` (default: the engines relialint ships); ``None`` for none."""
    from relialint.engines.registry import default_registry

    return (registry if registry is not None else default_registry()).get(deployment.engine)


def finish(deployment: Deployment, registry: Registry | None = None) -> None:
    """Snapshot the facts the deployment states (the version worlds are built from them), then let its engine
    (from ``registry``, default: the engines relialint ships) check its options against the final version and
    apply its defaults."""
    deployment.unfinished = deployment.facts.copy()
    engine = engine_of(deployment, registry)
    if engine is not None:
        engine.finish(deployment)
