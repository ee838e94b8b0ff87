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
    chosen = runtime_records(records)
    found = evaluate(deployment, chosen, None)  # the host runs no engine: no version worlds
    locate = {r["id"]: r["trigger"].get("locate") or [] for r in chosen}
    triggers = {r["id"]: r["trigger"] for r in chosen}
    for finding in found:
        if finding.certainty == "possible":
            finding.message = possible_message(finding, deployment)
            finding.shown = _read_points(triggers[finding.code]["when"], deployment, True)
        _relocate(finding, deployment, locate.get(finding.code, []))
    return sorted((f for f in found if selected(f.code, select or [], ignore or [])), key=Finding.sort_key)


def _read_points(pred: Any, deployment: Deployment, positive: bool) -> bool:
    """Whether a condition of the trigger holds on something the probe read (a reason seen active): then a possible
    finding is shown, as one that a file points at is by ``check``."""
    from relialint.evaluate import eval_leaf

    if "all" in pred or "any" in pred:
        return any(_read_points(p, deployment, positive) for p in pred.get("all") or pred.get("any"))
    if "not" in pred:
        return _read_points(pred["not"], deployment, not positive)
    fact = deployment.facts.get(str(pred.get("fact")))
    return fact is not None and fact.origin == "probe" and eval_leaf(pred, deployment.facts).value is positive


def _relocate(finding: Finding, deployment: Deployment, keys: list[str]) -> None:
    """Point at the reading that decided the finding, in whichever capture it was read (the evaluator locates only
    facts of the deployment's own file, and a probe reads several)."""
    for key in keys:
        fact = deployment.facts.facts.get(key)
        if fact is not None and fact.path is not None and fact.line is not None:
            finding.path, finding.line, finding.column = fact.path, fact.line, fact.column or 1
            finding.end_line, finding.end_column = fact.end_line or fact.line, fact.end_column or finding.column
            finding.about = key
            return


def possible_message(finding: Finding, deployment: Deployment) -> str:
    """A possible runtime finding says what the capture could not show and how to show it, never the trigger's
    message, whose figures describe a condition that was not seen."""
    from relialint.probe.host import LOAD_ONLY

    missing = finding.missing_facts
    load = deployment.facts.get("runtime.load_seen")
    idle_only = load is not None and load.value is False
    ways = []
    if idle_only and any(m in LOAD_ONLY for m in missing):
        ways.append("an idle snapshot cannot show a load-only condition: probe again while the GPU serves, with "
                    "--duration S to sample a window")
    elif any(m.startswith("runtime.") and m != "runtime.clocks_locked" for m in missing):
        ways.append("the capture does not read these counters: probe again with them")
    if "runtime.clocks_locked" in missing:
        ways.append("no counter reads a clock lock: a capture of the idle GPU shows free-running clocks as a parked "
                    "SM clock")
    stated = [m for m in missing if not m.startswith("runtime.")]
    if "runtime.clocks_locked" in missing:
        stated.append("runtime.clocks_locked")
    if stated:
        ways.append("state what no counter reads with " + " or ".join(f"--fact {m}=..." for m in stated))
    return f"{finding.title} (possible: depends on {', '.join(missing)}; {'; '.join(ways)})"
