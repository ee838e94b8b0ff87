"""The catalogue's "my setup" view: which records apply to an engine, a version and a GPU, decided at build time.

Each record's trigger is evaluated by the linter itself (:func:`relialint.core.findings.evaluate`) over a deployment
that states only which engine runs, with the target facts ``--gpu NAME`` and ``--engine-version V`` give
(:func:`relialint.run.targets.target_facts`, :func:`relialint.run.targets.apply_target`). Everything the configuration
would say (flags, model, env) stays unknown, so a record that also needs a flag is *possible*, and says which
facts decide it. A benchmark command is not a serving setup: ``bench.`` facts are known to be unset, as the linter
has them for every serving deployment.

A trigger compares the version only with the versions it names (its leaves and affected ranges), so versions that
compare alike with every one of them get the same verdict: each record is evaluated once per class of versions and
once per class of GPUs that agree on every ``gpu.*`` fact it reads, not once per pair.

The page (``docs/setup.md``) and its data file (``docs/data/setup.json``) are generated; the page's script only
looks verdicts up in the file (``docs/javascripts/setup.js``). The hardware reference lists each GPU's records from
the same verdicts, and the search indexes a record under the GPUs its trigger holds on (``site_search``).
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from relialint.core.hardware import Gpu

if TYPE_CHECKING:
    from relialint.engines.protocol import Engine
from relialint.core.versions import Version, VersionBound

SETUP_PAGE = "setup.md"
SETUP_DATA = "data/setup.json"
NOT_SURE = ""
"""The value of the "not sure" choice of a version or a GPU: that fact stays unknown."""
SETUP_PATH = "(my setup)"
"""The path of the deployment the view evaluates (it is never shown)."""
NEWEST = 10**9
"""The upper end of the build numbers of the newest choice of an engine numbered by builds."""

if TYPE_CHECKING:
    from relialint.core.evaluator import Evaluator


# -- the choices -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class VersionChoice:
    """One entry of the version list: a release, a run of builds, a version beyond the known ones, or not sure."""

    value: str
    label: str
    version: Version | VersionBound | None
    builds: tuple[int, int] | None = None
    """An engine numbered by builds (llama.cpp): the build numbers the entry stands for, so that
    ``?version=b7000`` finds its entry."""


def engine_names() -> tuple[str, ...]:
    """The engines of the view: those relialint ships that have versions."""
    from relialint.engines.registry import default_registry

    return tuple(engine.name for engine in default_registry().versioned())


def _engine(name: str) -> Engine:
    from relialint.engines.registry import default_registry

    engine = default_registry().get(name)
    if engine is None:
        raise ValueError(f"no engine {name!r} in the registry")
    return engine


def _literals(engine: str, records: Iterable[Mapping[str, Any]]) -> list[Version]:
    """The versions of ``engine`` that some record's trigger names."""
    from relialint.core.triggers import of

    model = _engine(engine)
    out: set[Version] = set()
    for record in records:
        trigger = of(record)
        if trigger is None or (record.get("engines") and engine not in record["engines"]):
            continue
        for literal in trigger.literals:
            fitted = model.own_version(literal)
            if fitted is not None and fitted.scheme == model.scheme:
                out.add(fitted)
    return sorted(out)


def version_choices(engine: str, records: Sequence[Mapping[str, Any]]) -> list[VersionChoice]:
    """The versions to choose from: "not sure", then every tabled release and every version a record names, in
    order, with one entry below and one above them. llama.cpp builds between two named builds are one entry (every
    build in the run compares alike with every version a record names)."""
    from relialint.core.versions import parse_version

    choices = [VersionChoice(NOT_SURE, "not sure", None)]
    model = _engine(engine)
    if model.scheme != "build":
        points = sorted(set(model.choice_points()) | set(_literals(engine, records)))
        if not points:  # no tables yet and no record names a version: only "not sure" can be said
            return choices
        choices.append(VersionChoice(f"<{points[0]}", f"older than {points[0]}", VersionBound(points[0], False)))
        choices += [VersionChoice(v.text, v.text, v) for v in points]
        choices.append(VersionChoice(f">{points[-1]}", f"newer than {points[-1]}", VersionBound(points[-1], True)))
        return choices
    # build numbers: the builds between two named ones are one entry
    tabled = {int(str(v.key[0])) for v in model.choice_points()}
    numbers = sorted(tabled | {int(str(v.key[0])) for v in _literals(engine, records)})
    if not numbers:
        return choices
    first, last = numbers[0], numbers[-1]
    choices.append(VersionChoice(f"<b{first}", f"older than b{first}", VersionBound(parse_version(f"b{first}"), False),
                                 (0, first - 1)))
    for i, number in enumerate(numbers):
        choices.append(VersionChoice(f"b{number}", f"b{number}", parse_version(f"b{number}"), (number, number)))
        following = numbers[i + 1] if i + 1 < len(numbers) else None
        if following is not None and following - number > 1:
            lo, hi = number + 1, following - 1
            label = f"b{lo}" if lo == hi else f"b{lo} to b{hi}"
            choices.append(VersionChoice(f"b{lo}-b{hi}", label, parse_version(f"b{lo}"), (lo, hi)))
    choices.append(VersionChoice(f">b{last}", f"newer than b{last}", VersionBound(parse_version(f"b{last}"), True),
                                 (last + 1, NEWEST)))
    return choices


def gpu_choices() -> list[Gpu | None]:
    """``None`` ("not sure"), then every GPU of the hardware catalogue."""
    from relialint.core.hardware import catalogue

    return [None, *catalogue()]


# -- one verdict -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """A record on one setup: ``definite`` or ``possible``, and the facts that would decide a possible one."""

    certainty: str
    missing: tuple[str, ...] = ()

    def gpu_decides(self) -> bool:
        """Whether the GPU's facts leave it open (a catalogue row that does not know the GPU's FP4 support)."""
        from relialint.core.worlds import ROW_KEYS

        return any(m in ROW_KEYS for m in self.missing)


def setup_deployment(engine: str, gpu: Gpu | None, version: Version | VersionBound | None) -> Any:
    """A deployment of ``engine`` that says nothing else, with the GPU and the version given as the linter's
    ``--gpu`` and ``--engine-version`` give them (a version beyond the known ones as the linter's own worlds do)."""
    from relialint.core.deployment import Deployment
    from relialint.core.facts import Fact
    from relialint.core.results import Target
    from relialint.readers.located import Span
    from relialint.run.targets import apply_target, target_facts

    deployment = Deployment(engine, "setup", Span(SETUP_PATH, 1, 1, 1, 1))
    deployment.facts.set("engine.name", Fact(engine, "inferred"))
    deployment.facts.closed.add("bench.")
    text = version.text if isinstance(version, Version) else None
    apply_target(deployment, target_facts(Target(gpu=gpu.name if gpu else None, engine_version=text)), [])
    if isinstance(version, VersionBound):
        deployment.facts.set("engine.version", Fact(version, "inferred", note="a version beyond the known ones"))
    return deployment


def verdict(record: Mapping[str, Any], engine: str, gpu: Gpu | None,
            version: Version | VersionBound | None, evaluator: Evaluator | None = None) -> Verdict | None:
    """The linter's verdict on ``record`` for the setup; ``None`` where it does not apply. ``evaluator``: the memo
    shared by the setups of one record (its trigger compiled once)."""
    from relialint.core.findings import evaluate
    from relialint.engines.registry import default_registry

    found = evaluate(setup_deployment(engine, gpu, version), [dict(record)], default_registry().get(engine),
                     evaluator)
    if not found:
        return None
    if any(f.certainty == "definite" for f in found):
        return Verdict("definite")
    return Verdict("possible", tuple(sorted({m for f in found for m in f.missing_facts})))


# -- every setup, by classes -----------------------------------------------------------------------------------------


def _gpu_key(gpu: Gpu | None, keys: Sequence[str]) -> object:
    if gpu is None:
        return None
    facts = gpu.facts()
    return tuple((k, str(facts[k]) if k in facts else "?") for k in keys)


@dataclass
class RecordSetups:
    """One record's verdict on every setup: ``cells[engine][g][v]`` for GPU choice ``g`` and version choice ``v``
    (``None``: does not apply)."""

    record: Mapping[str, Any]
    cells: dict[str, list[list[Verdict | None]]] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return str(self.record["id"])

    def engines(self) -> list[str]:
        return list(self.cells)

    def applies(self) -> bool:
        return any(c is not None for rows in self.cells.values() for row in rows for c in row)

    def by_gpu(self, engine: str) -> bool:
        """Whether the GPU changes the verdict for some version (the "not sure" GPU left aside)."""
        rows = self.cells.get(engine) or []
        return any(len({_cell_key(row[v]) for row in rows[1:]}) > 1 for v in range(len(rows[0]) if rows else 0))

    def by_version(self, engine: str) -> bool:
        """Whether the version changes the verdict for some GPU (the "not sure" version left aside)."""
        return any(len({_cell_key(c) for c in row[1:]}) > 1 for row in self.cells.get(engine) or [])

    def gpus(self, gpus: Sequence[Gpu | None]) -> dict[str, bool]:
        """The catalogue GPUs this record is about: it applies on them for some engine and version, and not on some
        other GPU. ``True``: the GPU's facts satisfy the trigger's GPU conditions; ``False``: its catalogue row
        leaves one of them open (the record is possible there because of the GPU)."""
        out: dict[str, bool] = {}
        for engine, rows in self.cells.items():
            if not self.by_gpu(engine):
                continue
            for g, row in enumerate(rows):
                gpu = gpus[g]
                if gpu is None:
                    continue
                applying = [c for c in row if c is not None]
                if applying:
                    out[gpu.name] = out.get(gpu.name, False) or any(not c.gpu_decides() for c in applying)
        return out


def _cell_key(cell: Verdict | None) -> object:
    return None if cell is None else (cell.certainty, cell.missing)


def record_setups(record: Mapping[str, Any], gpus: Sequence[Gpu | None],
                  versions: Mapping[str, Sequence[VersionChoice]]) -> RecordSetups:
    """The record's verdict for every engine, GPU choice and version choice, evaluating one setup per class."""
    from relialint.core.evaluator import Evaluator
    from relialint.site.setup_launch import BACKEND_FACTS, version_order

    out = RecordSetups(record)
    evaluator = Evaluator()
    trigger = evaluator.trigger(record)
    if trigger is None or record.get("status") == "withdrawn":
        return out
    # the GPU facts the verdict can turn on: those the trigger reads, and the vendor wherever it reads the backend
    # or FlashInfer (a known vendor rules out the other vendors' backends in the worlds, and FlashInfer off CUDA)
    keys = sorted({k for k in trigger.keys if k.startswith("gpu.")}
                  | ({"gpu.vendor"} if BACKEND_FACTS & set(trigger.keys) else set()))
    engines = [e for e in engine_names() if not record.get("engines") or e in record["engines"]]
    for engine in engines:
        model = _engine(engine)
        literals = [f for f in (model.own_version(v) for v in trigger.literals) if f is not None]
        vkeys = [tuple(version_order(c.version, lit) for lit in literals) if c.version is not None else None
                 for c in versions[engine]]
        memo: dict[tuple[object, object], Verdict | None] = {}
        grid: list[list[Verdict | None]] = []
        for gpu in gpus:
            gkey = _gpu_key(gpu, keys)
            row: list[Verdict | None] = []
            for choice, vkey in zip(versions[engine], vkeys, strict=True):
                key = (gkey, vkey)
                if key not in memo:
                    memo[key] = verdict(record, engine, gpu, choice.version, evaluator)
                row.append(memo[key])
            grid.append(row)
        out.cells[engine] = grid
    return out


@lru_cache(maxsize=1024)
def _cached(record_json: str) -> RecordSetups:
    record = json.loads(record_json)
    versions = {e: version_choices(e, [record]) for e in engine_names()}
    return record_setups(record, gpu_choices(), versions)


def record_gpus(record: Mapping[str, Any]) -> dict[str, bool]:
    """The catalogue GPUs a record is about (:meth:`RecordSetups.gpus`), for one record on its own."""
    return _cached(json.dumps(record, sort_keys=True, default=str)).gpus(gpu_choices())


# -- the data file and the page --------------------------------------------------------------------------------------


def _kind(record: Mapping[str, Any]) -> str:
    if record.get("trigger"):
        return "trigger"
    return "runtime" if record.get("runtime_trigger") else "knowledge"


def _rows(grid: Sequence[Sequence[Any]], engine: str, depends: dict[str, int]) -> list[list[Any]]:
    """One grid (GPU choice x version choice) as groups of GPU choices that share their runs of version choices:
    ``[[gpu indexes], [[first, last, outcome, depends index], ...]]``."""
    from relialint.site.setup_launch import deciding

    groups: dict[tuple[object, ...], list[int]] = {}
    runs_of: dict[tuple[object, ...], list[list[Any]]] = {}
    for g, row in enumerate(grid):
        runs: list[list[Any]] = []
        for v, cell in enumerate(row):
            if cell is None:
                continue
            code = "d" if cell.certainty == "definite" else "p"
            dep = depends.setdefault(deciding(engine, cell.missing), len(depends)) if cell.missing else -1
            if runs and runs[-1][1] == v - 1 and runs[-1][2:] == [code, dep]:
                runs[-1][1] = v
            else:
                runs.append([v, v, code, dep])
        key = tuple(tuple(r) for r in runs)
        groups.setdefault(key, []).append(g)
        runs_of[key] = runs
    return [[members, runs_of[key]] for key, members in groups.items() if runs_of[key]]


def _cells(grids: Mapping[tuple[int, int], Any], backends: int, oses: int, reads_os: bool, engine: str,
           depends: dict[str, int]) -> list[list[Any]]:
    """One engine's verdicts as ``[[backend indexes or null (any), OS indexes or null (any), rows], ...]``: the
    backend and OS choices that share their rows, grouped (most records read neither: one group)."""
    import json as _json

    by_rows: dict[str, tuple[list[Any], list[tuple[int, int]]]] = {}
    for (b, o), grid in grids.items():
        rows = _rows(grid, engine, depends)
        if rows:
            by_rows.setdefault(_json.dumps(rows), (rows, []))[1].append((b, o))
    out: list[list[Any]] = []
    every_b, every_o = set(range(backends)), set(range(oses)) if reads_os else {0}
    for rows, combos in by_rows.values():
        bs, os_ = sorted({b for b, _ in combos}), sorted({o for _, o in combos})
        if len(combos) == len(bs) * len(os_):  # a product: one group
            out.append([None if set(bs) == every_b else bs, None if set(os_) == every_o else os_, rows])
            continue
        for b in bs:
            mine = sorted(o for bb, o in combos if bb == b)
            out.append([[b], None if set(mine) == every_o else mine, rows])
    return out


def setup_data(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The view's data file: the choices (engines with their default launch, versions and backends; GPUs; OSes),
    and per record and engine the linter's verdicts on the engine's default launch
    (:func:`relialint.site.setup_launch.launch_setups`), as runs of version choices for groups of GPU choices,
    per group of backend and OS choices. Outcomes: ``d`` definite, ``p`` possible (with the index in ``depends``
    of what the user would set to decide it); a setup a record is not reported on is left out."""
    from relialint.site.setup_launch import (
        BACKEND_LABELS,
        OS_CHOICES,
        LaunchLinter,
        backend_choices,
        launch_setups,
        os_choices,
    )

    gpus = gpu_choices()
    versions = {e: version_choices(e, records) for e in engine_names()}
    linter = LaunchLinter()
    depends: dict[str, int] = {}
    out_records: list[dict[str, Any]] = []
    for record in sorted(records, key=lambda r: str(r["id"])):
        setups = launch_setups(record, gpus, {e: [c.version for c in versions[e]] for e in versions}, linter)
        entry: dict[str, Any] = {
            "id": record["id"], "title": " ".join(str(record["title"]).split()), "severity": record["severity"],
            "impact": record["impact"], "engines": list(record.get("engines") or []), "kind": _kind(record),
            "url": f"records/{record['id']}/",
        }
        if record.get("status") == "withdrawn":
            entry["withdrawn"] = True
        cells: dict[str, Any] = {}
        specific: dict[str, list[str]] = {}
        for engine, grids in setups.grids.items():
            groups = _cells(grids, len(backend_choices(engine)), len(os_choices()), setups.reads_os, engine,
                            depends)
            if groups:
                cells[engine] = groups
                specific[engine] = setups.by(engine)
        entry["cells"] = cells
        entry["by"] = specific
        out_records.append(entry)
    return {
        "generator": "python -m relialint.site",
        "engines": [{"id": e, "label": _engine(e).label, "launch": _engine(e).default_launch,
                     "versions": [{"value": c.value, "label": c.label, **({"builds": list(c.builds)}
                                                                          if c.builds else {})}
                                  for c in versions[e]],
                     "backends": [{"value": NOT_SURE, "label": "not sure"}] + [
                         {"value": b, "label": BACKEND_LABELS.get(b, b)} for b in backend_choices(e) if b]}
                    for e in engine_names()],
        "gpus": [{"value": NOT_SURE, "label": "not sure"}] + [
            {"value": g.name, "label": g.name, "vendor": g.vendor, **({"family": g.family} if g.family else {}),
             "aliases": list(g.aliases)} for g in gpus if g is not None],
        "oses": [{"value": NOT_SURE, "label": "not sure"}] + [{"value": v, "label": label} for v, label in OS_CHOICES],
        "depends": list(depends),
        "records": out_records,
    }


def data_json(records: Sequence[Mapping[str, Any]]) -> str:
    return json.dumps(setup_data(records), indent=None, separators=(",", ":"), ensure_ascii=False) + "\n"


def gpu_records(records: Sequence[Mapping[str, Any]]) -> dict[str, list[tuple[str, bool]]]:
    """Per catalogue GPU, the records about it (:meth:`RecordSetups.gpus`) in id order: ``(id, True)`` where the
    GPU's facts meet the record's GPU conditions, ``(id, False)`` where its catalogue row leaves one open."""
    out: dict[str, list[tuple[str, bool]]] = {}
    for record in sorted(records, key=lambda r: str(r["id"])):
        for name, sure in record_gpus(record).items():
            out.setdefault(name, []).append((str(record["id"]), sure))
    return out


def setup_page(banner: str) -> str:
    """``docs/setup.md``: the form and the place the results go; ``docs/javascripts/setup.js`` fills it from
    ``docs/data/setup.json``."""
    def select(name: str, label: str) -> str:
        return (f'<div class="rl-field"><label for="rl-setup-{name}">{html.escape(label)}</label>'
                f'<select id="rl-setup-{name}" name="{name}"></select></div>')

    launches = ", ".join(f"`{_engine(e).default_launch}`" for e in engine_names())
    return "\n".join([
        "---",
        "title: My setup",
        "description: Choose an engine, a version, a GPU, a backend and an OS to see the records that apply to that "
        "setup, with the linter's own certainty.",
        "---",
        "",
        banner,
        "",
        "# My setup",
        "",
        "Choose the engine, its version, the GPU you serve on and, where it matters, the backend and the OS: the list "
        "shows every record that `relialint check` reports for the engine's smallest launch on that setup "
        f"({launches}), with the same certainty. The verdicts were computed when the site was built, by the linter's "
        "own pipeline on that launch. **Definite**: it applies as launched. **Possible**: it depends on something "
        "the launch does not say (a flag, an environment variable, the model), named beside it. \"Not sure\" leaves "
        "that fact unknown, as the linter does when you do not give it.",
        "",
        f'<form id="rl-setup" class="rl-setup" data-src="../{SETUP_DATA}" role="search" '
        'aria-label="Choose your setup">',
        select("engine", "Engine"),
        select("version", "Version"),
        select("gpu", "GPU"),
        select("backend", "Backend"),
        select("os", "OS"),
        "</form>",
        "",
        '<p class="rl-setup-launch-line">Launch: <code id="rl-setup-launch"></code><br>'
        'Same verdicts: <code id="rl-setup-command"></code></p>',
        '<p id="rl-setup-notice" class="rl-setup-notice" role="status" hidden></p>',
        '<p id="rl-setup-summary" class="rl-setup-summary" aria-live="polite"></p>',
        '<div id="rl-setup-results" class="rl-setup-results"></div>',
        "",
        '<noscript>This view needs JavaScript. The same verdicts are in '
        f'<a href="../{SETUP_DATA}">{SETUP_DATA}</a>, and the <a href="../reference/hardware/">hardware '
        "catalogue</a> lists each GPU's records.</noscript>",
        "",
    ])
