"""Possible worlds: the GPUs and engine versions a deployment can run on, given everything its files say.

Kleene logic treats every unknown fact as independent, but a GPU's vendor, compute capability and FP8/FP4 support
come together from one catalogue row, and an engine version fixes at once which options exist and every default.
This module enumerates the worlds the evidence allows (``../shared/design/possible-worlds.md``):

* **GPU worlds**: the catalogue rows that agree with the known ``gpu.*`` facts, plus one "GPU the catalogue does
  not know" in which the unknown GPU facts stay unknown; where the file names the rows (``gpu.candidates``: a node
  affinity list, a MIG profile, a Jetson L4T release), those rows only;
* **backend worlds**: an unknown ``engine.backend`` is any backend the stated ``gpu.vendor`` can run (CUDA needs
  NVIDIA, HIP AMD: ``backend_vendors`` of the catalogue); a record whose every named backend needs another vendor
  is judged on a backend it does not name (:func:`backend_ruled_out`);
* **version worlds**: the released versions of the engine's option tables that accept every option the deployment
  passes (a version that lacks one would refuse to start) and satisfy a stated version range, plus one world older
  and one newer than the tables, in which version-derived facts stay unknown. Derived facts (the engine's defaults)
  are computed inside each world, and so are the facts an engine derives per version for one located instance
  (``FactSet.by_version``: this version refuses this option), whose instance also leaves its own option out of the
  narrowing. The engine (:class:`WorldsEngine`) is passed in: this module never imports ``engines``.

A trigger is *definite* when it holds in every world, *absent* when in none, *possible* otherwise. To stay fast a
trigger is first evaluated with Kleene logic (false there is false in every world, true is true in every world),
and only the facts it reads split the worlds into classes, so a trigger sees a handful of classes, not every row
and version.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from relialint.core.evaluate import Verdict, eval_leaf, eval_trigger
from relialint.core.evaluator import Evaluator
from relialint.core.facts import PER_VERSION, Fact, FactSet, Value, render
from relialint.core.triggers import Leaf, Trigger
from relialint.core.versions import Version, VersionBound

if TYPE_CHECKING:
    from relialint.core.evaluate import FactView

ROW_KEYS = ("gpu.model", "gpu.vendor", "gpu.sm", "gpu.arch", "gpu.native_fp8", "gpu.native_fp4", "gpu.cc_capable",
            "gpu.memory_gb")
UNKNOWN_GPU = "a GPU the catalogue does not know"


class WorldsEngine(Protocol):
    """What the worlds need of an engine (``engines.protocol.Engine`` extends it; the worlds never import engines):
    its tabled versions and which of them a deployment allows, the defaults of a version and their classes."""

    name: str
    label: str
    """The engine's name in prose (``vLLM``), for the worlds' notes."""

    def tabled_versions(self) -> Sequence[Version]:
        """The versions its option tables describe, oldest first (empty: no version worlds)."""

    def allowed_versions(self, facts: FactView, options: Sequence[str], leave_out: str | None) -> list[Version]:
        """The tabled versions that accept ``options`` (but ``leave_out``) and the values ``facts`` write."""

    def version_class(self, version: Version) -> tuple[object, ...]:
        """A key equal for two versions that get the same defaults."""

    def version_defaults(self, facts: FactSet) -> None:
        """Apply the defaults of ``facts``' ``engine.version`` (the facts the file states win)."""

    def varying(self) -> frozenset[str]:
        """The keys a version world may change: the version and the defaults it decides."""


class Overlay:
    """One world: ``top`` laid over a deployment's facts."""

    __slots__ = ("base", "top")

    def __init__(self, base: FactView, top: Mapping[str, Fact | None]) -> None:
        self.base = base
        self.top = top

    def get(self, key: str) -> Fact | None:
        if key in self.top:
            return self.top[key]  # None: made unknown in this world
        return self.base.get(key)


# Plain classes, not dataclasses: creating a dataclass costs start-up time on every run (issue 18).


class GpuWorld:
    """One GPU of the catalogue (or the one it does not know) and the facts it sets."""

    __slots__ = ("facts", "name")

    def __init__(self, name: str, facts: Mapping[str, Fact]) -> None:
        self.name = name
        self.facts = facts


class VersionWorld:
    """One release (or one beyond the tables) and the facts in force there. Worlds of one ``group`` share every
    fact but the version (the engine's defaults are the same)."""

    __slots__ = ("facts", "group", "label", "top", "version")

    def __init__(self, label: str, version: Version | VersionBound | None, facts: FactView,
                 group: int = -1, top: Mapping[str, Fact | None] | None = None) -> None:
        self.label = label
        self.version = version
        self.facts = facts
        self.group = group
        self.top = top
        """A tabled version's own facts, laid over its defaults class in a deployment (``Worlds.world_facts``)."""


class Judgement:
    """A trigger's verdict over the worlds: ``value`` True (every world), False (none) or None (some)."""

    __slots__ = ("missing", "notes", "value")

    def __init__(self, value: bool | None, missing: frozenset[str] = frozenset(), notes: tuple[str, ...] = ()) -> None:
        self.value = value
        self.missing = missing
        self.notes = notes


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
    from relialint.core import hardware

    return tuple((gpu.name, tuple(gpu.facts().items())) for gpu in hardware.catalogue())


CANDIDATES = "gpu.candidates"
"""The catalogue rows the GPU is certainly one of (``|``-joined names), where the file names several (a node affinity
``In`` list, a MIG profile several GPUs have): the GPU worlds are those rows only."""


def known_gpu(facts: FactView) -> tuple[tuple[str, Value | None], ...]:
    """The GPU facts that are known, as a key: the GPU worlds depend on nothing else."""
    return tuple((k, f.value) for k in (*ROW_KEYS, CANDIDATES) if (f := facts.get(k)) is not None)


def gpu_key(facts: FactView) -> tuple[Any, ...]:
    """What the GPU worlds depend on: the known GPU facts, and whether the backend is the CPU."""
    backend = facts.get("engine.backend")
    return (backend is not None and backend.value == "cpu", known_gpu(facts))


def gpu_worlds(facts: FactView) -> list[GpuWorld] | None:
    """The GPUs consistent with what is known; ``None`` when the model is known (one world: the facts as they are).
    A deployment on the CPU backend has no GPU: one world in which every GPU fact is known to be unset."""
    model = facts.get("gpu.model")
    if model is not None and model.value is not None:
        return None
    cpu, known = gpu_key(facts)
    if cpu:
        return [GpuWorld("no GPU (CPU backend)", {k: Fact(None, "inferred", note="the CPU backend uses no GPU")
                                                  for k in ROW_KEYS if facts.get(k) is None})]
    return list(_gpu_worlds(known))


@lru_cache(maxsize=256)
def _gpu_worlds(known_items: tuple[tuple[str, Value | None], ...]) -> tuple[GpuWorld, ...]:
    known = dict(known_items)
    candidates = known.pop(CANDIDATES, None)
    among = {str(n).lower() for n in str(candidates).split("|")} if candidates is not None else None
    worlds: list[GpuWorld] = []
    for name, items in _rows():
        row = dict(items)
        if among is not None and name.lower() not in among:
            continue
        if any(k in row and not _same(row[k], value) for k, value in known.items()):
            continue
        worlds.append(GpuWorld(name, {k: Fact(v, "inferred", note=f"if the GPU is {name}")
                                      for k, v in row.items() if k not in known}))
    if among is not None and worlds:
        return tuple(worlds)  # the file names the rows: no GPU outside them
    vendor = known.get("gpu.vendor")
    unset: dict[str, Fact] = {}
    if "gpu.model" not in known:
        # whatever it is, it is none of the catalogue's GPUs: a record about one named GPU does not hold here
        unset["gpu.model"] = Fact(UNKNOWN_GPU, "inferred")
    if vendor is not None:
        # The other vendors' identifiers are known to be unset, as for a catalogue row.
        if vendor != "nvidia" and "gpu.sm" not in known:
            unset["gpu.sm"] = Fact(None, "inferred")
        if vendor != "amd" and "gpu.arch" not in known:
            unset["gpu.arch"] = Fact(None, "inferred")
        if vendor != "nvidia" and "gpu.cc_capable" not in known:
            unset["gpu.cc_capable"] = Fact(False, "inferred", note="Confidential Computing mode is NVIDIA's")
    worlds.append(GpuWorld(UNKNOWN_GPU, unset))
    return tuple(worlds)


# -- backend worlds -------------------------------------------------------------------------------------------------

OTHER_BACKEND = "a backend the record does not name"


def _backend_literals(trigger: Trigger) -> set[str] | None:
    """The backends the trigger's conditions on ``engine.backend`` name; ``None`` when one of them is not a plain
    comparison (a pattern), so that the backends it could mean are not known."""
    named: set[str] = set()
    for leaf in trigger.leaves:
        if leaf.key != "engine.backend":
            continue
        if leaf.op in ("eq", "ne"):
            named.add(str(leaf.operand).lower())
        elif leaf.op in ("in", "not_in"):
            named.update(str(item).lower() for item in leaf.operand)
        elif leaf.op != "present":
            return None
    return named


def backend_ruled_out(trigger: Trigger, base: FactView) -> FactView | None:
    """The backend worlds a stated GPU vendor leaves: where the backend is unknown but the vendor known, a backend
    that needs another vendor (``backend_vendors`` of the catalogue: CUDA needs NVIDIA, HIP AMD, Metal Apple) is no
    world. When that rules out every backend the trigger names, the deployment runs one the trigger does not name
    (Vulkan, SYCL, the CPU stay possible on any vendor): ``base`` with that backend known. ``None`` when nothing is
    ruled out, or some named backend is still possible (the worlds then stay as they are)."""
    if base.get("engine.backend") is not None:
        return None
    vendor = base.get("gpu.vendor")
    if vendor is None or vendor.value is None:
        return None
    named = _backend_literals(trigger)
    if not named:
        return None
    from relialint.core import hardware

    needs = hardware.backend_vendors()
    if any(needs.get(backend) in (None, str(vendor.value).lower()) for backend in named):
        return None
    ruled = ", ".join(sorted(named))
    return Overlay(base, {"engine.backend": Fact(OTHER_BACKEND, "inferred", vendor.path, vendor.line, vendor.column,
                                                 note=f"gpu.vendor={vendor.value} runs no {ruled} build")})


# -- version worlds -------------------------------------------------------------------------------------------------


def accepted_versions(engine: WorldsEngine, facts: FactView, options: Sequence[str], leave_out: str | None
                      ) -> list[Version]:
    """The tabled versions the engine says a deployment can run (every tabled version when it says none: options
    that no single version accepts together narrow nothing, they are findings of their own)."""
    return engine.allowed_versions(facts, options, leave_out) or list(engine.tabled_versions())


def _in_range(spec: str | None, version: Version) -> bool:
    if not spec:
        return True
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        return SpecifierSet(spec).contains(version.text, prereleases=True)
    except InvalidSpecifier:
        return True


class _Tabled:
    """The tabled versions a deployment allows, the same for every deployment that allows the same versions (kept,
    never written): each version's world without the deployment's facts (its ``facts`` are only the version that
    pins it), the defaults class of each (``groups``, numbered in order of first appearance) and the first version
    of each class, whose defaults stand for the class."""

    __slots__ = ("first", "labels", "worlds")

    def __init__(self, worlds: tuple[VersionWorld, ...], first: tuple[tuple[Version, tuple[object, ...]], ...]
                 ) -> None:
        self.worlds = worlds
        self.first = first
        self.labels = tuple(world.label for world in worlds)


@lru_cache(maxsize=64)
def _plan(allowed: tuple[Version, ...], spec: str | None,
          version_class: Callable[[Version], tuple[object, ...]] | None,
          derived: tuple[tuple[str, frozenset[Version]], ...] = ()) -> _Tabled:
    """The tabled versions in the stated range, grouped by defaults class and by the values of the facts derived
    per version (``derived``: each key with the versions in which it holds); two versions of one group have the
    same defaults and the same derived facts, so one stands for the group."""
    by_class: dict[tuple[object, ...], int] = {}
    worlds: list[VersionWorld] = []
    first: list[tuple[Version, tuple[object, ...]]] = []
    for version in allowed:
        if not _in_range(spec, version):
            continue
        defaults_cls = version_class(version) if version_class is not None else (version,)
        values = tuple(version in holds for _, holds in derived)
        cls = (defaults_cls, values)
        group = by_class.get(cls)
        if group is None:
            group = by_class[cls] = len(first)
            first.append((version, defaults_cls))
        top = {"engine.version": Fact(version, "inferred", note="a possible world")}
        for (key, _), value in zip(derived, values, strict=True):
            top[key] = Fact(value, "inferred", note=f"in {version.text}")
        worlds.append(VersionWorld(version.text, version, FactSet(top), group, top))
    return _Tabled(tuple(worlds), tuple(first))


class _VersionPlan:
    """The version worlds of one deployment before they are built: the worlds beyond the tables, the tabled
    versions, and the facts of each defaults class in this deployment."""

    __slots__ = ("class_facts", "newer", "older", "tabled")

    def __init__(self, older: VersionWorld | None, newer: VersionWorld | None, tabled: _Tabled,
                 class_facts: list[FactView]) -> None:
        self.older = older
        self.newer = newer
        self.tabled = tabled
        self.class_facts = class_facts


class Worlds:
    """The worlds of one deployment, built on first use. ``engine`` (``None``: no engine, no version worlds) says
    which versions it tables, which a deployment allows and their defaults; ``options``: what the deployment
    writes on its command line (narrowing the versions)."""

    def __init__(self, engine: WorldsEngine | None, base: FactSet, unfinished: FactSet | None,
                 options: Sequence[str], evaluator: Evaluator | None = None) -> None:
        self.model = engine
        self.engine = engine.name if engine is not None else ""
        self.label = engine.label if engine is not None else ""
        self.seen = (evaluator or Evaluator()).defaults_seen
        """What the engines' defaults changed per engine and version class, kept by the run's evaluator."""
        self.base = base
        self.unfinished = unfinished
        self.options = options
        self._gpu: list[GpuWorld] | None = None
        self._gpu_done = False
        self._versions: list[VersionWorld] | None = None
        self._versions_done = False
        self._plan: _VersionPlan | None = None
        self._plan_done = False
        self.classes: dict[tuple[Any, ...], Any] = {}
        """Worlds grouped by what one trigger reads, kept for the next trigger that reads the same."""
        self._reads: dict[str, object] = {}
        self.version_key: tuple[Any, ...] = ()
        self._gpu_key: tuple[Any, ...] | None = None

    def gpu_signature(self) -> tuple[Any, ...]:
        """:func:`gpu_key` of the deployment's facts, computed once (every trigger's memo key holds it)."""
        if self._gpu_key is None:
            self._gpu_key = gpu_key(self.base)
        return self._gpu_key

    def gpus(self) -> list[GpuWorld] | None:
        if not self._gpu_done:
            self._gpu, self._gpu_done = gpu_worlds(self.base), True
        return self._gpu

    def versions(self) -> list[VersionWorld] | None:
        """The version worlds (``None``: the version is known, or the engine has no version tables)."""
        if not self._versions_done:
            self._versions, self._versions_done = self._build_versions(), True
        return self._versions

    def has_versions(self) -> bool:
        """Whether there are version worlds; sets :attr:`version_key` without building the worlds themselves (a
        judgement found in the memo needs only the key)."""
        if not self._plan_done:
            self._plan, self._plan_done = self._version_plan(), True
        return self._plan is not None

    def varying(self) -> frozenset[str]:
        """Keys whose value can differ between version worlds: the version, the defaults it decides and the facts
        derived per version (:attr:`FactSet.by_version`)."""
        own = self.model.varying() if self.model is not None else frozenset({"engine.version"})
        return own | self.base.by_version.keys() if self.base.by_version else own

    def _version_plan(self) -> _VersionPlan | None:
        known = self.base.get("engine.version")
        if known is not None and known.value is not None:
            return None
        engine = self.model
        if engine is None or self.unfinished is None:
            return None
        table = list(engine.tabled_versions())
        if not table:
            return None
        spec_fact = self.base.get("engine.version_range")
        spec = str(spec_fact.value) if spec_fact is not None and spec_fact.value is not None else None
        derived = tuple(sorted((key, spec_.holds) for key, spec_ in self.base.by_version.items()))
        leave_out = next((s.leave_out for s in self.base.by_version.values() if s.leave_out is not None), None)
        if leave_out is not None and spec is not None and any(
                s.options_range == spec for s in self.base.by_version.values()):
            spec = None  # the range the options gave counts the option left out: the others narrow by themselves
        allowed = accepted_versions(engine, self.base, self.options, leave_out)
        older = self._bound(table[0], False, allowed, spec)
        newer = self._bound(table[-1], True, allowed, spec)
        carried = {k: f for k, f in self.base.facts.items() if k.startswith("args.") or k in _DECIDED}
        tabled = _plan(tuple(allowed), spec, engine.version_class, derived)
        changes = [self._defaults_for(version, cls) for version, cls in tabled.first]
        class_facts: list[FactView] = [Overlay(self.unfinished, {**carried, **change}) for change in changes]
        labels = (*((older.label,) if older else ()), *tabled.labels, *((newer.label,) if newer else ()))
        # What the worlds are made of besides the deployment's own facts: equal for two deployments whose defaults
        # read the same values (the change dicts are shared then, and the key holds them) and whose derived facts
        # hold in the same versions.
        self.version_key = ((labels, derived) if derived else labels, tuple(map(id, changes)), tuple(changes))
        return _VersionPlan(older, newer, tabled, class_facts)

    def _build_versions(self) -> list[VersionWorld] | None:
        if not self.has_versions():
            return None
        plan = self._plan
        if plan is None:  # has_versions() said there is one
            return None
        return [*((plan.older,) if plan.older is not None else ()), *plan.tabled.worlds,
                *((plan.newer,) if plan.newer is not None else ())]

    def world_facts(self, world: VersionWorld) -> FactView:
        """The facts in force in one version world: a tabled version's own facts over its defaults class."""
        if world.top is None or self._plan is None:
            return world.facts
        return Overlay(self._plan.class_facts[world.group], world.top)

    def _defaults_for(self, version: Version, cls: tuple[object, ...]) -> dict[str, Fact | None]:
        """What the engine's defaults change for a version of class ``cls`` (``None``: made unknown). A deployment
        whose facts read by the defaults hold the same values as an earlier one's gets the same change: the
        defaults are a deterministic function of what they read."""
        if self.unfinished is None or self.model is None:
            return {}  # no version plan is made without them (_version_plan)
        bucket = self.seen.setdefault((self.engine, cls), [])
        memo = self._reads
        for reads, closed, known in bucket:
            if closed != self.unfinished.closed:
                continue
            for r, v in reads:
                value = memo.get(r, memo)
                if value is memo:
                    value = memo[r] = _read(self.unfinished, r)
                if value != v:
                    break
            else:
                return known
        facts = _Recording(dict(self.unfinished.facts), set(self.unfinished.closed), set(self.unfinished.blocked))
        facts.set("engine.version", Fact(version, "inferred", note="a possible world"))
        facts.reads.clear()
        self.model.version_defaults(facts)
        change: dict[str, Fact | None] = {k: f for k, f in facts.facts.items()
                                          if self.unfinished.facts.get(k) is not f and k != "engine.version"}
        change.update({k: None for k in facts.blocked - self.unfinished.blocked})
        seen = tuple((r, _read(self.unfinished, r)) for r in dict.fromkeys(facts.reads))
        if len(bucket) > 256:
            bucket.clear()
        bucket.append((seen, frozenset(self.unfinished.closed), change))
        return change

    def _bound(self, edge: Version, above: bool, allowed: list[Version], spec: str | None) -> VersionWorld | None:
        """A release beyond the tables (older than the first, newer than the last), where the options and the
        stated range allow one; its version-derived facts stay unknown, but for what the engine says of them
        beyond the tables (:class:`ByVersion` ``older`` / ``newer``)."""
        if edge not in allowed or (spec and not _in_range(spec, edge)):
            return None
        bound = VersionBound(edge, above)
        top = {"engine.version": Fact(bound, "inferred")}
        for key, derived in self.base.by_version.items():
            value = derived.newer if above else derived.older
            if value is not None:
                top[key] = Fact(value, "inferred", note=f"in a release {bound}")
        return VersionWorld(str(bound), bound, Overlay(self.base, top))


_DECIDED = frozenset(PER_VERSION.values())
"""The located instance facts that facts derived per version decide (``llama.unknown_option``): set by the
engine's finish, after the snapshot the version worlds are built from, so carried into them like ``args.*``."""


class _Recording(FactSet):
    """A fact set that notes every key read, to know what the engine's defaults depended on."""

    def __init__(self, facts: dict[str, Fact], closed: set[str], blocked: set[str]) -> None:
        super().__init__(facts, closed, blocked)
        self.reads: list[str] = []

    def get(self, key: str) -> Fact | None:
        self.reads.append(key)
        return super().get(key)

    def settled(self, key: str) -> bool:
        self.reads.append("?" + key)
        return super().settled(key)


def _read(facts: FactSet, read: str) -> object:
    if read.startswith("?"):
        return facts.settled(read[1:])
    fact = facts.get(read)
    return ("unknown",) if fact is None else ("value", fact.value)


def _sig(fact: Fact | None) -> str:
    if fact is None:
        return "?"
    return "unset" if fact.value is None else f"={render(fact.value)}"


# -- evaluation over the worlds -------------------------------------------------------------------------------------


@lru_cache(maxsize=8192)
def _order_sig(version: Version | VersionBound | None, literal: Version) -> str:
    if version is None:
        return "?"
    if isinstance(version, VersionBound):
        order = version.order(literal)
    elif not version.comparable(literal):
        return "x"
    else:
        order = -1 if version < literal else (1 if literal < version else 0)
    return "?" if order is None else str(order)


def judge(trigger: Trigger | Mapping[str, Any], worlds: Worlds, evaluator: Evaluator | None = None) -> Judgement:
    """The trigger over every world the evidence allows. ``evaluator``: the run's memo (a fresh one, kept for this
    call only, when none is given)."""
    memo_of = evaluator if evaluator is not None else Evaluator()
    shape = memo_of.compile(trigger)
    kleene = eval_trigger(shape, worlds.base)
    if kleene.value is not None:
        return Judgement(kleene.value)
    ruled = backend_ruled_out(shape, worlds.base)
    if ruled is not None:
        narrowed = eval_trigger(shape, ruled)
        if narrowed.value is not None:
            return Judgement(narrowed.value)
    keys = shape.keys
    open_keys = {k for k in keys if worlds.base.get(k) is None}  # only what is unknown can split the worlds
    gpu_keys = sorted(k for k in open_keys if k in ROW_KEYS)
    gpus = worlds.gpus() if gpu_keys else None
    by_version = bool(open_keys & worlds.varying()) and worlds.has_versions()
    if gpus is None and not by_version:
        return Judgement(None, kleene.missing, kleene.notes)
    # The same trigger over the same facts and the same worlds is the same judgement (a tree of similar files). The
    # key holds the compiled trigger itself; the entry holds the worlds' version key, whose change dicts the key
    # names by id (so that no other dict takes their ids while the entry lives).
    ordered = shape.ordered_keys
    memo_key = (shape, worlds.engine, tuple(_sig(worlds.base.get(k)) for k in ordered),
                worlds.gpu_signature() if gpus is not None else None,
                (worlds.version_key[:2], tuple(_sig(worlds.unfinished.get(k)) for k in ordered))
                if by_version and worlds.unfinished is not None else None)
    memo: tuple[Any, Judgement] | None = memo_of.judged.get(memo_key)
    if memo is not None:
        return memo[1]
    versions = worlds.versions() if by_version else None
    judged = _judge_worlds(shape, worlds, memo_of, kleene, open_keys, gpu_keys, gpus, versions)
    memo_of.remember(memo_of.judged, memo_key, (worlds.version_key, judged))
    return judged


def _judge_worlds(trigger: Trigger, worlds: Worlds, evaluator: Evaluator, kleene: Verdict, open_keys: set[str],
                  gpu_keys: list[str], gpus: list[GpuWorld] | None, versions: list[VersionWorld] | None
                  ) -> Judgement:
    leaves = trigger.leaves
    literals = trigger.literals if versions is not None else ()
    other = tuple(leaf for leaf in leaves if leaf.key in open_keys and leaf.key != "engine.version") \
        if versions is not None else ()
    gpu_leaves = tuple(leaf for leaf in leaves if leaf.key in gpu_keys)
    gpu_classes = _gpu_classes(worlds, evaluator, gpus, gpu_leaves)
    version_classes = _version_classes(worlds, evaluator, versions, literals, other)

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
        missing.update(leaf.key for i, leaf in enumerate(gpu_leaves)
                       if len({sig[i] for sig in gpu_classes}) > 1)
        notes.append(_gpu_note(holds_gpu, len(gpus)))
    if versions is not None and len(version_classes) > 1 and _splits(results, by_gpu=False):
        missing.add("engine.version")
        holds = {label for labels, _, v in results if v.value is True for label in labels}
        unsure = {label for labels, _, v in results if v.value is None for label in labels} - holds
        notes.append(_version_note(worlds.label, holds, unsure, versions))
    return Judgement(None, frozenset(missing) or kleene.missing, tuple(notes) or kleene.notes)


def _leaf_sig(leaves: tuple[Leaf, ...], view: FactView) -> tuple[bool | None, ...]:
    return tuple(eval_leaf(leaf, view).value for leaf in leaves)


def _gpu_classes(worlds: Worlds, evaluator: Evaluator, gpus: list[GpuWorld] | None, leaves: tuple[Leaf, ...]
                 ) -> dict[tuple[bool | None, ...], tuple[Mapping[str, Fact], list[str]]]:
    """The GPU worlds grouped by how the trigger's GPU conditions come out: rows that answer every one of them
    alike are one class, since the trigger cannot tell them apart."""
    # The GPU worlds and the GPU conditions depend only on the known GPU facts: shared by every deployment of the
    # run. The key holds the compiled conditions themselves.
    key = (worlds.gpu_signature(), leaves)
    found: dict[tuple[bool | None, ...], tuple[Mapping[str, Fact], list[str]]] | None = \
        evaluator.gpu_classes.get(key)
    if found is None:
        found = {}
        for g in gpus or [GpuWorld("", {})]:
            sig = _leaf_sig(leaves, Overlay(worlds.base, g.facts))
            found.setdefault(sig, (g.facts, []))[1].append(g.name)
        evaluator.remember(evaluator.gpu_classes, key, found, evaluator.small())
    return found


def _version_classes(worlds: Worlds, evaluator: Evaluator, versions: list[VersionWorld] | None,
                     literals: tuple[Version, ...], leaves: tuple[Leaf, ...]
                     ) -> dict[tuple[object, ...], tuple[FactView, list[str]]]:
    """The version worlds grouped: versions that compare alike with every version the trigger names and answer
    its other version-dependent conditions alike are one class."""
    key = ("version", literals, leaves)
    found: dict[tuple[object, ...], tuple[FactView, list[str]]] | None = worlds.classes.get(key)
    if found is None:
        found = worlds.classes[key] = {}
        by_group: dict[int, tuple[bool | None, ...]] = {}
        listed = versions or [VersionWorld("", None, worlds.base)]
        orders = _orders(evaluator, listed, worlds.version_key[0] if versions else None, literals)
        for v, order in zip(listed, orders, strict=True):
            rest = by_group.get(v.group) if v.group >= 0 else None
            facts: FactView | None = None
            if rest is None:
                facts = worlds.world_facts(v)
                rest = _leaf_sig(leaves, facts)
                if v.group >= 0:
                    by_group[v.group] = rest
            entry = found.get((*order, *rest))
            if entry is None:
                entry = found[(*order, *rest)] = (facts or worlds.world_facts(v), [])
            entry[1].append(v.label)
    return found


def _orders(evaluator: Evaluator, versions: list[VersionWorld], labels: tuple[str, ...] | None,
            literals: tuple[Version, ...]) -> list[tuple[str, ...]]:
    """How each world's version compares with each literal; the same for every deployment with the same worlds
    (the labels name them), so kept. ``labels`` ``None``: the one world of a known version, not kept."""
    key = (labels, literals) if labels is not None else None
    found = evaluator.orders.get(key) if key is not None else None
    if found is None:
        found = [tuple(_order_sig(v.version, lit) for lit in literals) for v in versions]
        if key is not None:
            evaluator.remember(evaluator.orders, key, found, evaluator.small())
    return found


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


def _version_note(name: str, holds: set[str], unsure: set[str], every: list[VersionWorld]) -> str:
    """Where the trigger holds over the version worlds, and where the record cannot tell (``name``: the engine's
    label)."""
    parts = []
    if holds:
        parts.append(f"holds on {name} {_runs(holds, every)}")
    if unsure:
        parts.append(f"unknown on {_runs(unsure, every)}" if holds else f"unknown on {name} {_runs(unsure, every)}")
    return "; ".join(parts)


def _runs(inside: set[str], every: list[VersionWorld]) -> str:
    """Version labels as runs in release order (``0.7.0-0.7.3, 0.24.0 and later``)."""
    runs: list[tuple[str, str]] = []
    start: str | None = None
    prev: str | None = None
    for world in every:
        if world.label in inside:
            start = start or world.label
            prev = world.label
        elif start is not None and prev is not None:
            runs.append((start, prev))
            start = prev = None
    if start is not None and prev is not None:
        runs.append((start, prev))
    older, newer = every[0].label, every[-1].label

    def run_text(a: str, b: str) -> str:
        if a == b:
            return a  # one release, or one of the worlds beyond the tables ("newer than 0.33.0")
        if isinstance(every[0].version, VersionBound) and a == older:
            a = ""
        if isinstance(every[-1].version, VersionBound) and b == newer:
            return f"{a} and later" if a else "every version"
        if not a:
            return f"up to {b}"
        return a if a == b else f"{a}-{b}"

    return ", ".join(run_text(a, b) for a, b in runs)
