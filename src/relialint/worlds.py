"""Possible worlds: the GPUs and engine versions a deployment can run on, given everything its files say.

Kleene logic treats every unknown fact as independent, but a GPU's vendor, compute capability and FP8/FP4 support
come together from one catalogue row, and an engine version fixes at once which options exist and every default.
This module enumerates the worlds the evidence allows (``../shared/design/possible-worlds.md``):

* **GPU worlds**: the catalogue rows that agree with the known ``gpu.*`` facts, plus one "GPU the catalogue does
  not know" in which the unknown GPU facts stay unknown;
* **version worlds**: the released versions of the engine's option tables that accept every option the deployment
  passes (a version that lacks one would refuse to start) and satisfy a stated version range, plus one world older
  and one newer than the tables, in which version-derived facts stay unknown. Derived facts (the engine's defaults)
  are computed inside each world.

A trigger is *definite* when it holds in every world, *absent* when in none, *possible* otherwise. To stay fast a
trigger is first evaluated with Kleene logic (false there is false in every world, true is true in every world),
and only the facts it reads split the worlds into classes, so a trigger sees a handful of classes, not every row
and version.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from relialint.evaluate import FactView, Verdict, eval_trigger
from relialint.facts import Fact, FactSet, Value, render
from relialint.versions import Version, VersionBound

ROW_KEYS = ("gpu.model", "gpu.vendor", "gpu.sm", "gpu.arch", "gpu.native_fp8", "gpu.native_fp4", "gpu.cc_capable",
            "gpu.memory_gb")
UNKNOWN_GPU = "a GPU the catalogue does not know"


class Overlay:
    """One world: ``top`` laid over a deployment's facts."""

    __slots__ = ("base", "top")

    def __init__(self, base: FactView, top: Mapping[str, Fact]) -> None:
        self.base = base
        self.top = top

    def get(self, key: str) -> Fact | None:
        fact = self.top.get(key)
        return fact if fact is not None else self.base.get(key)


@dataclass(frozen=True)
class GpuWorld:
    name: str
    facts: Mapping[str, Fact]


@dataclass(frozen=True)
class VersionWorld:
    label: str
    version: Version | VersionBound | None
    facts: FactView


@dataclass(frozen=True)
class Judgement:
    """A trigger's verdict over the worlds: ``value`` True (every world), False (none) or None (some)."""

    value: bool | None
    missing: frozenset[str] = frozenset()
    notes: tuple[str, ...] = ()


# -- GPU worlds -----------------------------------------------------------------------------------------------------


def _same(a: Value | None, b: Value | None) -> bool:
    if a is None or b is None:
        return a is b
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return a == b


@lru_cache(maxsize=1)
def _rows() -> tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]:
    from relialint import hardware

    return tuple((gpu.name, tuple(gpu.facts().items())) for gpu in hardware.catalogue())


def gpu_worlds(facts: FactView) -> list[GpuWorld] | None:
    """The GPUs consistent with what is known; ``None`` when the model is known (one world: the facts as they are)."""
    model = facts.get("gpu.model")
    if model is not None and model.value is not None:
        return None
    known = {k: f for k in ROW_KEYS if (f := facts.get(k)) is not None}
    worlds: list[GpuWorld] = []
    for name, items in _rows():
        row = dict(items)
        if any(k in row and not _same(row[k], f.value) for k, f in known.items()):
            continue
        worlds.append(GpuWorld(name, {k: Fact(v, "inferred", note=f"if the GPU is {name}")
                                      for k, v in row.items() if k not in known}))
    vendor = known.get("gpu.vendor")
    unset: dict[str, Fact] = {}
    if vendor is not None and vendor.value is not None:
        # The other vendors' identifiers are known to be unset, as for a catalogue row.
        if vendor.value != "nvidia" and "gpu.sm" not in known:
            unset["gpu.sm"] = Fact(None, "inferred")
        if vendor.value != "amd" and "gpu.arch" not in known:
            unset["gpu.arch"] = Fact(None, "inferred")
    worlds.append(GpuWorld(UNKNOWN_GPU, unset))
    return worlds


# -- version worlds -------------------------------------------------------------------------------------------------


def _accepted(check: Callable[[str, Version], bool], options: list[str], versions: list[Version]) -> list[Version]:
    """The versions that accept every option that some version accepts (an option no version has narrows nothing:
    it is a finding of its own)."""
    real = [o for o in options if any(check(o, v) for v in versions)]
    allowed = [v for v in versions if all(check(o, v) for o in real)]
    return allowed or versions


@lru_cache(maxsize=8192)
def _vllm_accepts(option: str, version: Version) -> bool:
    from relialint.engines import flagcheck

    return flagcheck.check_vllm_option(option, version).problem is None


def _in_range(spec: str | None, version: Version) -> bool:
    if not spec:
        return True
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        return SpecifierSet(spec).contains(version.text, prereleases=True)
    except InvalidSpecifier:
        return True


@dataclass(repr=False, eq=False)
class Worlds:
    """The worlds of one deployment, built on first use."""

    engine: str
    base: FactSet
    unfinished: FactSet | None
    options: list[str]
    defaults: Callable[[FactSet], None] | None
    _gpu: list[GpuWorld] | None = field(default=None)
    _gpu_done: bool = False
    _versions: list[VersionWorld] | None = None
    _versions_done: bool = False
    _varying: frozenset[str] = frozenset()

    def gpus(self) -> list[GpuWorld] | None:
        if not self._gpu_done:
            self._gpu, self._gpu_done = gpu_worlds(self.base), True
        return self._gpu

    def versions(self) -> list[VersionWorld] | None:
        if not self._versions_done:
            self._versions, self._versions_done = self._build_versions(), True
        return self._versions

    def varying(self) -> frozenset[str]:
        """Keys whose value differs between version worlds (with ``engine.version``)."""
        self.versions()
        return self._varying

    def _build_versions(self) -> list[VersionWorld] | None:
        known = self.base.get("engine.version")
        if known is not None and known.value is not None:
            return None
        if self.engine != "vllm" or self.unfinished is None or self.defaults is None:
            return None
        from relialint.engines import flagcheck

        table = flagcheck.vllm_table().parsed
        spec_fact = self.base.get("engine.version_range")
        spec = str(spec_fact.value) if spec_fact is not None and spec_fact.value is not None else None
        allowed = _accepted(_vllm_accepts, self.options, table)
        worlds: list[VersionWorld] = []
        older = self._bound(table[0], False, allowed, spec)
        if older is not None:
            worlds.append(older)
        carried = {k: f for k, f in self.base.facts.items() if k.startswith("args.")}
        for version in allowed:
            if not _in_range(spec, version):
                continue
            facts = self.unfinished.copy()
            facts.set("engine.version", Fact(version, "inferred", note="a possible world"))
            self.defaults(facts)
            for key, fact in carried.items():
                facts.facts.setdefault(key, fact)
            worlds.append(VersionWorld(str(version), version, facts))
        newer = self._bound(table[-1], True, allowed, spec)
        if newer is not None:
            worlds.append(newer)
        varying: set[str] = {"engine.version"}
        if worlds:
            keys = set().union(*(w.facts.facts for w in worlds if isinstance(w.facts, FactSet)))
            for key in keys:
                values = {_sig(w.facts.get(key)) for w in worlds}
                if len(values) > 1:
                    varying.add(key)
        self._varying = frozenset(varying)
        return worlds


    def _bound(self, edge: Version, above: bool, allowed: list[Version], spec: str | None) -> VersionWorld | None:
        """A release beyond the tables (older than the first, newer than the last), where the options and the
        stated range allow one; its version-derived facts stay unknown."""
        if edge not in allowed or (spec and not _in_range(spec, edge)):
            return None
        bound = VersionBound(edge, above)
        return VersionWorld(str(bound), bound, Overlay(self.base, {"engine.version": Fact(bound, "inferred")}))


def _sig(fact: Fact | None) -> str:
    if fact is None:
        return "?"
    return "unset" if fact.value is None else f"={render(fact.value)}"


# -- evaluation over the worlds -------------------------------------------------------------------------------------


def _walk_keys(pred: Any) -> Iterable[str]:
    if isinstance(pred, dict):
        if "fact" in pred:
            yield str(pred["fact"])
        for value in pred.values():
            yield from _walk_keys(value)
    elif isinstance(pred, list):
        for item in pred:
            yield from _walk_keys(item)


def keys_read(trigger: Mapping[str, Any]) -> frozenset[str]:
    """Every fact key a trigger reads (``engine.version`` too where it has affected ranges)."""
    keys = set(_walk_keys(trigger.get("when") or {}))
    if trigger.get("affected"):
        keys.update(("engine.name", "engine.version"))
    return frozenset(keys)


def judge(trigger: Mapping[str, Any], worlds: Worlds) -> Judgement:
    """The trigger over every world the evidence allows."""
    kleene = eval_trigger(trigger, worlds.base)
    if kleene.value is not None:
        return Judgement(kleene.value)
    keys = keys_read(trigger)
    gpu_keys = sorted(k for k in keys if k in ROW_KEYS)
    gpus = worlds.gpus() if gpu_keys else None
    versions = worlds.versions() if keys & worlds.varying() or "engine.version" in keys else None
    if gpus is None and versions is None:
        return Judgement(None, kleene.missing, kleene.notes)

    gpu_classes: dict[tuple[str, ...], tuple[Mapping[str, Fact], list[str]]] = {}
    for g in gpus or [GpuWorld("", {})]:
        view = Overlay(worlds.base, g.facts)
        sig = tuple(_sig(view.get(k)) for k in gpu_keys)
        gpu_classes.setdefault(sig, (g.facts, []))[1].append(g.name)
    version_classes: dict[tuple[str, ...], tuple[FactView, list[str]]] = {}
    for v in versions or [VersionWorld("", None, worlds.base)]:
        sig = tuple(_sig(v.facts.get(k)) for k in sorted(keys))
        version_classes.setdefault(sig, (v.facts, []))[1].append(v.label)

    results: list[tuple[list[str], list[str], Verdict]] = []
    for vfacts, vlabels in version_classes.values():
        for gfacts, gnames in gpu_classes.values():
            results.append((vlabels, gnames, eval_trigger(trigger, Overlay(vfacts, gfacts))))
    values = {r[2].value for r in results}
    if values == {True}:
        return Judgement(True)
    if values == {False}:
        return Judgement(False)
    missing: set[str] = set()
    notes: list[str] = []
    for _, _, verdict in results:
        if verdict.value is None:
            missing.update(verdict.missing)
    holds_gpu = list(dict.fromkeys(n for _, names, v in results if v.value is not False for n in names))
    if gpus is not None and len(gpu_classes) > 1 and _splits(results, by_gpu=True):
        missing.update(k for k in gpu_keys if len({sig[gpu_keys.index(k)] for sig in gpu_classes}) > 1)
        notes.append(_gpu_note(holds_gpu, len(gpus)))
    if versions is not None and len(version_classes) > 1 and _splits(results, by_gpu=False):
        missing.add("engine.version")
        holds = {label for labels, _, v in results if v.value is not False for label in labels}
        notes.append(_version_note(worlds.engine, [w for w in versions if w.label in holds], versions))
    return Judgement(None, frozenset(missing) or kleene.missing, tuple(notes) or kleene.notes)


def _splits(results: list[tuple[list[str], list[str], Verdict]], by_gpu: bool) -> bool:
    """Whether the verdict changes along the GPU (or the version) with the other held fixed."""
    groups: dict[str, set[bool | None]] = {}
    for vlabels, gnames, verdict in results:
        other = ",".join(vlabels if by_gpu else gnames)
        groups.setdefault(other, set()).add(verdict.value)
    return any(len(values) > 1 for values in groups.values())


def _gpu_note(holds: list[str], total: int) -> str:
    named = [n for n in holds if n != UNKNOWN_GPU]
    shown = ", ".join(named[:5]) + (f" and {len(named) - 5} more" if len(named) > 5 else "")
    if not named:
        return "only on a GPU the catalogue does not know"
    return f"holds on {len(named)} of the {total - 1} catalogue GPUs the file allows ({shown})"


def _version_note(engine: str, holds: list[VersionWorld], every: list[VersionWorld]) -> str:
    name = "vLLM" if engine == "vllm" else engine
    runs: list[tuple[str, str]] = []
    ordered = [w.label for w in every]
    inside = {w.label for w in holds}
    start: str | None = None
    prev: str | None = None
    for label in ordered:
        if label in inside:
            start = start or label
            prev = label
        elif start is not None and prev is not None:
            runs.append((start, prev))
            start = prev = None
    if start is not None and prev is not None:
        runs.append((start, prev))
    older, newer = (every[0].label, every[-1].label) if every else ("", "")

    def run_text(a: str, b: str) -> str:
        if isinstance(every[0].version, VersionBound) and a == older:
            a = "" if b != older else a
        if isinstance(every[-1].version, VersionBound) and b == newer:
            return f"{a} and later" if a else "every version"
        if not a:
            return f"up to {b}"
        return a if a == b else f"{a}-{b}"

    text = ", ".join(run_text(a, b) for a, b in runs)
    return f"only on {name} {text}" if text else f"on no tabled {name} version"
