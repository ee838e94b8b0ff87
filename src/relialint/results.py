"""The data of one run: what to lint against (targets, options) and what came out (findings, errors)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from relialint.deployment import Deployment
from relialint.readers.located import ReadError

SEVERITY_RANK = {"blocker": 3, "major": 2, "minor": 1}
GPU_FACT_HINT = "--gpu NAME"
# Facts the engine derives from its version when the config leaves them out: the version decides them.
VERSION_DEFAULTED = frozenset({"engine.v1", "engine.v2_model_runner", "prefix_caching.enabled",
                               "memory.gpu_utilization", "engine.ready_timeout_s", "attention.flashinfer_q_quant",
                               "attention.backend", "cuda_graphs.mode"})


@dataclass(repr=False, eq=False)
class Target:
    """Facts about where the deployment runs, given outside the files (command line, configuration)."""

    gpu: str | None = None
    engine_version: str | None = None
    os: str | None = None
    facts: dict[str, str] = field(default_factory=dict)
    origin: str = "cli"
    facts_file: Path | None = None
    """A facts file (``--facts``, ``facts = "FILE"``): read first, under the other fields of the target."""


@dataclass(repr=False, eq=False)
class Options:
    target: Target = field(default_factory=Target)
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    records_dirs: list[Path] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)
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


@dataclass
class Finding:
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

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.line, self.column, self.code, self.target or "")


@dataclass(repr=False, eq=False)
class Suppressed:
    """A finding that an inline ignore, a configured suppression or the baseline kept out of the report."""

    finding: Finding
    by: str  # "inline", "configuration", "baseline"
    reason: str
    where: str


@dataclass(repr=False, eq=False)
class RunResult:
    findings: list[Finding] = field(default_factory=list)
    errors: list[ReadError] = field(default_factory=list)
    warnings: list[ReadError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    deployments: list[Deployment] = field(default_factory=list)
    files: int = 0
    skipped: int = 0
    """Files named that are plainly another tool's configuration (a CI workflow, ``.pre-commit-config.yaml``)."""
    suppressed: list[Suppressed] = field(default_factory=list)
    rules: list[dict[str, Any]] = field(default_factory=list)
    """The public fields of every rule (record) that could report, for formatters that describe rules (SARIF)."""
    failing: int = 0
    """Findings at or above each file's fail level (``--fail-on``, ``--strict`` or configuration)."""
    policy: dict[int, tuple[int, bool]] = field(default_factory=dict, repr=False)
    show_possible: bool = False
    """The run lists every possible finding (``--show-possible``), not only the shown ones."""

    def listed(self) -> list[Finding]:
        """The findings a default view lists: definite ones and possible ones the deployment points at."""
        return [f for f in self.findings if f.shown or self.show_possible]

    def counted(self) -> list[Finding]:
        """The possible findings that are counted, not listed."""
        return [f for f in self.findings if not (f.shown or self.show_possible)]


class UsageError(ValueError):
    """Bad options (unknown GPU, bad fact): exit 2 before anything is linted."""
