"""Records' triggers over a deployment's facts: the findings, with their certainty, location and message."""

from __future__ import annotations

from typing import Any

from relialint import record_url
from relialint.deployment import Deployment
from relialint.evaluate import eval_trigger
from relialint.results import Finding

# -- evaluation -----------------------------------------------------------------------------------------------------


def selected(code: str, select: list[str], ignore: list[str]) -> bool:
    if select and not any(code.startswith(s) for s in select):
        return False
    return not any(code.startswith(i) for i in ignore)


def evaluate(deployment: Deployment, records: list[dict[str, Any]]) -> list[Finding]:
    findings: list[Finding] = []
    for record in records:
        trigger = record.get("trigger")
        if not trigger or record.get("status") == "withdrawn":
            continue
        engines = record.get("engines") or []
        if deployment.engine == "bench" and engines:
            continue
        if engines and deployment.engine not in engines:
            continue
        verdict = eval_trigger(trigger, deployment.facts)
        if verdict.value is False:
            continue
        findings.append(_finding(record, deployment, verdict.value is True, sorted(verdict.missing),
                                 list(verdict.notes)))
    return findings


def _finding(record: dict[str, Any], deployment: Deployment, definite: bool, missing: list[str],
             notes: list[str]) -> Finding:
    trigger = record["trigger"]
    where = deployment.span
    line, column, end_line, end_column = where.line, where.column, where.end_line, where.end_column
    path = where.path
    about = f"deployment:{deployment.engine}"
    for key in trigger.get("locate") or []:
        fact = deployment.facts.facts.get(key)
        if fact is not None and fact.line is not None and fact.path == path:
            line, column = fact.line, fact.column or 1
            end_line, end_column = fact.end_line or line, fact.end_column or column
            about = key
            break
    from relialint.facts import fill_message

    message = fill_message(trigger["message"], deployment.facts)
    if not definite:
        decide = ", ".join(missing) if missing else "engine.version"
        how = _how_to_supply(missing)
        why = f"; {'; '.join(notes)}" if notes and not missing else ""
        message = f"{message} (possible: depends on {decide}{why}; {how})"
    return Finding(
        code=record["id"], slug=record["slug"], title=record["title"], severity=record["severity"],
        certainty="definite" if definite else "possible", path=path, line=line, column=column,
        end_line=end_line, end_column=end_column, message=message, missing_facts=missing, fix=record["fix"].strip(),
        url=record_url(record["id"]), about=about, service=deployment.name,
    )


# Facts the engine derives from its version when the config leaves them out: the version decides them.
VERSION_DEFAULTED = {"engine.v1", "engine.v2_model_runner", "prefix_caching.enabled", "memory.gpu_utilization",
                     "engine.ready_timeout_s", "attention.flashinfer_q_quant", "attention.backend"}


def _how_to_supply(missing: list[str]) -> str:
    ways: list[str] = []
    if any(m.startswith("gpu.") and m not in ("gpu.cc_mode", "gpu.count") for m in missing):
        ways.append("--gpu NAME")
    if "engine.version" in missing or not missing or any(m in VERSION_DEFAULTED for m in missing):
        ways.append("--engine-version V")
    if "host.os" in missing:
        ways.append("--os NAME")
    rest = [m for m in missing if m not in ("engine.version", "host.os") and not (
        m.startswith("gpu.") and m not in ("gpu.cc_mode", "gpu.count"))]
    ways.extend(f"--fact {m}=..." for m in rest)
    return "set " + " or ".join(ways) if ways else "set the missing facts"
