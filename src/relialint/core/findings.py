"""Records' triggers over a deployment's facts: the findings, with their certainty, location and message."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from relialint import record_url
from relialint.core.deployment import Deployment
from relialint.core.evaluate import PredicateError, eval_affected, eval_leaf, eval_predicate
from relialint.core.evaluator import Evaluator
from relialint.core.facts import CLOSED_UNSET, PER_VERSION, Fact, FactSet, user_stated
from relialint.core.results import VERSION_DEFAULTED, Finding
from relialint.core.triggers import Range, Trigger, compile_trigger, leaves
from relialint.core.worlds import Worlds, WorldsEngine, judge


class FindingsEngine(WorldsEngine, Protocol):
    """What the findings need of an engine (``engines.protocol.Engine`` extends it): its worlds, the options a
    deployment writes, and how to spell a setting in a message."""

    def written_options(self, deployment: Deployment) -> list[str]:
        """The options the deployment writes on its command line, as written (they narrow the version worlds)."""

    def fill_settings(self, message: str, deployment: Deployment) -> str:
        """A message's ``{set:...}`` placeholders spelled as the versions the deployment can be on take them."""


# -- evaluation -----------------------------------------------------------------------------------------------------


def selected(code: str, select: list[str], ignore: list[str]) -> bool:
    if select and not any(code.startswith(s) for s in select):
        return False
    return not any(code.startswith(i) for i in ignore)


def worlds_of(deployment: Deployment, engine: FindingsEngine | None, facts: FactSet | None = None,
              evaluator: Evaluator | None = None) -> Worlds:
    """The possible worlds of a deployment (built lazily, on the first trigger that needs them) of ``engine``
    (``None``: no version worlds); ``facts``: one instance's view of the deployment's facts (:func:`instances`);
    ``evaluator``: the run's memo."""
    base = facts if facts is not None else deployment.facts
    options = engine.written_options(deployment) if engine is not None else []
    return Worlds(engine, base, deployment.unfinished, options, evaluator)


def evaluate(deployment: Deployment, records: list[dict[str, Any]], engine: FindingsEngine | None,
             evaluator: Evaluator | None = None, field: str = "trigger") -> list[Finding]:
    """The findings of ``records`` on one deployment of ``engine`` (the registry's engine of ``deployment.engine``;
    ``None`` for a deployment of no engine, such as the probe's host). ``evaluator``: the memo of the run (one of
    its own when none is given); ``field``: which trigger of the records (``runtime_trigger`` for the probe)."""
    memo = evaluator if evaluator is not None else Evaluator()
    findings: list[Finding] = []
    worlds = worlds_of(deployment, engine, evaluator=memo)
    for record in records:
        if record.get("status") == "withdrawn":
            continue
        trigger = memo.trigger(record, field)
        if trigger is None:
            continue
        engines = record.get("engines") or []
        if engines and deployment.engine not in engines:
            continue
        for facts in instances(deployment, trigger):
            try:
                verdict = judge(trigger, worlds if facts is deployment.facts
                                else worlds_of(deployment, engine, facts, memo), memo)
            except PredicateError:
                break  # a malformed record: the loader has reported it as an error of the run
            if verdict.value is False:
                continue
            finding = _finding(record, trigger, deployment, engine, verdict.value is True, list(verdict.missing),
                               list(verdict.notes), facts, field)
            finding.shown = verdict.value is True or points_at(trigger, facts)
            findings.append(finding)
    return findings


def instances(deployment: Deployment, trigger: Trigger | Mapping[str, Any]) -> list[FactSet]:
    """The fact sets a trigger is evaluated over: one per instance of its first ``locate`` fact
    (``FactSet.instances``: three unknown options give three findings, each at its own token), else the
    deployment's facts."""
    locate = _compiled(trigger).locate
    return deployment.facts.instance_views(locate[0] if locate else None)


# Where a fact comes from when the deployment itself states it (not an engine default, not a declared target).
STATED = frozenset({"flag", "env", "config-file", "image", "manifest", "build", "inferred"})


def _stated(fact: Fact | None) -> bool:
    return fact is not None and fact.origin in STATED and fact.located()


def points_at(trigger: Trigger | Mapping[str, Any], facts: FactSet) -> bool:
    """Whether one condition of a trigger holds on something the file itself states (a flag, an env var, the model,
    an image tag, a manifest label): only then is a *possible* finding worth showing by default. A pinned version
    inside the record's affected ranges is such a condition, unless the trigger waits on a fact only the user can
    state (what the requests use: ``facts.user_stated``), which no file points at, or on a build option the file
    does not give (``build.*``: a launch file runs a binary or image built elsewhere, so its version pin says nothing
    about how that was built), or when every range runs from the oldest release read to the newest with no fix
    (the pin is inside whatever it is), or on the family of a model the file names but the family data does not know
    (the model, not the version, decides such a record); which engine runs is not (every
    record tests it). A
    condition under a ``not`` points when it does not hold, unless it is an ordering (``not: {lt: 8}``): a bound
    the file's value merely clears (``--max-num-seqs 128`` against "fewer than 8 never cascades") is a guard, true
    of nearly every deployment, not a pointer at the failure; so is an exclusion (``ne``, ``not_in``) that the
    file's value merely differs from (a CUDA image against "not on NPU", a plain model against "not ModelOpt FP4").
    A vendor condition does not point while the trigger waits on a capability the file leaves unknown (NVIDIA and
    native FP4): the vendor only agrees with the capability, and the GPU decides. Nothing points at a record that
    waits on the container's settings (``container.*``) when the file puts the
    launch in no container (a host script, a unit running the engine itself): whether it runs in one, and how,
    no file here says. Nor at a record that holds only where a variable or an option the file does not give is
    set (:func:`needs_unseen_setting`): an open environment may set it, but nothing in the file says it does."""
    compiled = _compiled(trigger)
    pairs = list(leaves(compiled.when))
    if needs_unseen_setting(compiled, facts):
        return False  # it holds only where a variable or option no line of the file gives is set
    if facts.get("container.kind") is None and any(
            leaf.key and leaf.key.startswith("container.") and facts.get(leaf.key) is None for leaf, _ in pairs):
        return False  # a record about the container, and the file puts the launch in none it shows
    waits_on_user = any(leaf.key and (user_stated(leaf.key) or leaf.key.startswith("build.")) and
                        facts.get(leaf.key) is None for leaf, _ in pairs)
    # the file names its model and the family data does not know it: the model decides, not the version pin
    waits_on_model = _stated(facts.get("model.name")) and facts.get("model.family") is None and any(
        leaf.key == "model.family" for leaf, _ in pairs)
    waits_on_user = waits_on_user or waits_on_model
    if compiled.affected and not waits_on_user and _stated(facts.get("engine.version")) and \
            any(_leaves_some_out(rng) for rng in compiled.affected) and \
            eval_affected(compiled.affected, facts).value is True:
        return True
    # nor does the pin point through a leaf of its own (``engine.version ge X`` beside an unknown model family)
    # a vendor beside an unknown capability (NVIDIA and native FP4 unknown) only agrees with the capability: which
    # GPU, not which vendor, decides such a record, as it does when the file names an H100
    waits_on_gpu = any(leaf.key in CAPABILITY_KEYS and facts.get(leaf.key) is None for leaf, _ in pairs)
    return any(_points(leaf, positive, facts) for leaf, positive in pairs
               if not (waits_on_user and leaf.key == "engine.version")
               and not (waits_on_gpu and leaf.key == "gpu.vendor"))


SETTING_PREFIXES = ("env.", "flag.")
"""The keys a deployment's own lines set: its variables and its engine's options."""


def needs_unseen_setting(trigger: Trigger, facts: FactSet) -> bool:
    """Whether the trigger is false once every variable and option it reads that no line of the file gives (left
    unknown only because the environment is open: a Dockerfile, a Windows launcher, a ``$OPTS`` splice) is taken
    as unset: the failure then needs a setting nothing in the file shows. A setting the file gives with a value it
    does not show (``-e VLLM_X=$X``) is the file's own and is not taken as unset."""
    unseen = {leaf.key for leaf, _ in leaves(trigger.when) if leaf.key and leaf.key.startswith(SETTING_PREFIXES)
              and leaf.key not in facts.facts and facts.get(leaf.key) is None}
    if not unseen:
        return False
    as_unset = facts.copy()
    for key in unseen:
        as_unset.set(key, CLOSED_UNSET)
    try:
        return eval_predicate(trigger.when, as_unset).value is False
    except PredicateError:
        return False


def _leaves_some_out(rng: Range) -> bool:
    """Whether an affected range leaves some release out: a fix, a last good release, or a first release below which
    the witness read unaffected code. A range from the oldest release read to the newest with no fix holds on every
    release checked, so a version pinned inside it says nothing about the deployment."""
    return not rng.older_unchecked or any(b.fixed or b.last_known_good for b in (rng.pep440, rng.builds))


def _compiled(trigger: Trigger | Mapping[str, Any]) -> Trigger:
    return trigger if isinstance(trigger, Trigger) else compile_trigger(trigger)


# What a GPU can do follows from which GPU it is; a deployment that names an H100 does not point at records about
# Confidential Computing or FP8 because of it (its model, flags and version do that).
CAPABILITY_KEYS = frozenset({"gpu.cc_capable", "gpu.native_fp8", "gpu.native_fp4", "gpu.memory_gb"})
_ORDERINGS = frozenset({"lt", "le", "gt", "ge"})
_EXCLUSIONS = frozenset({"ne", "not_in"})


def _points(leaf: Any, positive: bool, facts: FactSet) -> bool:
    key = leaf.key
    if not key or key == "engine.name" or key in CAPABILITY_KEYS or not _stated(facts.get(key)):
        return False
    if not positive and leaf.op in _ORDERINGS:
        return False
    if positive and leaf.op in _EXCLUSIONS:
        return False  # a value that merely differs from the excluded one clears a guard, like an ordering under not
    return eval_leaf(leaf, facts).value is positive


def _finding(record: dict[str, Any], trigger: Trigger, deployment: Deployment, engine: FindingsEngine | None,
             definite: bool, missing: list[str], notes: list[str], facts: FactSet, field: str) -> Finding:
    where = deployment.span
    line, column, end_line, end_column = where.line, where.column, where.end_line, where.end_column
    path = where.path
    about = f"deployment:{deployment.engine}"
    located = [(key, fact, fact.path, fact.line) for key in trigger.locate
               if (fact := facts.facts.get(key)) is not None and fact.line is not None and fact.path]
    # the first located fact in the deployment's own file; else one in a file it reads (an env file, a --config
    # YAML): the line to edit is there
    for key, fact, fact_path, fact_line in sorted(located, key=lambda kf: kf[2] != path):
        if fact_path is None or fact_line is None:
            continue  # (never: kept above only when located)
        path, line, column = fact_path, fact_line, fact.column or 1
        end_line, end_column = fact.end_line or line, fact.end_column or column
        about = key
        break
    from relialint.core.facts import fill_message, fill_settings

    message = fill_message(record[field]["message"], facts)
    if "{set:" in message:  # a setting spelled as the deployment's versions take it
        message = engine.fill_settings(message, deployment) if engine is not None else fill_settings(message)
    if not definite:
        # a fact derived per version world is unknown only because the version is: the version decides it
        missing = sorted({"engine.version" if m in PER_VERSION else m for m in missing})
        why = f": {'; '.join(notes)}" if notes else ""
        if missing or not notes:
            decide = ", ".join(missing) if missing else "engine.version"
            message = f"{message} (possible: depends on {decide}{why}; {_how_to_supply(missing)})"
        else:
            # every fact the trigger reads is known; what is open is the record's knowledge of this version (an
            # unwitnessed bound, a version no source measured): no option would decide it, so none is suggested
            message = f"{message} (possible{why}; no fact you can give decides it, the record's sources do not)"
    return Finding(
        code=record["id"], slug=record["slug"], title=record["title"], severity=record["severity"],
        certainty="definite" if definite else "possible", path=path, line=line, column=column,
        end_line=end_line, end_column=end_column, message=message, missing_facts=missing, fix=record["fix"].strip(),
        url=record_url(record["id"]), about=about, service=deployment.name,
    )




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
