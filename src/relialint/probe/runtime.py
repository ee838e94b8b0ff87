"""The records' runtime triggers over a host's facts: what ``relialint probe`` reports.

A record's ``runtime_trigger`` is evaluated here, never by ``check``: the probe's host is one deployment (engine
``host``) whose facts are the probe's, and ``findings.evaluate`` runs each runtime trigger as the record's trigger.
"""

from __future__ import annotations

from typing import Any

from relialint.deployment import Deployment
from relialint.facts import Fact
from relialint.findings import evaluate, selected
from relialint.probe.host import HostFacts
from relialint.readers.located import Span
from relialint.results import Finding
from relialint.targets import apply_target


def runtime_records(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each record with a runtime trigger, as a record whose trigger is that runtime trigger."""
    return [{**r, "trigger": r["runtime_trigger"]} for r in records
            if r.get("runtime_trigger") and r.get("status") != "withdrawn"]


def host_deployment(host: HostFacts, given: dict[str, Fact], notes: list[str]) -> Deployment:
    deployment = Deployment(engine="host", kind="probe", span=Span(host.path, 1, 1, 1, 1), facts=host.facts)
    deployment.facts.closed.add("bench.")
    apply_target(deployment, given, notes)
    return deployment


def findings(deployment: Deployment, records: list[dict[str, Any]], select: list[str] | None = None,
             ignore: list[str] | None = None) -> list[Finding]:
    found = evaluate(deployment, runtime_records(records))
    return sorted((f for f in found if selected(f.code, select or [], ignore or [])), key=Finding.sort_key)
