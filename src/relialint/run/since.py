"""``relialint check --since REF``: lint what changed since a git revision, and say what a version move changes.

What is linted: of the files ``check PATHS`` would lint, those that differ from the base of ``REF`` (the merge base
of ``REF`` and ``HEAD``, as ``git diff REF...`` takes it) in the working tree, staged or not, and the untracked files
git does not ignore; plus any file that reads a changed file (a compose file whose ``.env`` or ``env_file:`` changed,
a unit whose ``EnvironmentFile=`` did). Each is linted whole, exactly as ``check`` lints it: a silent failure is
often a combination (a flag on a line nobody touched turns wrong when the image tag on the changed line moves), so
findings are not cut down to the changed lines.

Where a deployment's engine version (an image tag, a pinned package, a build number) differs from the one the same
deployment had at the base, the upgrade's delta (``relialint.run.upgrade``) is reported at the line that writes the
new version. The file at the base is read from git (``git cat-file``) through the readers like any file: the
files it names are read as they were at the base too, where git has them, and from the disk where they did not
change (an ignored ``.env`` is the same file on both sides).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from relialint.core.deployment import Deployment
from relialint.core.facts import Fact
from relialint.core.findings import STATED
from relialint.core.results import Change, Options, RunResult
from relialint.readers.located import FileResult, decode
from relialint.readers.opener import FileOpener, Opened, checked_text, missing
from relialint.run.files import DiskOpener, discover, read_file
from relialint.run.gitrev import Changes, changes, real_name, repository
from relialint.run.lint import MAX_DEPLOYMENTS
from relialint.run.reach import Reach, project_root

if TYPE_CHECKING:
    from relialint.engines.registry import Registry
    from relialint.engines.releases import DeploymentUpgrade, UpgradeRun
    from relialint.run.upgrade import Request


class BaseOpener(FileOpener):
    """The files a deployment names, as they were at the base revision: a file git lists as changed is read from
    the base commit (missing there: not found), any other from the disk (it did not change, or git ignores it),
    under the disk opener's limits."""

    def __init__(self, found: list[Changes], disk: FileOpener) -> None:
        self.found = found
        self.disk = disk

    def refusal(self, path: str, referrer: str) -> str | None:
        return self.disk.refusal(path, referrer)

    def read(self, path: str) -> Opened:
        name = real_name(path)
        for repo in self.found:
            if name in repo.files:
                data = repo.old_text(path)
                if data is None:
                    return missing(path)
                text, error = decode(data, path)
                return checked_text(path, text) if text is not None else Opened(path, None, error)
        return self.disk.read(path)


class VersionMove:
    """One deployment whose engine version differs from the base: ``old`` the version it had (``None``: the file
    at the base did not pin one), ``new`` the one it has now, and where the new one is written (``path``,
    ``line``, ``column``, ``end_column``: the tag, the pin, the build number)."""

    deployment: Deployment
    old: object | None
    new: object
    path: str
    line: int
    column: int
    end_column: int

    def __init__(self, deployment: Deployment, old: object | None, new: object, path: str, line: int, column: int,
                 end_column: int) -> None:
        self.deployment = deployment
        self.old = old
        self.new = new
        self.path = path
        self.line = line
        self.column = column
        self.end_column = end_column


def changed_repositories(ref: str, paths: list[str]) -> list[Changes]:
    """What changed since ``ref`` in each repository that holds one of ``paths`` (a usage error where one is in
    none, or ``ref`` names no revision there)."""
    grouped: dict[Path, list[str]] = {}
    for path in paths:
        grouped.setdefault(repository(path), []).append(path)
    return [changes(root, ref, group) for root, group in grouped.items()]


def selected(paths: list[str], found: list[Changes]) -> list[str]:
    """The files of ``paths`` (as ``check`` would find them, shown as it would show them, in its order) that
    changed, or that read a changed file: a changed file no deployment of its own (an env file a walk leaves to the
    files beside it) or of a kind others read (an env file, a Dockerfile) brings in the files that read it."""
    files, _ = discover(paths)
    changed = {name for repo in found for name in repo.files}
    names = [real_name(str(path)) for path, _, _ in files]
    read_by_others = any(_read_by_others(name, name not in names) for name in changed)
    return [display for (path, display, kind), name in zip(files, names, strict=True)
            if name in changed or (read_by_others and _reads_changed(path, display, kind, changed))]


READ_BY_NAME = (".json", ".yaml", ".yml", ".env", ".conf")
"""Files a deployment may read by name beside those a walk lints (a ``--config`` YAML, a checkpoint's
``config.json``, a chart's ``Chart.yaml``, an ``env_file:``)."""


def _read_by_others(name: str, not_linted: bool) -> bool:
    """Whether a changed file may be read by another file's deployment: an env file or a Dockerfile, or a file the
    walk does not lint of a kind relialint reads or a name deployments read (a changed README brings in nothing)."""
    from relialint.readers import detect

    kind = detect.kind_by_name(Path(name))
    if kind in ("env", "dockerfile"):
        return True
    return not_linted and (kind is not None or name.lower().endswith(READ_BY_NAME))


def _reads_changed(path: Path, display: str, kind: str, changed: set[str]) -> bool:
    from relialint.disk import read_text

    text, error = read_text(path, display)
    if text is None or error is not None:
        return False
    opener = DiskOpener(Reach((str(project_root(display)),)))
    try:
        result = read_file(text, display, kind, opener)
    except (Exception, RecursionError, MemoryError):
        return False  # the lint of the file itself reports it, if it is linted
    return any(real_name(used) in changed for used in result.used_files)


def version_moves(run: RunResult, found: list[Changes], registry: Registry | None = None) -> list[VersionMove]:
    """The deployments of ``run`` whose stated engine version differs from the one the same deployment (same
    engine, same place among that engine's deployments in its file) had at the base."""
    from relialint.engines.registry import default_registry

    engines = registry if registry is not None else default_registry()
    changed = {name for repo in found for name in repo.files}
    moves: list[VersionMove] = []
    kinds = {path: kind for path, kind, _, _ in run.looked_at}
    by_file: dict[str, list[Deployment]] = {}
    for deployment in run.deployments:
        by_file.setdefault(deployment.path, []).append(deployment)
    for display, deployments in by_file.items():
        stated = [f for d in deployments if (f := stated_version(d)) is not None]
        if not stated:
            continue
        sources = {real_name(display)} | {real_name(s[0]) for f in stated if (s := f.source) is not None}
        if not sources & changed and not _reads_changed_any(deployments, changed):
            continue
        old = _old_deployments(display, kinds.get(display, "shell"), found, engines)
        if old is None:
            continue  # a file new since the base: a new deployment, not an upgrade
        moves.extend(moves_between(deployments, old, _disk_text))
    return moves


def stated_version(deployment: Deployment) -> Fact | None:
    """The engine version the deployment's files state (an image tag, a pin, a build), located; else ``None``."""
    fact = deployment.facts.get("engine.version")
    return fact if fact is not None and fact.value is not None and fact.origin in STATED and fact.located() else None


def moves_between(now: list[Deployment], before: list[Deployment], text_of: Callable[[str], str | None]
                  ) -> list[VersionMove]:
    """The deployments of ``now`` (one file's) whose stated version differs from their counterpart's in ``before``
    (the same file earlier: at a git revision, as the editor opened or saved it), located at the word that writes
    the new version (``text_of``: a file's text now, to find where that word ends)."""
    moves: list[VersionMove] = []
    for deployment in now:
        fact = stated_version(deployment)
        counterpart = _counterpart(deployment, now, before) if fact is not None else None
        if fact is None or counterpart is None:
            continue
        old_fact = stated_version(counterpart)
        old_value = old_fact.value if old_fact is not None else None
        if old_value is not None and str(old_value) == str(fact.value):
            continue
        path, line, column = fact.source if fact.source is not None else (fact.path, fact.line, fact.column)
        line, column = int(line or 1), int(column or 1)
        moves.append(VersionMove(deployment, old_value, fact.value, str(path), line, column,
                                 _word_end(text_of(str(path)), line, column)))
    return moves


def _reads_changed_any(deployments: list[Deployment], changed: set[str]) -> bool:
    return any(f.path is not None and real_name(f.path) in changed for d in deployments for _, f in d.facts.items())


def _counterpart(deployment: Deployment, now: list[Deployment], before: list[Deployment]) -> Deployment | None:
    """The deployment at the base that is ``deployment`` now: same engine, same place among that engine's."""
    same = [d for d in now if d.engine == deployment.engine]
    then = [d for d in before if d.engine == deployment.engine]
    index = same.index(deployment)
    return then[index] if index < len(then) and len(then) == len(same) else None


def _old_deployments(display: str, kind: str, found: list[Changes],
                     engines: Registry) -> list[Deployment] | None:
    """The deployments of ``display`` as the file was at the base (``None``: it was not there)."""
    disk = DiskOpener(Reach((str(project_root(display)),)))
    opener = BaseOpener(found, disk)
    opened = opener.read(display)
    if opened.text is None:
        return None
    result: FileResult = read_file(opened.text, display, kind, opener)
    return engines.extract(result, opener, MAX_DEPLOYMENTS)


def _disk_text(path: str) -> str | None:
    from relialint.disk import read_text

    return read_text(Path(path), path)[0]


def _word_end(text: str | None, line: int, column: int) -> int:
    """The column just past the word that starts at ``column`` of ``line`` of ``text`` (the tag, the pin)."""
    lines = (text or "").split("\n")
    if not 0 < line <= len(lines):
        return column
    rest = lines[line - 1][column - 1:]
    return column + (len(rest.split(None, 1)[0]) if rest[:1].strip() else 0)


def lint_since(ref: str, paths: list[str], options: Options, registry: Registry | None = None) -> RunResult:
    """``check --since REF PATHS``: the run of ``check`` over the changed files of ``paths`` (exactly its output when
    no engine version moved), with the delta of each version move in ``run.changes``."""
    from relialint.run.lint import lint_paths

    found = changed_repositories(ref, paths)
    run = lint_paths(selected(paths, found), options, registry)
    run.changes = move_changes(version_moves(run, found, registry), ref, options, registry)
    return run


Upgrade = Callable[[str, "Request"], "UpgradeRun"]
"""The upgrade of one file (by its display path) as the shared delta gives it (``run.upgrade``): of the file on disk
(``check --since``), or of the editor's buffer (the language server)."""


def move_changes(moves: list[VersionMove], ref: str, options: Options, registry: Registry | None = None,
                 upgrade: Upgrade | None = None) -> list[Change]:
    """What each version move changes for its deployment, by the shared upgrade delta
    (:func:`relialint.run.upgrade.upgrade_paths` from the version at the base to the one now, over the deployment's
    file as it is now), as lines located on the version's line: the move itself, then each item (records entered
    or left, options refused or changed, variables unread or read, defaults flipped; a record that keeps applying
    is no change), then why anything is not checked."""
    from relialint.run.upgrade import Request, upgrade_paths

    def on_disk(display: str, request: Request) -> UpgradeRun:
        return upgrade_paths([display], options, request, registry)

    out: list[Change] = []
    groups: dict[tuple[str, str, str], list[VersionMove]] = {}
    for move in moves:
        groups.setdefault((move.deployment.path, str(move.old), str(move.new)), []).append(move)
    for (display, old, new), group in groups.items():
        upgraded = {}
        if group[0].old is not None:
            result = (upgrade or on_disk)(display, Request(new, old))
            upgraded = {(d.path, d.line, d.column): d for d in result.deployments}
        for move in group:
            span = move.deployment.span
            out.extend(_move_lines(move, upgraded.get((span.path, span.line, span.column)), ref,
                                   options.show_possible))
    return out


def _move_lines(move: VersionMove, upgrade: DeploymentUpgrade | None, ref: str, show_possible: bool
                ) -> list[Change]:
    span = move.deployment.span
    engine = upgrade.label if upgrade is not None else move.deployment.engine
    old = "unknown" if move.old is None else str(move.old)

    def line(kind: str, change: str, subject: str, certainty: str, severity: str | None, message: str,
             missing: list[str] | None = None, at: tuple[str, int, int] | None = None) -> Change:
        return Change(move.path, move.line, move.column, move.line, move.end_column, engine, old, str(move.new),
                      ref, kind, change, subject, certainty, severity, message, missing, at)

    service = f" ({move.deployment.name})" if move.deployment.name else ""
    where = f"the deployment at {span.path}:{span.line}:{span.column}{service}"
    if upgrade is None:
        return [line("version", "moved", str(move.new), "definite", None,
                     f"{where}: the file did not pin the engine version at {ref}, so what the move changes is not "
                     f"known; `relialint upgrade {span.path} --from VERSION --to {move.new}` says it for a version "
                     "you name")]
    items = [i for i in upgrade.items if i.change != "kept" and (i.shown or show_possible)]
    count = f"{len(items)} change{'s' if len(items) != 1 else ''}" if items else "no change the tables and " \
        "records know of"
    lines = [line("version", "moved", str(move.new), "definite", None, f"{count} for {where}")]
    for item in items:
        at = (item.path, item.line, item.column) if (item.path, item.line) != (move.path, move.line) else None
        subject = f"{item.subject}: " if item.kind == "record" else f"`{item.subject}`: "
        lines.append(line(item.kind, item.change, item.subject, item.certainty, item.severity,
                          f"{subject}{item.message}", list(item.missing_facts), at))
    lines.extend(line("note", "", "", "definite", None, note) for note in upgrade.notes)
    return lines
