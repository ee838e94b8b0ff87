"""The records' runtime triggers over a host's facts: what ``relialint probe`` reports.

A record's ``runtime_trigger`` is evaluated here, never by ``check``: the probe's host is one deployment (engine
``host``) whose facts are the probe's, and ``findings.evaluate`` runs each runtime trigger as the record's trigger.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from relialint.core.deployment import Deployment
from relialint.core.facts import Fact
from relialint.core.findings import evaluate, selected
from relialint.core.results import Finding
from relialint.probe.host import HostFacts
from relialint.readers.located import Span
from relialint.run.targets import apply_target

if TYPE_CHECKING:
    from relialint.core.triggers import Trigger


def runtime_records(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each record with a runtime trigger, as a record whose trigger is that runtime trigger (its compiled form
    too, where the record was loaded with one: never the compiled form of the other trigger)."""
    from relialint.core.triggers import CompiledRecord, attached

    out: list[dict[str, Any]] = []
    for r in records:
        if r.get("runtime_trigger") and r.get("status") != "withdrawn":
            compiled = attached(r, "runtime_trigger")
            copy = {**r, "trigger": r["runtime_trigger"]}
            out.append(CompiledRecord(copy, {"trigger": compiled}) if compiled is not None else copy)
    return out


def host_deployment(host: HostFacts, given: dict[str, Fact], notes: list[str]) -> Deployment:
    deployment = Deployment(engine="host", kind="probe", span=Span(host.path, 1, 1, 1, 1), facts=host.facts)
    deployment.facts.closed.add("bench.")
    apply_target(deployment, given, notes)
    return deployment


def findings(deployment: Deployment, records: list[dict[str, Any]], select: list[str] | None = None,
             ignore: list[str] | None = None) -> list[Finding]:
    from relialint.core.evaluator import Evaluator

    chosen = runtime_records(records)
    memo = Evaluator()
    found = evaluate(deployment, chosen, None, memo)  # the host runs no engine: no version worlds
    triggers = {r["id"]: trigger for r in chosen if (trigger := memo.trigger(r)) is not None}
    for finding in found:
        trigger = triggers[finding.code]
        if finding.certainty == "possible":
            finding.message = possible_message(finding, deployment)
            finding.shown = _read_points(trigger, deployment)
        _relocate(finding, deployment, list(trigger.locate))
    return sorted((f for f in found if selected(f.code, select or [], ignore or [])), key=Finding.sort_key)


def _read_points(trigger: Trigger, deployment: Deployment) -> bool:
    """Whether a condition of the trigger holds on something the probe read (a reason seen active): then a possible
    finding is shown, as one that a file points at is by ``check`` (a condition under a ``not``: when it does not
    hold)."""
    from relialint.core.evaluate import eval_leaf
    from relialint.core.triggers import leaves

    for leaf, positive in leaves(trigger.when):
        fact = deployment.facts.get(leaf.key)
        if fact is not None and fact.origin == "probe" and eval_leaf(leaf, deployment.facts).value is positive:
            return True
    return False


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
