"""One probe: captures (or NVML) -> host facts -> runtime findings, as a ``RunResult`` the formatters print."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from relialint.core.results import SEVERITY_RANK, RunResult
from relialint.probe.host import HostFacts, build
from relialint.probe.reading import Capture

FAIL_RANK = {**SEVERITY_RANK, "never": 99}


@dataclass(repr=False, eq=False)
class ProbeOptions:
    files: list[Path] = field(default_factory=list)
    duration: float = 0.0
    interval: float = 1.0
    facts: dict[str, str] = field(default_factory=dict)
    """Facts given with ``--fact`` (what no counter reads, such as ``host.psu_offline``)."""
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    fail_on: str = "major"
    strict: bool = False
    show_possible: bool = False


def captures(options: ProbeOptions, nvml: Any = None) -> list[Capture]:
    """The captures of the files, in the order given, or one NVML capture of this host."""
    if options.files:
        from relialint.probe.sources import read_file

        return [read_file(path) for path in options.files]
    from relialint.probe import nvml as live

    return [live.read(options.duration, options.interval, nvml)]


def probe(options: ProbeOptions, nvml: Any = None) -> tuple[HostFacts, RunResult]:
    """Read, build the host's facts, evaluate the runtime triggers; raises ``UsageError`` for a bad ``--fact``
    and ``NvmlUnavailable`` when there are no files and NVML cannot be used."""
    from relialint.core.results import Target
    from relialint.run.lint import Options, load_records
    from relialint.run.runtime_findings import findings, host_deployment
    from relialint.run.targets import target_facts

    given = target_facts(Target(facts=options.facts))
    read = captures(options, nvml)
    run = RunResult(files=len(options.files), show_possible=options.show_possible)
    for capture in read:
        run.errors.extend(capture.errors)
        run.notes.extend(capture.notes)
    host = build(read, live=not options.files)
    run.notes.extend(host.notes)
    records, errors = load_records(Options())
    run.errors.extend(errors)
    deployment = host_deployment(host, given, run.notes)
    run.deployments.append(deployment)
    if host.gpus:
        run.findings = findings(deployment, records, options.select, options.ignore)
    from relialint.run.lint import rule_table
    from relialint.run.runtime_findings import runtime_records

    run.rules = rule_table(runtime_records(records))
    level = FAIL_RANK[options.fail_on]
    run.failing = sum(1 for f in run.findings if SEVERITY_RANK[f.severity] >= level
                      and (f.certainty == "definite" or options.strict))
    run.notes = list(dict.fromkeys(run.notes))
    return host, run
