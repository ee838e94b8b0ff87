"""One run of the linter: paths -> readers -> engines -> target facts -> evaluate -> suppress -> findings.

The stages live in their own modules (``files``, ``targets``, ``findings``, ``suppress``); this module runs them
over a set of files with their configuration. Names of the stages are re-exported for callers of ``lint``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relialint import record_url
from relialint.core.deployment import Deployment
from relialint.core.evaluator import Evaluator
from relialint.core.facts import Fact
from relialint.core.findings import evaluate, selected
from relialint.core.results import SEVERITY_RANK, Finding, Options, RunResult, Suppressed, Target, UsageError
from relialint.disk import read_text
from relialint.readers.located import FileResult, ReadError, lone_surrogate
from relialint.readers.opener import FileOpener
from relialint.run.files import READER_MODULES, DiskOpener, Reader, discover, read_file, reader, readers
from relialint.run.reach import Reach
from relialint.run.targets import apply_target, finish, shared_memory, target_facts

if TYPE_CHECKING:
    from relialint.engines.registry import Registry

__all__ = [
    "READER_MODULES", "SEVERITY_RANK", "Finding", "Options", "Reader", "RunResult", "Suppressed", "Target",
    "UsageError", "apply_target", "discover", "evaluate", "finish", "lint_file_result", "lint_paths", "lint_text",
    "load_records", "read_file", "reader", "readers", "selected", "shared_memory", "target_facts",
]

MAX_DEPLOYMENTS = 256
"""The most deployments of one file that are evaluated; past it a warning says the rest were not linted."""
TOO_MANY_DEPLOYMENTS = (f"more than {MAX_DEPLOYMENTS} deployments in one file; from here on they are not linted")

# -- the run --------------------------------------------------------------------------------------------------------


Records = tuple[list[dict[str, Any]], list[ReadError]]
"""The loaded records and the problems of loading them (``load_records``)."""


Reads = dict[tuple[str, str], tuple[str, FileResult]]
"""Files read by a run: (name shown, kind) -> (the text, what its reader made of it)."""


def load_records(options: Options) -> Records:
    from relialint.kb.loader import compiled, shipped_dir

    records, problems = compiled([shipped_dir(), *options.records_dirs])
    errors = [ReadError(p.path, p.line, p.column, f"{p.code} {p.message}") for p in problems]
    return records, errors


Pin = Callable[[Deployment, "Registry"], None]
"""What ``relialint upgrade`` does to each deployment before its target facts and defaults: set the version the
deployment runs on one side of the upgrade (:mod:`relialint.run.upgrade`)."""


def _evaluate_file(result: FileResult, given: dict[str, Fact], records: list[dict[str, Any]], select: list[str],
                   ignore: list[str], notes: list[str], evaluator: Evaluator, opener: FileOpener,
                   registry: Registry | None = None, pin: Pin | None = None
                   ) -> tuple[list[Deployment], list[tuple[Finding, Deployment]]]:
    """The deployments of one read file (by the engines of ``registry``, else those relialint ships) and their
    findings; ``pin``: called on each deployment before anything else is applied to it."""
    from relialint.engines.registry import default_registry

    engines = registry if registry is not None else default_registry()
    deployments = engines.extract(result, opener, MAX_DEPLOYMENTS + 1)
    if len(deployments) > MAX_DEPLOYMENTS:
        # a generated or hostile file: the first deployments are linted, the rest said to be left out, never a
        # run that takes minutes
        first = deployments[MAX_DEPLOYMENTS]
        warning = ReadError(first.path, first.span.line, first.span.column, TOO_MANY_DEPLOYMENTS, "warning")
        if warning not in result.errors:  # once, however many targets the file is evaluated for
            result.errors.append(warning)
        del deployments[MAX_DEPLOYMENTS:]
    if any(command.gpu_labels for command in result.commands):
        from relialint.engines import manifest_facts

        manifest_facts.apply(result, deployments)
    for deployment in deployments:
        engine = engines.get(deployment.engine)
        if engine is None or engine.takes_version:  # bench.* facts are a benchmark's: unset on an engine
            deployment.facts.closed.add("bench.")
        if pin is not None:
            pin(deployment, engines)
        apply_target(deployment, given, notes, engines)
        finish(deployment, engines)
    shared_memory(deployments, engines)
    found: list[tuple[Finding, Deployment]] = []
    for deployment in deployments:
        notes.extend(f"{deployment.path}:{deployment.span.line}: {n}" for n in deployment.notes)
        for finding in evaluate(deployment, records, engines.get(deployment.engine), evaluator):
            if selected(finding.code, select, ignore):
                found.append((finding, deployment))
    return deployments, found


def lint_file_result(result: FileResult, given: dict[str, Fact], records: list[dict[str, Any]],
                     options: Options, run: RunResult, registry: Registry | None = None,
                     opener: FileOpener | None = None, evaluator: Evaluator | None = None) -> None:
    """Lint one read file with the given target facts only (no configuration, no suppressions); ``registry``: the
    engines (default: those relialint ships). The files its deployments name are read through ``opener``; without
    one, from the disk within the file's project root. ``evaluator``: the memo of the run (one for this file alone
    when none is given)."""
    if result.kind == "skipped":
        run.skipped += 1
    deployments, found = _evaluate_file(result, given, records, options.select, options.ignore, run.notes,
                                        evaluator if evaluator is not None else Evaluator(),
                                        DiskOpener() if opener is None else opener, registry)
    for error in result.errors:
        (run.warnings if error.severity == "warning" else run.errors).append(error)
    run.findings.extend(f for f, _ in found)
    run.deployments.extend(deployments)


def lint_paths(paths: list[str], options: Options, registry: Registry | None = None, pin: Pin | None = None,
               evaluator: Evaluator | None = None, records: Records | None = None, reads: Reads | None = None
               ) -> RunResult:
    """Lint files and directories; ``registry``: the engines (default: those relialint ships); ``pin``: sets each
    deployment's version first (``relialint upgrade``); ``evaluator`` and ``records``: the memo and the loaded records
    (with their load errors) of another run over the same files, shared (the two sides of an upgrade: a judgement
    that reads nothing the version changes is made once), else the run's own; ``reads``: the files another run read,
    by name and kind with their text, reused where the text is the same (a read file is not changed by linting)."""
    session = Session(options, paths, registry, evaluator, pin, records)
    files, errors = discover(paths, session.reach_for)
    for problem in errors:
        (session.run.warnings if problem.severity == "warning" else session.run.errors).append(problem)
    results: list[tuple[Path, FileResult, FileOpener]] = []
    for path, display, kind in files:
        if session.excluded(path):
            continue
        session.run.files += 1
        text, error = read_text(path, display)
        if error is not None or text is None:
            session.run.errors.append(error or ReadError(display, 1, 1, "could not be read"))
            continue
        try:
            opener = session.opener_for(path)  # one per file: its reader and its engine models read through it
            known = reads.get((display, kind)) if reads is not None else None
            result = known[1] if known is not None and known[0] == text else read_file(text, display, kind, opener)
            if reads is not None:
                reads[(display, kind)] = (text, result)
            results.append((path, result, opener))
        except (Exception, RecursionError, MemoryError) as exc:
            session.run.errors.append(internal_error(display, exc))
    # A Dockerfile or env file that another file of the run builds or loads (compose `build:`, `env_file:`,
    # systemd `EnvironmentFile=`) is linted as part of that deployment, not again as a deployment of its own.
    used = {os.path.realpath(u) for _, result, _ in results for u in result.used_files}
    for path, result, opener in results:
        if result.kind in ("dockerfile", "env") and os.path.realpath(path) in used:
            session.run.errors.extend(e for e in result.errors if e.severity != "warning")
            continue
        session.lint_guarded(result, path, opener)
    return session.finish()


def internal_error(display: str, exc: BaseException) -> ReadError:
    """An unexpected exception while linting one file, as a located error of that file (exit 2; the other files
    are still linted and reported)."""
    return ReadError(display, 1, 1, f"internal error while linting this file ({type(exc).__name__}); it was not "
                                    "linted, the other files were. Please report it with this file")


OpenerOver = Callable[[FileOpener], FileOpener]
"""An opener built over the run's disk opener (the language server's, which serves the editor's unsaved
buffers first); it keeps the run's limits."""


def lint_text(text: str, display: str, kind: str, options: Options, evaluator: Evaluator | None = None,
              over: OpenerOver | None = None, registry: Registry | None = None, pin: Pin | None = None) -> RunResult:
    """Lint a buffer as if it were the file ``display`` (stdin, editors). ``evaluator``: the memo of whoever lints
    buffer after buffer (the language server keeps one); a run of its own when none is given. The files it names
    are read through the run's disk opener, or the opener ``over`` builds over it. ``registry``: the engines
    (default: those relialint ships); ``pin``: as for ``lint_paths`` (an upgrade of a buffer)."""
    session = Session(options, [display], registry, evaluator, pin)
    session.run.files = 1
    bad = lone_surrogate(text, display)
    if bad is not None:
        session.run.errors.append(bad)
        return session.finish()
    opener = session.opener_for(Path(display))
    if over is not None:
        opener = over(opener)
    try:
        result = read_file(text, display, kind, opener)
    except (Exception, RecursionError, MemoryError) as exc:
        session.run.errors.append(internal_error(display, exc))
        return session.finish()
    session.lint_guarded(result, Path(display), opener)
    return session.finish()


# -- configuration, targets and suppressions over one run -----------------------------------------------------------

FAIL_RANK = {**SEVERITY_RANK, "never": 99}
_HARDWARE_KEYS = ("gpu.model", "gpu.vendor", "gpu.sm", "gpu.arch", "gpu.native_fp8", "gpu.native_fp4",
                  "gpu.memory_gb", "gpu.cc_capable", "gpu.candidates")


def _has_target(target: Target) -> bool:
    return bool(target.gpu or target.engine_version or target.os or target.facts or target.facts_file)


def _over(base: dict[str, Fact], top: dict[str, Fact]) -> dict[str, Fact]:
    """``top`` over ``base``; a GPU in ``top`` replaces every hardware fact of ``base``."""
    if "gpu.model" in top:
        base = {k: v for k, v in base.items() if k not in _HARDWARE_KEYS}
    return {**base, **top}


def rule_table(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The public fields of every record that can report, and of the suppression checks (RL001-RL004)."""
    from relialint.run.suppress import META_RULES

    rules = [dict(rule) for rule in META_RULES]
    for record in records:
        if not record.get("trigger") or record.get("status") == "withdrawn":
            continue
        rules.append({"id": record["id"], "slug": record["slug"], "title": record["title"],
                      "summary": str(record.get("summary") or "").strip(), "fix": str(record.get("fix") or "").strip(),
                      "severity": record["severity"], "impact": record.get("impact") or "",
                      "engines": list(record.get("engines") or []), "url": record_url(record["id"])})
    return sorted(rules, key=lambda r: str(r["id"]))


class _Configured:
    """Use of one ``[[tool.relialint.suppress]]`` entry across the run."""

    path: str
    line: int
    column: int
    record: str
    expired: bool
    policy: tuple[int, bool]
    applied_to_a_file: bool = False
    used: bool = False

    def __init__(self, path: str, line: int, column: int, record: str, expired: bool, policy: tuple[int, bool],
                 applied_to_a_file: bool = False, used: bool = False) -> None:
        self.path = path
        self.line = line
        self.column = column
        self.record = record
        self.expired = expired
        self.policy = policy
        self.applied_to_a_file = applied_to_a_file
        self.used = used


class Session:
    """One run across files: records, configuration per file, targets, suppressions and the baseline."""

    def __init__(self, options: Options, paths: list[str], registry: Registry | None = None,
                 evaluator: Evaluator | None = None, pin: Pin | None = None, records: Records | None = None) -> None:
        from relialint.run import suppress
        from relialint.run.reach import project_root

        self.options = options
        self.registry = registry
        self.pin = pin
        """Sets each deployment's version before its facts are finished (``relialint upgrade``), or ``None``."""
        self.evaluator = evaluator if evaluator is not None else Evaluator()
        """The memo of the run: judgements over worlds, shared by every file and target of it (never by another
        run)."""
        roots = tuple(dict.fromkeys(str(project_root(p)) for p in paths))
        self.reaches = {False: Reach(roots), True: Reach(roots, True)}
        """The limits on the files read beyond those named (``reach``): inside the project roots of the paths named,
        or anywhere (``--follow-outside``)."""
        self.records, record_errors = records if records is not None else load_records(options)
        self.run = RunResult(errors=list(record_errors), show_possible=options.show_possible)
        self.run.rules = rule_table(self.records)
        targets = [t for t in options.targets if _has_target(t)] or [options.target]
        self.cli_targets = [(t.gpu or f"target {i + 1}" if len(targets) > 1 else None, target_facts(t))
                            for i, t in enumerate(targets)]
        self.configured: dict[tuple[str, int], _Configured] = {}
        self._targets: dict[tuple[Any, ...], dict[str, Fact]] = {}
        self.linted: list[str] = []
        from relialint.run.config import Finder

        self.finder = Finder(options.config_file, options.isolated)
        self.baseline: suppress.Baseline | None = None
        baseline = options.baseline
        if baseline is None:
            # `baseline = "..."` in the configuration of the working directory, once the file exists
            here = self.finder.config_for(Path.cwd() / ".")
            if here is not None and here.settings.baseline:
                candidate = here.root / here.settings.baseline
                baseline = candidate if candidate.is_file() else None
        if baseline is not None:
            try:
                self.baseline = suppress.load_baseline(baseline)
            except suppress.BaselineError as exc:
                raise UsageError(str(exc)) from exc

    def _configured_facts(self, spec: Any) -> dict[str, Fact]:
        """A configured target as facts, made once per run (every file under one configuration shares its targets).
        A facts file that cannot be used is an error of its own, reported once where the file goes wrong; the
        files are linted with the rest of the target."""
        from relialint.run import config
        from relialint.run.targets import FactsFileError

        facts = {k: config.fact_text(v) for k, v in spec.facts.items()}
        key = (spec.gpu, spec.engine_version, spec.os, tuple(facts.items()), spec.facts_file)
        found = self._targets.get(key)
        if found is None:
            target = Target(spec.gpu, spec.engine_version, spec.os, facts, origin="configuration",
                            facts_file=Path(spec.facts_file) if spec.facts_file else None)
            try:
                found = target_facts(target)
            except FactsFileError as exc:
                self.run.errors.append(ReadError(exc.path, exc.line, exc.column, f"{exc.message} (a facts file "
                                                 "the configuration names; its facts are not used)"))
                target.facts_file = None
                found = target_facts(target)
            self._targets[key] = found
        return found

    def _config(self, file: Path) -> Any:
        return self.finder.config_for(file)

    def reach_for(self, file: Path) -> Reach:
        """The limit on the files read for ``file``: the run's project roots; outside them only with
        ``--follow-outside`` or, without ``--[no-]follow-outside``, ``follow-outside = true`` in its configuration."""
        follow = self.options.follow_outside
        if follow is None:
            found = self._config(file)
            follow = bool(found is not None and found.settings.follow_outside)
        return self.reaches[follow]

    def opener_for(self, file: Path) -> FileOpener:
        """The opener for the files that ``file`` names: the disk, within ``reach_for(file)``."""
        return DiskOpener(self.reach_for(file))

    def excluded(self, file: Path) -> bool:
        found = self._config(file)
        return bool(found is not None and found.excluded(file))

    def _policy(self, fail_on: str | None, strict: bool | None) -> tuple[int, bool]:
        level = self.options.fail_on or fail_on or "major"
        return FAIL_RANK[level], self.options.strict if self.options.strict is not None else bool(strict)

    def _keep(self, finding: Finding, policy: tuple[int, bool]) -> None:
        self.run.findings.append(finding)
        self.run.policy[id(finding)] = policy

    def _meta(self, problem: Any, policy: tuple[int, bool], select: list[str], ignore: list[str]) -> None:
        from relialint.run.suppress import META_RULES

        del select  # the suppression checks run whatever is selected; only --ignore RL00x turns them off
        if any(problem.code.startswith(i) for i in ignore):
            return
        rule = next(r for r in META_RULES if r["id"] == problem.code)
        self._keep(Finding(
            code=problem.code, slug=str(rule["slug"]), title=str(rule["title"]), severity=str(rule["severity"]),
            certainty="definite", path=problem.path, line=problem.line, column=problem.column,
            end_line=problem.line, end_column=max(problem.end_column, problem.column), message=problem.message,
            missing_facts=[], fix=str(rule["fix"]), url=str(rule["url"]), about="relialint"), policy)

    def _directive_facts(self, directives: Any, path: str, problems: list[Any]) -> dict[str, Fact]:
        from relialint.base.plain import replace
        from relialint.run.suppress import INVALID_DIRECTIVE, Problem

        out: dict[str, Fact] = {}
        for d in directives.facts:
            target = Target(origin="directive")
            if d.key == "gpu":
                target.gpu = d.value
            elif d.key == "engine-version":
                target.engine_version = d.value
            elif d.key == "os":
                target.os = d.value
            else:
                target.facts = {d.key: d.value}
            try:
                facts = target_facts(target)
            except UsageError as exc:
                problems.append(Problem(INVALID_DIRECTIVE, path, d.line, d.column, d.column, f"directive: {exc}"))
                continue
            located = {k: replace(v, path=path, line=d.line, column=d.column, end_line=d.line,
                                  end_column=d.column, note="from a relialint directive") for k, v in facts.items()}
            out = _over(out, located)
        return out

    def lint_guarded(self, result: FileResult, file: Path, opener: FileOpener | None = None) -> None:
        """``lint`` with the last-resort handler: an unexpected exception is an internal error of this file."""
        findings, suppressed = len(self.run.findings), len(self.run.suppressed)
        try:
            self.lint(result, file, self.opener_for(file) if opener is None else opener)
        except (Exception, RecursionError, MemoryError) as exc:
            del self.run.findings[findings:], self.run.suppressed[suppressed:]
            self.run.errors.append(internal_error(result.path, exc))

    def lint(self, result: FileResult, file: Path, opener: FileOpener) -> None:
        from relialint.readers import summary
        from relialint.run import config, suppress

        options, run = self.options, self.run
        cfg = self._config(file)
        eff = config.effective(cfg, file)
        select = options.select or eff.select
        ignore = [*eff.ignore, *options.ignore]
        policy = self._policy(eff.fail_on, eff.strict)
        self.linted.append(result.path)
        if result.kind == "skipped":
            run.skipped += 1
            run.looked_at.append((result.path, result.kind, summary.describe(result), 0))
            return

        # the targets: configuration below the command line, directives in the file above both
        configured = [(t.label() if len(eff.targets) > 1 else None, self._configured_facts(t)) for t in eff.targets]
        if len(self.cli_targets) > 1:
            combos = [(label, _over(configured[0][1], given)) for label, given in self.cli_targets]
        elif "gpu.model" in self.cli_targets[0][1]:
            combos = [(None, _over(configured[0][1], self.cli_targets[0][1]))]
        else:
            combos = [(label, _over(given, self.cli_targets[0][1])) for label, given in configured]
        directives = suppress.parse(result.text, result.kind, result.path)
        problems = list(directives.problems)
        from_directives = self._directive_facts(directives, result.path, problems)
        if from_directives:
            combos = [(label, _over(given, from_directives)) for label, given in combos]

        found: list[tuple[Finding, Deployment]] = []
        for index, (label, given) in enumerate(combos):
            deployments, hits = _evaluate_file(result, given, self.records, select, ignore, run.notes,
                                               self.evaluator, opener, self.registry, self.pin)
            for finding, _ in hits:
                finding.target = label
            found.extend(hits)
            if index == 0:
                run.deployments.extend(deployments)
                run.looked_at.append((result.path, result.kind, summary.describe(result), len(deployments)))
        for error in result.errors:  # after extraction, which may add a warning (too many deployments)
            (run.warnings if error.severity == "warning" else run.errors).append(error)

        entries = []
        for number, entry in eff.suppressions if cfg is not None else ():  # (suppressions come from a config)
            key = (str(cfg.path), number)
            state = self.configured.get(key)
            if state is None:
                line, column = cfg.locate("suppress", number, "record")
                state = self.configured[key] = _Configured(
                    str(cfg.path), line, column, entry.record, suppress.expired(entry.expires),
                    self._policy(cfg.settings.fail_on, cfg.settings.strict))
            state.applied_to_a_file = True
            entries.append((state, entry))
        for finding, deployment in found:
            if options.inline_ignores:
                hit = suppress.apply_inline(directives, finding.code, finding.line, deployment.span.line)
                if hit is not None:
                    run.suppressed.append(Suppressed(finding, "inline", hit.reason, f"{result.path}:{hit.line}"))
                    continue
            for state, entry in entries:
                if not state.expired and finding.code.startswith(entry.record):
                    state.used = True
                    run.suppressed.append(Suppressed(finding, "configuration", entry.reason,
                                                     f"{state.path}:{state.line}"))
                    break
            else:
                self._keep(finding, policy)
                run.owners[id(finding)] = deployment
        if options.inline_ignores:
            problems.extend(suppress.unused_inline(directives, result.path, lambda c: selected(c, select, ignore)))
        for problem in problems:
            self._meta(problem, policy, select, ignore)

    def finish(self) -> RunResult:
        from relialint.run import suppress

        run, options = self.run, self.options
        for state in self.configured.values():
            if not state.applied_to_a_file:
                continue
            if state.expired:
                message = (f"the suppression of {state.record} has expired and no longer applies; fix the findings "
                           "or renew it with a new reason and date")
                code = suppress.EXPIRED_IGNORE
            elif not state.used and selected(state.record, options.select, options.ignore):
                message = f"the suppression of {state.record} matched no finding in the files linted; remove it"
                code = suppress.UNUSED_IGNORE
            else:
                continue
            self._meta(suppress.Problem(code, state.path, state.line, state.column, state.column, message),
                       state.policy, options.select, options.ignore)
        if self.baseline is not None:
            folder = self.baseline.folder()
            kept: list[Finding] = []
            for finding in run.findings:
                key = suppress.baseline_key(folder, finding.code, finding.path, finding.about, finding.service,
                                            finding.target)
                entry = suppress.match_baseline(self.baseline, key)
                if entry is None:
                    kept.append(finding)
                else:
                    run.suppressed.append(Suppressed(finding, "baseline", "in the baseline",
                                                     f"{self.baseline.path}:{entry.line}"))
            run.findings = kept
            linted = {suppress.relative_to(folder, p) for p in self.linted}
            policy = self._policy(None, None)
            for problem in suppress.stale_entries(self.baseline, linted):
                self._meta(problem, policy, [], [])
        run.notes = list(dict.fromkeys(run.notes))
        run.findings.sort(key=Finding.sort_key)
        run.suppressed.sort(key=lambda s: s.finding.sort_key())
        run.errors.sort(key=lambda e: (e.path, e.line, e.column))
        run.failing = sum(1 for f in run.listed() if SEVERITY_RANK[f.severity] >= run.policy[id(f)][0]
                          and (f.certainty == "definite" or run.policy[id(f)][1]))
        return run
