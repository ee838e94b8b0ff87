"""The data of one run: what to lint against (targets, options) and what came out (findings, errors)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from relialint.base.errors import UsageError as UsageError  # bad options (unknown GPU, bad fact): where lint imports it
from relialint.base.plain import Fields
from relialint.core.deployment import Deployment
from relialint.readers.located import ReadError

SEVERITY_RANK = {"blocker": 3, "major": 2, "minor": 1}
GPU_FACT_HINT = "--gpu NAME"
# Facts the engine derives from its version when the config leaves them out: the version decides them.
VERSION_DEFAULTED = frozenset({"engine.v1", "engine.v2_model_runner", "prefix_caching.enabled",
                               "memory.gpu_utilization", "engine.ready_timeout_s", "attention.flashinfer_q_quant",
                               "attention.backend", "cuda_graphs.mode"})


class Target:
    """Facts about where the deployment runs, given outside the files (command line, configuration)."""

    gpu: str | None = None
    engine_version: str | None = None
    os: str | None = None
    facts: dict[str, str]
    origin: str = "cli"
    facts_file: Path | None = None
    """A facts file (``--facts``, ``facts = "FILE"``): read first, under the other fields of the target."""

    def __init__(self, gpu: str | None = None, engine_version: str | None = None, os: str | None = None,
                 facts: dict[str, str] | None = None, origin: str = "cli", facts_file: Path | None = None) -> None:
        self.gpu = gpu
        self.engine_version = engine_version
        self.os = os
        self.facts = {} if facts is None else facts
        self.origin = origin
        self.facts_file = facts_file


class Options:
    target: Target
    select: list[str]
    ignore: list[str]
    records_dirs: list[Path]
    targets: list[Target]
    """Several targets (``--gpu H100 --gpu B200``): each file is evaluated once per target."""
    config_file: Path | None = None
    """An explicit configuration file; ``None``: the nearest to each linted file."""
    isolated: bool = False
    """No configuration at all."""
    inline_ignores: bool = True
    baseline: Path | None = None
    fail_on: str | None = None
    strict: bool | None = None
    show_possible: bool = False
    """List every possible finding, not only those the deployment points at."""
    follow_outside: bool | None = None
    """Read files outside the project root that linted files name or symlink to (``None``: as configured, else
    not; ``reach``)."""

    def __init__(self, target: Target | None = None, select: list[str] | None = None, ignore: list[str] | None = None,
                 records_dirs: list[Path] | None = None, targets: list[Target] | None = None,
                 config_file: Path | None = None, isolated: bool = False, inline_ignores: bool = True,
                 baseline: Path | None = None, fail_on: str | None = None, strict: bool | None = None,
                 show_possible: bool = False, follow_outside: bool | None = None) -> None:
        self.target = Target() if target is None else target
        self.select = [] if select is None else select
        self.ignore = [] if ignore is None else ignore
        self.records_dirs = [] if records_dirs is None else records_dirs
        self.targets = [] if targets is None else targets
        self.config_file = config_file
        self.isolated = isolated
        self.inline_ignores = inline_ignores
        self.baseline = baseline
        self.fail_on = fail_on
        self.strict = strict
        self.show_possible = show_possible
        self.follow_outside = follow_outside


class Finding(Fields):
    code: str
    slug: str
    title: str
    severity: str
    certainty: str
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    message: str
    missing_facts: list[str]
    fix: str
    url: str
    target: str | None = None
    """The target a finding is for, when a run has several (``--gpu H100 --gpu B200``)."""
    about: str | None = None
    """The fact the finding points at (``serve.dtype``): with ``service`` the baseline key, never the line."""
    service: str | None = None
    shown: bool = True
    """Listed by the default text view: definite, or possible with a condition the deployment itself states."""

    _fields = ("code", "slug", "title", "severity", "certainty", "path", "line", "column", "end_line", "end_column",
               "message", "missing_facts", "fix", "url", "target", "about", "service", "shown")

    def __init__(self, code: str, slug: str, title: str, severity: str, certainty: str, path: str, line: int,
                 column: int, end_line: int, end_column: int, message: str, missing_facts: list[str], fix: str,
                 url: str, target: str | None = None, about: str | None = None, service: str | None = None,
                 shown: bool = True) -> None:
        self.code = code
        self.slug = slug
        self.title = title
        self.severity = severity
        self.certainty = certainty
        self.path = path
        self.line = line
        self.column = column
        self.end_line = end_line
        self.end_column = end_column
        self.message = message
        self.missing_facts = missing_facts
        self.fix = fix
        self.url = url
        self.target = target
        self.about = about
        self.service = service
        self.shown = shown

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.line, self.column, self.code, self.target or "")


class Suppressed:
    """A finding that an inline ignore, a configured suppression or the baseline kept out of the report."""

    finding: Finding
    by: str  # "inline", "configuration", "baseline"
    reason: str
    where: str

    def __init__(self, finding: Finding, by: str, reason: str, where: str) -> None:
        self.finding = finding
        self.by = by
        self.reason = reason
        self.where = where


class RunResult:
    findings: list[Finding]
    errors: list[ReadError]
    warnings: list[ReadError]
    notes: list[str]
    deployments: list[Deployment]
    files: int = 0
    skipped: int = 0
    """Files named that are plainly another tool's configuration (a CI workflow, ``.pre-commit-config.yaml``)."""
    suppressed: list[Suppressed]
    rules: list[dict[str, Any]]
    """The public fields of every rule (record) that could report, for formatters that describe rules (SARIF)."""
    failing: int = 0
    """Findings at or above each file's fail level (``--fail-on``, ``--strict`` or configuration)."""
    policy: dict[int, tuple[int, bool]]
    owners: dict[int, Deployment]
    """The deployment each finding of a linted file is about, by the finding's ``id`` (``relialint upgrade`` pairs
    the findings of two runs deployment by deployment, wherever a finding is located: an env file, a --config)."""
    show_possible: bool = False
    """The run lists every possible finding (``--show-possible``), not only the shown ones."""
    looked_at: list[tuple[str, str, str, int]]
    """Each file linted: its path, its kind, what it holds in words (``readers.summary``) and how many deployments
    were found in it (``relialint facts`` says what it saw where it found none)."""

    def __init__(self, findings: list[Finding] | None = None, errors: list[ReadError] | None = None,
                 warnings: list[ReadError] | None = None, notes: list[str] | None = None,
                 deployments: list[Deployment] | None = None, files: int = 0, skipped: int = 0,
                 suppressed: list[Suppressed] | None = None, rules: list[dict[str, Any]] | None = None,
                 failing: int = 0, policy: dict[int, tuple[int, bool]] | None = None,
                 show_possible: bool = False) -> None:
        self.looked_at = []
        self.findings = [] if findings is None else findings
        self.errors = [] if errors is None else errors
        self.warnings = [] if warnings is None else warnings
        self.notes = [] if notes is None else notes
        self.deployments = [] if deployments is None else deployments
        self.files = files
        self.skipped = skipped
        self.suppressed = [] if suppressed is None else suppressed
        self.rules = [] if rules is None else rules
        self.failing = failing
        self.policy = {} if policy is None else policy
        self.owners = {}
        self.show_possible = show_possible

    def listed(self) -> list[Finding]:
        """The findings a default view lists: definite ones and possible ones the deployment points at."""
        return [f for f in self.findings if f.shown or self.show_possible]

    def counted(self) -> list[Finding]:
        """The possible findings that are counted, not listed."""
        return [f for f in self.findings if not (f.shown or self.show_possible)]

