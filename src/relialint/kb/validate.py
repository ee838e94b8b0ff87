"""Semantic checks over a folder of records, each with its own code (the examples are run by
``relialint.run.examples``, in the run layer: running one is a lint)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath, PureWindowsPath

from relialint.core.facts import FactValueError, spec_for
from relialint.core.triggers import compile_trigger, leaves
from relialint.core.versions import VersionError
from relialint.engines.versioning import parse_engine_version
from relialint.kb import gates, links, witness
from relialint.kb.loader import LoadedRecord, LoadResult, Problem
from relialint.kb.model import IMPACT_BY_HUNDRED

DEFAULT_FILENAMES = {
    "shell": "serve.sh", "compose": "compose.yaml", "kubernetes": "deployment.yaml", "helm": "values.yaml",
    "env": ".env", "vllm-config": "vllm-config.yaml", "systemd": "vllm.service", "dockerfile": "Dockerfile",
    "windows": "serve.bat",
    "nvidia-smi": "nvidia-smi.csv", "amd-smi": "amd-smi.json",
}


def problem(loaded: LoadedRecord, loc: tuple[str | int, ...], code: str, message: str) -> Problem:
    span = loaded.span(loc)
    line, column = (span.line, span.column) if span else (1, 1)
    return Problem(loaded.path, line, column, code, message)


Loc = tuple[str | int, ...]


def semantic(result: LoadResult, known_ids: set[str] | None = None) -> list[Problem]:
    problems: list[Problem] = []
    ids: dict[str, LoadedRecord] = {}
    slugs: dict[str, LoadedRecord] = {}
    all_ids = {r.record.id for r in result.records} | (known_ids or set())
    for loaded in result.records:
        rec = loaded.record
        if rec.id in ids:
            problems.append(problem(loaded, ("id",), "KB003", f"duplicate id {rec.id} (also {ids[rec.id].path})"))
        ids.setdefault(rec.id, loaded)
        if rec.slug in slugs:
            problems.append(problem(loaded, ("slug",), "KB004",
                                     f"duplicate slug {rec.slug} (also {slugs[rec.slug].path})"))
        slugs.setdefault(rec.slug, loaded)
        for index, related in enumerate(rec.related):
            if related not in all_ids:
                problems.append(problem(loaded, ("related", index), "KB005", f"related id {related} does not exist"))
        expected_name = f"{rec.id}-{rec.slug}"
        if Path(loaded.path).stem != expected_name:
            problems.append(problem(loaded, ("id",), "KB011", f"file name should be {expected_name}.yaml"))
        expected_impact = IMPACT_BY_HUNDRED.get(rec.id[2])
        if expected_impact is None:
            problems.append(problem(loaded, ("id",), "KB011", f"{rec.id}: RL{rec.id[2]}xx is not an impact range"))
        elif expected_impact != rec.impact:
            problems.append(problem(loaded, ("impact",), "KB011",
                                     f"{rec.id} is in the {expected_impact} range, not {rec.impact}"))
        problems.extend(_trigger_checks(loaded))
        problems.extend(_example_checks(loaded))
        problems.extend(gates.check(loaded))
        problems.extend(links.check(loaded))
        if rec.status != "withdrawn":
            problems.extend(witness.check(loaded, Path(loaded.path).parent))
    problems.extend(_shared_triggers(result))
    return problems


def canonical_when(predicate: object) -> str:
    """A trigger's ``when`` in one spelling: the members of ``all`` and ``any`` sorted, ``in`` lists sorted, so two
    triggers that test the same facts the same way compare equal however they are written."""
    import json

    def norm(node: object) -> object:
        if isinstance(node, dict):
            if set(node) == {"all"} or set(node) == {"any"}:
                (key, members), = node.items()
                return {key: sorted((norm(m) for m in members), key=lambda m: json.dumps(m, sort_keys=True))}
            return {k: (sorted(v, key=str) if k in ("in", "not_in") and isinstance(v, list) else norm(v))
                    for k, v in node.items()}
        return node

    return json.dumps(norm(predicate), sort_keys=True)


def _shared_triggers(result: LoadResult) -> list[Problem]:
    """KB022: two active records whose triggers test the same facts the same way are one finding told twice (or two
    causes that the configuration cannot tell apart): merge them, or narrow the one the source shows narrower."""
    problems: list[Problem] = []
    seen: dict[str, LoadedRecord] = {}
    for loaded in result.records:
        for name in ("trigger", "runtime_trigger"):
            when = (loaded.data.get(name) or {}).get("when")
            if loaded.record.status == "withdrawn" or not when:
                continue
            key = name + canonical_when(when)
            if key in seen:
                problems.append(problem(loaded, (name, "when"), "KB022",
                                         f"{loaded.record.id}'s {name} tests exactly what "
                                         f"{seen[key].record.id}'s does: one cause and trigger is one record"))
            seen.setdefault(key, loaded)
    return problems


PROBE_FORMATS = ("nvidia-smi", "amd-smi")
"""Example formats that are probe captures: they test ``runtime_trigger``, the others ``trigger``."""


def _trigger_checks(loaded: LoadedRecord) -> list[Problem]:
    return _one_trigger(loaded, "trigger") + _one_trigger(loaded, "runtime_trigger")


def _one_trigger(loaded: LoadedRecord, name: str) -> list[Problem]:
    problems: list[Problem] = []
    data = loaded.data
    trigger = data.get(name)
    if not trigger:
        return problems
    compiled = compile_trigger(trigger, checked=True)
    for leaf, _ in leaves(compiled.when):
        problems.extend(problem(loaded, (name, "when", *leaf.loc, *where), code, message)
                        for where, code, message in leaf.problems)
        if leaf.key == "engine.name" and not leaf.problems and leaf.op != "present":
            for item in leaf.arg if isinstance(leaf.arg, list) else [leaf.arg]:
                try:
                    _engine_name(leaf.key, item)
                except FactValueError as exc:
                    problems.append(problem(loaded, (name, "when", *leaf.loc, leaf.op), "KB006", str(exc)))
    for index, rng in enumerate(trigger.get("affected") or []):
        for field in ("introduced", "fixed", "last_affected", "last_known_good"):
            if rng.get(field):
                try:
                    parse_engine_version(rng["engine"], str(rng[field]))
                except VersionError as exc:
                    problems.append(problem(loaded, (name, "affected", index, field), "KB007", str(exc)))
        for j, observed in enumerate(rng.get("observed") or []):
            try:
                parse_engine_version(rng["engine"], str(observed))
            except VersionError as exc:
                problems.append(problem(loaded, (name, "affected", index, "observed", j), "KB007", str(exc)))
    for index, key in enumerate(trigger.get("locate") or []):
        if spec_for(key) is None:
            problems.append(problem(loaded, (name, "locate", index), "KB006", f"fact {key!r} is not in the "
                                                                                     "vocabulary"))
    edit = (trigger.get("fix_edit") or {}).get("set") or {}
    for key in edit:
        if spec_for(key) is None:
            problems.append(problem(loaded, (name, "fix_edit", "set", key), "KB006",
                                     f"fact {key!r} is not in the vocabulary"))
    probe = name == "runtime_trigger"
    examples = [e for e in data.get("examples") or [] if (e.get("format") in PROBE_FORMATS) == probe]
    kind = "a runtime trigger needs a capture example" if probe else "a trigger record needs an example"
    if not any(e.get("outcome") == "fires" for e in examples):
        problems.append(problem(loaded, (name,), "KB008", f"{kind} that fires"))
    if not any(e.get("outcome") == "passes" for e in examples):
        problems.append(problem(loaded, (name,), "KB009", f"{kind} that passes"))
    return problems


def _example_checks(loaded: LoadedRecord) -> list[Problem]:
    problems: list[Problem] = []
    for index, example in enumerate(loaded.data.get("examples") or []):
        for key in list(example.get("facts") or {}) + list(example.get("missing") or []):
            if spec_for(key) is None:
                problems.append(problem(loaded, ("examples", index), "KB006", f"fact {key!r} is not in the "
                                                                                "vocabulary"))
        if example.get("engine_version"):
            try:
                from relialint.core.versions import parse_version

                parse_version(str(example["engine_version"]))
            except VersionError as exc:
                problems.append(problem(loaded, ("examples", index, "engine_version"), "KB007", str(exc)))
    return problems


def example_path_problem(name: str) -> str | None:
    """Why an example's ``filename:`` may not be written inside validate's own temporary folder (``None``: it may).
    A record folder is untrusted input: no absolute path, no ``..``, no drive or backslash trickery."""
    pure = PurePosixPath(name)
    if not name or "\0" in name or "\\" in name or pure.is_absolute() or PureWindowsPath(name).drive:
        return "must be a relative path"
    if any(part in ("..", ".", "") for part in name.split("/")):
        return "must not hold `..`, `.` or an empty part"
    if len(name) > 200 or any(len(part) > 100 for part in pure.parts):
        return "is too long"
    return None


def _engine_name(key: str, value: object) -> None:
    """``engine.name`` takes the name of an engine relialint ships (``FactValueError`` otherwise)."""
    if key != "engine.name":
        return
    from relialint.engines.registry import default_registry

    names = default_registry().versioned()
    if str(value) not in {engine.name for engine in names}:
        raise FactValueError(f"{key} takes one of {', '.join(engine.name for engine in names)}, not {value!r}")
