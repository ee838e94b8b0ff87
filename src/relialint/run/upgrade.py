"""``relialint upgrade``: what changes for each deployment when its engine moves from one release to another.

The delta has two levels, both data any caller (the CLI, ``check --since``, the site, the language server) uses:

* **release level**, no deployment: :func:`relialint.engines.releases.release_delta` (options the target refuses
  or newly accepts, options whose kind or values change, variables no longer / newly read, defaults that change
  with what pins them) and :func:`record_changes` here (records whose affected ranges the target enters or
  leaves);
* **deployment level**: :func:`upgrade_paths` lints every file twice, exactly as ``check`` does (configuration,
  targets, directives, suppressions, the possible worlds), once with each deployment on the version it runs today
  (the file's, or ``--from``) and once on the target (``--to``, written where the file writes its version), then
  compares: records that start to apply, stop applying or keep applying (located and definite / possible as in
  ``check``), and, from the release delta, the options the deployment writes that the target refuses or reads
  differently, the variables it sets that the target no longer (or newly) reads, and the defaults it leaves to the
  engine that change. A version today that is unknown stays unknown: its side is judged over every version the
  file allows, so what depends on it is possible, never invented.

Nothing here parses a version's release notes: every claim comes from the committed tables and records.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from relialint.core.deployment import Deployment
from relialint.core.evaluate import eval_affected
from relialint.core.facts import Fact, FactSet, render
from relialint.core.results import SEVERITY_RANK, Finding, Options, RunResult, UsageError
from relialint.core.versions import Version, VersionError
from relialint.engines.releases import (
    CHANGED,
    DEFAULT,
    ENTERED,
    ENV,
    ENV_READ,
    ENV_UNREAD,
    KEPT,
    LEFT,
    OPTION,
    OPTION_ACCEPTED,
    OPTION_CHANGED,
    OPTION_REFUSED,
    RECORD,
    DeploymentUpgrade,
    ReleaseDelta,
    UpgradeItem,
    UpgradeRun,
    VersionSide,
    combine,
    latest,
    option_name,
    option_spans,
    release_delta,
)

if TYPE_CHECKING:
    from relialint.engines.protocol import Engine
    from relialint.engines.registry import Registry

__all__ = ["LATEST", "RecordChange", "Request", "record_changes", "resolve_version", "upgrade_paths"]

LATEST = "latest"
"""``--to latest``: the newest release the tables of the deployment's engine describe."""


class Request:
    """What to upgrade to: ``to`` (a version as written, or ``latest``) and ``old`` (``--from``, else ``None``: the
    version each file writes)."""

    to: str
    old: str | None

    def __init__(self, to: str, old: str | None = None) -> None:
        self.to = to
        self.old = old


def resolve_version(engine: Engine, text: str) -> Version | None:
    """``text`` in ``engine``'s scheme (``latest``: its newest tabled release); ``None`` where it is not one of the
    engine's versions (``--to b6000`` for a vLLM deployment)."""
    if text == LATEST:
        return latest(engine)
    try:
        return engine.parse_version(text)
    except VersionError:
        return None


# -- release level: the records --------------------------------------------------------------------------------------


class RecordChange:
    """A record whose affected ranges (for ``engine``) the target version enters or leaves: ``change`` is
    ``entered`` or ``left``; ``certain``: both sides decided (a bound no released code shows leaves it possible)."""

    record: Mapping[str, Any]
    change: str
    certain: bool

    def __init__(self, record: Mapping[str, Any], change: str, certain: bool) -> None:
        self.record = record
        self.change = change
        self.certain = certain

    @property
    def code(self) -> str:
        return str(self.record["id"])


def record_changes(records: Iterable[Mapping[str, Any]], engine: str, old: Version, new: Version
                   ) -> list[RecordChange]:
    """The records of ``engine`` whose affected version ranges hold on one side and not on the other (the ranges
    alone: whether a deployment also meets the rest of the trigger is the deployment level). A side the ranges
    leave undecided makes the change possible; records without ranges for the engine never change. ``records``:
    loaded ones (their triggers compiled) or plain dicts (the site's), whose triggers are compiled here."""
    from relialint.core.triggers import of

    out: list[RecordChange] = []
    for record in records:
        if record.get("status") == "withdrawn" or engine not in (record.get("engines") or []):
            continue
        trigger = of(record, "trigger")
        if trigger is None or not any(r.engine == engine for r in trigger.affected):
            continue
        ranges = tuple(r for r in trigger.affected if r.engine == engine)
        before = eval_affected(ranges, _version_facts(engine, old)).value
        after = eval_affected(ranges, _version_facts(engine, new)).value
        if before is after:
            continue
        if after is not False and before is not True:
            out.append(RecordChange(record, ENTERED, after is True and before is False))
        elif before is not False and after is not True:
            out.append(RecordChange(record, LEFT, before is True and after is False))
    return sorted(out, key=lambda c: (c.change, c.code))


def _version_facts(engine: str, version: Version) -> FactSet:
    return FactSet({"engine.name": Fact(engine, "inferred"), "engine.version": Fact(version, "inferred")})


# -- deployment level ------------------------------------------------------------------------------------------------


class _Pinned:
    """What a pin gave each deployment of one side (its version, where the file writes it, and whence it came),
    filled as the run meets the deployments, read back when the two runs are compared."""

    def __init__(self) -> None:
        self.sides: dict[tuple[str, int, int, str], VersionSide] = {}


def _key(deployment: Deployment) -> tuple[str, int, int, str]:
    return (deployment.path, deployment.span.line, deployment.span.column, deployment.engine)


def _pin(text: str | None, origin: str, seen: _Pinned) -> Callable[[Deployment, Registry], None]:
    """A pin that sets each versioned deployment's version to ``text`` (in its engine's scheme; ``None``: leave the
    file's), written where the file writes its version, and records the side it gave."""

    def pin(deployment: Deployment, registry: Registry) -> None:
        engine = registry.get(deployment.engine)
        if engine is None or not engine.takes_version:
            return
        written = deployment.facts.get("engine.version")
        where = (written.path, written.line, written.column) if written is not None and written.located() else (
            None, None, None)
        version = resolve_version(engine, text) if text is not None else None
        if version is None and text is not None and origin == "--to":
            seen.sides[_key(deployment)] = VersionSide(None, origin, *where)  # not this engine's: not upgraded
            return
        if version is None:  # the file's version (--from names another engine's version, or none was given)
            file_version = written.value if written is not None and isinstance(written.value, Version) else None
            seen.sides[_key(deployment)] = VersionSide(file_version, "file" if file_version is not None else None,
                                                       *where)
            return
        origin_here = written.origin if written is not None and written.located() else "cli"
        deployment.facts.set("engine.version", Fact(
            version, origin_here, where[0], where[1], where[2],
            written.end_line if written is not None and where[0] else None,
            written.end_column if written is not None and where[0] else None,
            note=f"{origin} {version}"))
        seen.sides[_key(deployment)] = VersionSide(version, origin, *where)

    return pin


def _check_request(request: Request, registry: Registry) -> None:
    """A ``--to`` / ``--from`` that no versioned engine reads is a usage error (exit 2)."""
    for flag, text in (("--to", request.to), ("--from", request.old)):
        if text is None:
            continue
        if text == LATEST:
            if flag == "--from":
                raise UsageError("--from latest: name the version the deployments run today")
            continue
        if not any(resolve_version(engine, text) is not None for engine in registry.versioned()):
            raise UsageError(f"{flag} {text}: not a version of {', '.join(e.label for e in registry.versioned())}")


def upgrade_paths(paths: list[str], options: Options, request: Request, registry: Registry | None = None
                  ) -> UpgradeRun:
    """The upgrade of every deployment in ``paths`` (files and directories, as ``check`` finds them) to
    ``request.to``: the two lints compared, deployment by deployment (see the module docstring)."""
    from relialint.core.evaluator import Evaluator
    from relialint.engines.registry import default_registry
    from relialint.run.lint import Reads, lint_paths, load_records

    engines = registry if registry is not None else default_registry()
    _check_request(request, engines)
    before, after = _Pinned(), _Pinned()
    records, evaluator = load_records(options), Evaluator()  # shared by both sides: one load, one memo
    reads: Reads = {}  # each file read once
    today = lint_paths(paths, options, registry, _pin(request.old, "--from", before), evaluator, records, reads)
    target = lint_paths(paths, options, registry, _pin(request.to, "--to", after), evaluator, records, reads)
    return compare(today, target, before, after, engines, request)


def compare(today: RunResult, target: RunResult, before: _Pinned, after: _Pinned, registry: Registry,
            request: Request) -> UpgradeRun:
    """Both runs, deployment by deployment (they found the same deployments: the pin changes only the version)."""
    run = UpgradeRun(errors=list(target.errors), warnings=list(target.warnings),
                     notes=list(dict.fromkeys([*today.notes, *target.notes])), files=target.files,
                     show_possible=target.show_possible)
    old_by_key = {_key(d): d for d in today.deployments}
    memo: Memo = {}
    old_findings = _by_deployment(today, today.findings)
    new_findings = _by_deployment(target, target.findings)
    for deployment in target.deployments:
        key = _key(deployment)
        engine = registry.get(deployment.engine)
        if engine is None or not engine.takes_version:
            continue
        old_deployment = old_by_key.get(key)
        old_side = before.sides.get(key) or VersionSide(None, None)
        new_side = after.sides.get(key) or VersionSide(None, None)
        upgrade = DeploymentUpgrade(deployment.path, deployment.span.line, deployment.span.column,
                                    deployment.engine, engine.label, deployment.name, old_side, new_side)
        if new_side.version is None:
            why = f"relialint has no release tables for {engine.label}" if request.to == LATEST else \
                f"{request.to} is not a {engine.label} version"
            upgrade.notes.append(f"{why}: this deployment is not upgraded")
            run.deployments.append(upgrade)
            continue
        if old_side.version is None:
            upgrade.notes.append(f"the {engine.label} version it runs today is unknown (give --from VERSION): what "
                                 "depends on it is possible")
        elif old_side.version == new_side.version:
            upgrade.notes.append(f"it already runs {engine.label} {new_side.version}")
        else:
            upgrade.release = release_delta(engine, old_side.version, new_side.version)
            if upgrade.release is not None and not upgrade.release.checked:
                upgrade.notes.append(f"options, variables and defaults not checked: {upgrade.release.unchecked}")
            elif upgrade.release is not None and upgrade.release.worlds:
                upgrade.notes.append(upgrade.release.worlds)
            elif upgrade.release is None:
                upgrade.notes.append(f"options, variables and defaults not checked: relialint has no release tables "
                                     f"for {engine.label}")
        upgrade.items.extend(_record_items(old_findings.get(key, []), new_findings.get(key, []), target))
        if old_deployment is not None:
            upgrade.items.extend(_table_items(engine, old_deployment, deployment, upgrade, memo))
        upgrade.items.sort(key=UpgradeItem.sort_key)
        run.deployments.append(upgrade)
    run.failing = sum(1 for d in run.deployments for i in d.items if i.introduces and i.failing)
    return run


def _by_deployment(run: RunResult, findings: list[Finding]) -> dict[tuple[str, int, int, str], list[Finding]]:
    """Each finding under the deployment it is about (``RunResult.owners``); a finding without one (a suppression
    check) is about no deployment and has no place in an upgrade."""
    out: dict[tuple[str, int, int, str], list[Finding]] = {}
    for finding in findings:
        owner = run.owners.get(id(finding))
        if owner is not None:
            out.setdefault(_key(owner), []).append(finding)
    return out


def _finding_key(finding: Finding) -> tuple[str, str, int, int, str | None, str | None]:
    return (finding.code, finding.path, finding.line, finding.column, finding.about, finding.target)


def _record_items(old: list[Finding], new: list[Finding], target: RunResult) -> list[UpgradeItem]:
    """Records that start, stop or keep applying, from the findings of the two runs (same place, same record)."""
    was = {_finding_key(f): f for f in old}
    now = {_finding_key(f): f for f in new}
    items: list[UpgradeItem] = []
    for key, finding in now.items():
        before = was.get(key)
        if before is None or (before.certainty == "possible" and finding.certainty == "definite"):
            # absent today, or only possibly there: the upgrade brings it (for sure where it was absent)
            certainty = finding.certainty if before is None else "possible"
            # as check counts: at or above the file's fail level, definite, or listed and possible under --strict
            rank, strict = target.policy.get(id(finding), (SEVERITY_RANK["major"], False))
            listed = finding.shown or target.show_possible
            failing = SEVERITY_RANK[finding.severity] >= rank and (certainty == "definite" or (strict and listed))
            items.append(_from_finding(RECORD, ENTERED, finding, certainty, introduces=True, failing=failing))
        elif not (before.certainty == "definite" and finding.certainty == "possible"):  # (that one: left, below)
            items.append(_from_finding(RECORD, KEPT, finding, finding.certainty))
    for key, finding in was.items():
        after = now.get(key)
        if after is None:
            items.append(_from_finding(RECORD, LEFT, finding, finding.certainty))
        elif after.certainty == "possible" and finding.certainty == "definite":
            items.append(_from_finding(RECORD, LEFT, finding, "possible"))
    return items


def _from_finding(kind: str, change: str, finding: Finding, certainty: str, introduces: bool = False,
                  failing: bool = False) -> UpgradeItem:
    return UpgradeItem(kind, change, finding.code, certainty, finding.path, finding.line, finding.column,
                       finding.end_line, finding.end_column, finding.message, finding.severity,
                       tuple(finding.missing_facts), finding, introduces, failing, finding.shown)


def _located(fact: Fact | None, fallback: Deployment) -> tuple[str, int, int, int, int]:
    if fact is not None and fact.located() and fact.path and fact.line is not None:
        column = fact.column or 1
        return fact.path, fact.line, column, fact.end_line or fact.line, fact.end_column or column
    span = fallback.span
    return span.path, span.line, span.column, span.end_line, span.end_column


class _Delta:
    """The release delta one deployment's items are drawn from, with how to name each side in a message:
    ``today_unknown``: the version today is unknown, so every item is possible (``combine`` over the tabled
    releases the file allows, named ``old_text``)."""

    def __init__(self, release: ReleaseDelta, old_text: str, new_text: str, today_unknown: bool = False) -> None:
        self.release = release
        self.old_text = old_text
        self.new_text = new_text
        self.today_unknown = today_unknown

    def certainty(self, certain: bool) -> tuple[str, tuple[str, ...]]:
        """``definite`` / ``possible`` for an item the tables give as ``certain`` or not, and what decides it."""
        if certain and not self.today_unknown:
            return "definite", ()
        return "possible", ("engine.version",)


def _delta_for(engine: Engine, old: Deployment, upgrade: DeploymentUpgrade, memo: Memo) -> _Delta | None:
    """The delta the items come from: the release delta between the two versions, or, the version today unknown,
    the deltas from each tabled release the file allows (``engine.allowed_versions``) to the target, combined."""
    new = upgrade.new.version
    if new is None:
        return None
    new_text = f"{engine.label} {new}"
    release = upgrade.release
    if release is not None:
        return _Delta(release, f"{engine.label} {release.old}", new_text) if release.checked else None
    if upgrade.old.version is not None:
        return None
    stated = old.unfinished if old.unfinished is not None else old.facts
    allowed = tuple(v for v in engine.allowed_versions(stated, engine.written_options(old), None) if v != new)
    key = (engine.name, allowed, new)
    if key not in memo:
        memo[key] = (_from_any(engine, allowed, new), _ranges(allowed, engine.tabled_versions()))
    combined, span = memo[key]
    if combined is None:
        return None
    return _Delta(combined, f"some of {engine.label} {span} (the version today is unknown)", new_text, True)


Memo = dict[tuple[str, tuple[Version, ...], Version], tuple["ReleaseDelta | None", str]]
"""The combined deltas of one upgrade run and the versions they come from in words, by engine, versions allowed
today and target (the deployments of a tree share a few)."""


def _from_any(engine: Engine, allowed: tuple[Version, ...], new: Version) -> ReleaseDelta | None:
    """The release deltas from each of ``allowed`` to ``new``, combined."""
    deltas = [d for d in (release_delta(engine, v, new) for v in allowed) if d is not None and d.checked]
    if not deltas:
        return None
    return combine(engine.name, deltas[0].old, new, deltas, "the version today is unknown")


def _ranges(versions: Sequence[Version], tabled: Sequence[Version]) -> str:
    """Versions as runs of consecutive tabled ones (``0.6.6.post1-0.16.0, 0.33.0``)."""
    where = {version: i for i, version in enumerate(tabled)}
    runs: list[list[Version]] = []
    previous = -2
    for version in versions:
        index = where.get(version, -2)
        if runs and index == previous + 1 and index >= 0:
            runs[-1].append(version)
        else:
            runs.append([version])
        previous = index
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def _table_items(engine: Engine, old: Deployment, new: Deployment, upgrade: DeploymentUpgrade, memo: Memo
                 ) -> list[UpgradeItem]:
    """Options, variables and defaults of the release delta that this deployment uses, located where it writes
    them. Without a delta the tables decide (a side outside them) there are none: the record items, judged over the
    worlds, still say what the target refuses."""
    delta = _delta_for(engine, old, upgrade, memo)
    if delta is None:
        return []
    stated = old.unfinished if old.unfinished is not None else old.facts
    items = _option_items(engine, delta, new)
    items.extend(_value_items(engine, delta, new, stated))
    items.extend(_env_items(delta, new, stated))
    items.extend(_default_items(engine, delta, old, new))
    return items


def _option_items(engine: Engine, delta: _Delta, new: Deployment) -> list[UpgradeItem]:
    items: list[UpgradeItem] = []
    old_text, new_text = delta.old_text, delta.new_text
    seen: set[str] = set()
    for written, span in option_spans(engine, new):
        head = option_name(engine, written)
        change = delta.release.option(head) if head is not None else None
        if head is None or change is None or head in seen:
            continue
        seen.add(head)
        certainty, missing = delta.certainty(change.certain)
        where = (span.path, span.line, span.column, span.end_line, span.end_column)
        if change.change == OPTION_REFUSED:
            instead = f"; use `{change.replacement}` instead" if change.replacement else ""
            message = f"accepted by {old_text}, refused by {new_text}: the engine will not start{instead}"
            items.append(UpgradeItem(OPTION, OPTION_REFUSED, head, certainty, *where, message, "blocker", missing))
        elif change.change == OPTION_CHANGED:
            message = f"{_kind_text(change.old_kind, change.old_values)} in {old_text}, " \
                      f"{_kind_text(change.new_kind, change.new_values)} in {new_text}"
            items.append(UpgradeItem(OPTION, OPTION_CHANGED, head, certainty, *where, message, None, missing))
        elif change.change == OPTION_ACCEPTED:
            message = f"refused by {old_text}, accepted by {new_text}"
            items.append(UpgradeItem(OPTION, OPTION_ACCEPTED, head, certainty, *where, message, None, missing))
    return items


def _value_items(engine: Engine, delta: _Delta, new: Deployment, stated: FactSet) -> list[UpgradeItem]:
    """Values the deployment writes that one side accepts and the other refuses, at the option's word."""
    items: list[UpgradeItem] = []
    spans = {option_name(engine, written): span for written, span in option_spans(engine, new)}
    for change in delta.release.values:
        fact = stated.facts.get(change.fact)
        if fact is None or fact.value is None or str(fact.value) != change.value:
            continue
        whole = delta.release.option(change.option)
        if whole is not None and whole.change in (OPTION_REFUSED, OPTION_ACCEPTED):
            continue  # the option itself is refused or newly accepted: that item says it
        span = spans.get(change.option)
        path, line, column, end_line, end_column = (span.path, span.line, span.column, span.end_line,
                                                    span.end_column) if span is not None else _located(fact, new)
        certainty, missing = delta.certainty(change.certain)
        subject = f"{change.option} {change.value}"
        if change.change == OPTION_REFUSED:
            message = (f"`{change.value}` is accepted by {delta.old_text}, refused by {delta.new_text} (accepted "
                       f"from {change.since}): the engine will not start")
            items.append(UpgradeItem(OPTION, OPTION_REFUSED, subject, certainty, path, line, column, end_line,
                                     end_column, message, "blocker", missing))
        else:
            message = f"`{change.value}` is refused by {delta.old_text}, accepted by {delta.new_text}"
            items.append(UpgradeItem(OPTION, OPTION_ACCEPTED, subject, certainty, path, line, column, end_line,
                                     end_column, message, None, missing))
    return items


_KINDS = {"v": "takes a value", "o": "takes an optional value", "f": "takes no value", "n": "takes no value"}


def _kind_text(kind: str | None, values: tuple[str, ...]) -> str:
    text = _KINDS.get(kind or "", "is accepted")
    return f"{text} ({', '.join(values)})" if values else text


def _env_items(delta: _Delta, new: Deployment, stated: FactSet) -> list[UpgradeItem]:
    items: list[UpgradeItem] = []
    for key, fact in stated.items():
        if not key.startswith("env.") or fact.value is None:
            continue
        name = key[len("env."):]
        change = delta.release.variable(name)
        if change is None:
            continue
        certainty, missing = delta.certainty(change.certain)
        path, line, column, end_line, end_column = _located(fact, new)
        if change.change == ENV_UNREAD:
            instead = f"; use `{change.replacement}` instead" if change.replacement else ""
            message = f"read by {delta.old_text}, not by {delta.new_text}: setting it does nothing there{instead}"
        else:
            message = f"not read by {delta.old_text}, read by {delta.new_text}: setting it takes effect there"
        items.append(UpgradeItem(ENV, ENV_UNREAD if change.change == ENV_UNREAD else ENV_READ, name, certainty,
                                 path, line, column, end_line, end_column, message,
                                 "major" if change.change == ENV_UNREAD else None, missing))
    return items


def _default_items(engine: Engine, delta: _Delta, old: Deployment, new: Deployment) -> list[UpgradeItem]:
    """The defaults of the release delta that this deployment leaves to the engine, as its finished facts on each
    side have them. A value the file sets is no default. A side without a value is not known (a default its GPU
    decides, or one the tables do not give for that release, or the version today unknown): the item is then
    possible."""
    items: list[UpgradeItem] = []
    where = new.facts.get("engine.version")
    path, line, column, end_line, end_column = _located(where, new)
    for change in delta.release.defaults:
        was, now = old.facts.get(change.fact), new.facts.get(change.fact)
        if delta.today_unknown:
            was = None
        if any(f is not None and f.origin != "default" for f in (was, now)):
            continue  # the file (a flag, a variable) sets it: not the engine's default
        if (was is None and now is None) or (was is not None and now is not None and was.value == now.value):
            continue
        old_value = render(was.value) if was is not None else "not known"
        new_value = render(now.value) if now is not None else "not known"
        message = f"{new_value} in {delta.new_text}, another value in {delta.old_text}" if delta.today_unknown else \
            f"{old_value} in {delta.old_text}, {new_value} in {delta.new_text}"
        if change.pins and was is not None and now is not None:
            message += f"; to keep {old_value}, set it with {' or '.join(f'`{p}`' for p in change.pins)}"
        certainty, missing = delta.certainty(change.certain and was is not None and now is not None)
        if certainty == "possible":
            missing = _waits_on(engine, change.fact, (old, new)) if not delta.today_unknown else missing
            blank = delta.old_text if was is None else delta.new_text
            why = f"depends on {', '.join(missing)}" if missing else f"relialint's defaults give none for {blank}"
            message += f" (possible: {why})"
        items.append(UpgradeItem(DEFAULT, CHANGED, change.fact, certainty, path, line, column, end_line, end_column,
                                 message, missing_facts=missing))
    return items


def _waits_on(engine: Engine, fact: str, sides: tuple[Deployment, ...]) -> tuple[str, ...]:
    """What decides a default a side leaves without a value: the GPU's facts where the engine leaves it to the GPU
    (it is made unknown there), else nothing a user can give (the tables do not say)."""
    gpu = fact in engine.gpu_dependent and any(k in d.facts.blocked for d in sides for k in engine.gpu_dependent)
    return tuple(sorted({str(c["fact"]) for c in engine.gpu_conditions})) if gpu else ()
