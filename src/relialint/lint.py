"""One run of the linter: paths -> readers -> engines -> target facts -> evaluate -> findings."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from relialint import record_url
from relialint.deployment import Deployment
from relialint.evaluate import eval_trigger
from relialint.facts import Fact, FactValueError, parse_value, render, spec_for
from relialint.readers import detect
from relialint.readers.located import MAX_FILE_BYTES, FileResult, ReadError, read_text

SEVERITY_RANK = {"blocker": 3, "major": 2, "minor": 1}
GPU_FACT_HINT = "--gpu NAME"


@dataclass(repr=False, eq=False)
class Target:
    """Facts about where the deployment runs, given outside the files (command line, configuration)."""

    gpu: str | None = None
    engine_version: str | None = None
    os: str | None = None
    facts: dict[str, str] = field(default_factory=dict)
    origin: str = "cli"


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
    suppressed: list[Suppressed] = field(default_factory=list)
    rules: list[dict[str, Any]] = field(default_factory=list)
    """The public fields of every rule (record) that could report, for formatters that describe rules (SARIF)."""
    failing: int = 0
    """Findings at or above each file's fail level (``--fail-on``, ``--strict`` or configuration)."""
    policy: dict[int, tuple[int, bool]] = field(default_factory=dict, repr=False)


class UsageError(ValueError):
    """Bad options (unknown GPU, bad fact): exit 2 before anything is linted."""


# -- readers --------------------------------------------------------------------------------------------------------

Reader = Callable[[str, str], FileResult]


READER_MODULES = {"shell": "shell", "compose": "compose", "kubernetes": "kubernetes", "helm": "helm",
                  "env": "envfile", "systemd": "systemd", "dockerfile": "dockerfile"}


def reader(kind: str) -> Reader | None:
    """The reader of one kind, imported on first use (a run over shell scripts never loads the YAML readers)."""
    import importlib

    if kind == "vllm-config":
        return _vllm_config
    module = READER_MODULES.get(kind)
    if module is None:
        return None
    read: Reader = importlib.import_module(f"relialint.readers.{module}").read
    return read


def readers() -> dict[str, Reader]:
    """Every reader by kind."""
    out: dict[str, Reader] = {}
    for kind in (*READER_MODULES, "vllm-config"):
        found = reader(kind)
        if found is not None:
            out[kind] = found
    return out


def _vllm_config(text: str, display: str) -> FileResult:
    """A vLLM ``--config`` YAML on its own: the engine model reads it (no reader knows the engine)."""
    from relialint.readers.yamlsafe import YamlError
    from relialint.readers.yamlwords import load

    result = FileResult(display, "vllm-config", text=text)
    try:
        load(text, display)
    except YamlError as exc:
        result.errors.append(exc.error)
    return result


def read_file(text: str, display: str, kind: str) -> FileResult:
    if kind in ("yaml", "yaml?"):
        found = detect.yaml_kind(text)
        if found is None:
            # A YAML file of another tool (mkdocs.yml, a CI workflow): named explicitly, it is skipped with a
            # warning rather than read as a vLLM config it is not.
            result = FileResult(display, "yaml", text=text)
            result.errors.append(ReadError(display, 1, 1, "not a compose file, Kubernetes manifest, Helm values or "
                                                          "vLLM config; skipped", "warning"))
            return result
        kind = found
    read = reader(kind)
    if read is None:
        result = FileResult(display, kind, text=text)
        result.errors.append(ReadError(display, 1, 1, f"{kind} files are not read yet"))
        return result
    return read(text, display)


# -- finding files --------------------------------------------------------------------------------------------------


def discover(paths: list[str]) -> tuple[list[tuple[Path, str, str]], list[ReadError]]:
    """Files to lint as ``(path, display, kind)``; folders are walked, explicit files always read."""
    found: list[tuple[Path, str, str]] = []
    errors: list[ReadError] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            before, errors_before = len(found), len(errors)
            _walk(path, found, errors)
            if len(found) == before and len(errors) == errors_before:
                errors.append(ReadError(raw, 1, 1, "no files relialint reads in this folder"))
            continue
        if not path.exists() and not path.is_symlink():
            errors.append(ReadError(raw, 1, 1, "no such file or folder"))
            continue
        kind = detect.kind_by_name(path)
        if kind is None:
            text, _ = read_text(path, raw)
            kind = detect.kind_by_content(text or "") or "shell"
        found.append((path, raw, kind))
    return found, errors


def _walk(root: Path, found: list[tuple[Path, str, str]], errors: list[ReadError]) -> None:
    seen: set[tuple[int, int]] = set()
    for current, dirs, files in os.walk(root, followlinks=True, onerror=lambda e: errors.append(
            ReadError(str(e.filename), 1, 1, f"cannot read folder: {e.strerror}"))):
        try:
            stat = os.stat(current)
        except OSError:
            dirs[:] = []
            continue
        if (stat.st_dev, stat.st_ino) in seen:
            errors.append(ReadError(current, 1, 1, "symlink loop; folder not walked again"))
            dirs[:] = []
            continue
        seen.add((stat.st_dev, stat.st_ino))
        dirs[:] = sorted(d for d in dirs if d not in detect.SKIP_DIRS)
        for name in sorted(files):
            path = Path(current) / name
            kind = detect.kind_by_name(path)
            if kind is None and "." not in name:
                try:
                    with open(path, "rb") as handle:
                        head = handle.read(64).decode("utf-8", "replace")
                except OSError:
                    continue
                kind = detect.kind_by_content(head)
            if kind == "yaml":
                kind = _sniff_yaml(path, errors)
            if kind is not None:
                found.append((path, str(path), kind))
    # An env file beside other files that read it (compose `.env`, `env_file:`, `EnvironmentFile=`) is linted
    # through them; alone in its folder it is a deployment of its own.
    folders = {p.parent for p, _, k in found if k != "env"}
    found[:] = [(p, d, k) for p, d, k in found if k != "env" or p.parent not in folders]


def _sniff_yaml(path: Path, errors: list[ReadError]) -> str | None:
    """A YAML file found in a folder: its kind by shape, or ``None`` (skipped) when relialint does not read it."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        errors.append(ReadError(str(path), 1, 1, f"cannot read: {exc.strerror or exc}"))
        return None
    if size > MAX_FILE_BYTES:
        return None
    text, _ = read_text(path, str(path))
    if text is None:
        return "yaml"  # the read error is reported when the file is linted
    return detect.yaml_kind(text)


def _opener(referrer: str, name: str) -> tuple[str, str] | None:
    base = Path(referrer).parent
    candidate = Path(name) if Path(name).is_absolute() else base / name
    if not candidate.is_file():
        return None
    text, error = read_text(candidate, str(candidate))
    if error is not None or text is None:
        return None
    return text, str(candidate)


# -- target facts ---------------------------------------------------------------------------------------------------


def target_facts(target: Target) -> dict[str, Fact]:
    """The target as facts; raises ``UsageError`` for an unknown GPU, key or badly typed value."""
    origin: Any = target.origin
    out: dict[str, Fact] = {}
    if target.gpu:
        from relialint import hardware

        try:
            gpu = hardware.resolve(target.gpu)
        except hardware.UnknownGpu as exc:
            raise UsageError(str(exc)) from exc
        for key, value in gpu.facts().items():
            out[key] = Fact(value, origin)  # type: ignore[arg-type]
    if target.os:
        out["host.os"] = _typed_fact("host.os", target.os, origin)
    if target.engine_version:
        out["engine.version"] = _typed_fact("engine.version", target.engine_version, origin)
    for key, value in target.facts.items():
        out[key] = _typed_fact(key, value, origin)
    return out


def _typed_fact(key: str, raw: str, origin: Any) -> Fact:
    spec = spec_for(key)
    if spec is None:
        raise UsageError(f"unknown fact {key!r}; see `relialint facts --help` or docs/reference/facts.md")
    try:
        return Fact(parse_value(spec, raw), origin)
    except FactValueError as exc:
        raise UsageError(str(exc)) from exc


def apply_target(deployment: Deployment, given: dict[str, Fact], notes: list[str]) -> None:
    """Target facts fill what the files leave unknown; where a file says otherwise, the file wins with a note."""
    facts = deployment.facts
    for key, fact in given.items():
        if key == "engine.version" and deployment.engine == "bench":
            continue
        current = facts.facts.get(key)
        if current is None:
            if key == "engine.version" and not _version_fits(deployment.engine, fact):
                continue
            facts.set(key, fact)
        elif render(current.value).lower() != render(fact.value).lower():
            where = f"{current.path}:{current.line}" if current.path else deployment.path
            notes.append(f"{where}: {key} is {render(current.value)} in the file; the {fact.origin} value "
                         f"{render(fact.value)} is not used")


def _version_fits(engine: str, fact: Fact) -> bool:
    scheme = getattr(fact.value, "scheme", None)
    return (engine == "llama.cpp") == (scheme == "build")


def shared_memory(deployments: list[Deployment]) -> None:
    """``memory.gpu_utilization_shared_total``: vLLM deployments of one file on the same GPUs add up."""
    groups: dict[tuple[str, str], list[Deployment]] = {}
    for d in deployments:
        if d.engine != "vllm":
            continue
        visible = d.facts.get("env.CUDA_VISIBLE_DEVICES")
        key = (d.path, str(visible.value) if visible is not None and visible.value is not None else "*")
        groups.setdefault(key, []).append(d)
    for members in groups.values():
        if len(members) == 1:
            members[0].facts.set("memory.gpu_utilization_shared_total",
                                 Fact(None, "inferred", note="no other engine on the same GPUs in this file"))
            continue
        values = [m.facts.get("memory.gpu_utilization") for m in members]
        if any(v is None or not isinstance(v.value, int | float) for v in values):
            continue
        total = round(sum(float(v.value) for v in values if v is not None and isinstance(v.value, int | float)), 4)
        for member, value in zip(members, values, strict=True):
            assert value is not None
            member.facts.set("memory.gpu_utilization_shared_total",
                             Fact(total, "inferred", value.path, value.line, value.column, value.end_line,
                                  value.end_column, note=f"sum over {len(members)} deployment(s) on the same GPUs"))


def finish(deployment: Deployment) -> None:
    from relialint.engines import llamacpp, vllm

    if deployment.engine == "vllm":
        vllm.apply_defaults(deployment)
    elif deployment.engine == "llama.cpp":
        llamacpp.apply_defaults(deployment)


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


# -- the run --------------------------------------------------------------------------------------------------------


def load_records(options: Options) -> tuple[list[dict[str, Any]], list[ReadError]]:
    from relialint.kb.loader import compiled, shipped_dir

    records, problems = compiled([shipped_dir(), *options.records_dirs])
    errors = [ReadError(p.path, p.line, p.column, f"{p.code} {p.message}") for p in problems]
    return records, errors


def _evaluate_file(result: FileResult, given: dict[str, Fact], records: list[dict[str, Any]], select: list[str],
                   ignore: list[str], notes: list[str]) -> tuple[list[Deployment], list[tuple[Finding, Deployment]]]:
    from relialint.engines import extract

    deployments = extract(result, _opener)
    if any(command.gpu_labels for command in result.commands):
        from relialint import manifest_facts

        manifest_facts.apply(result, deployments)
    for deployment in deployments:
        if deployment.engine != "bench":
            deployment.facts.closed.add("bench.")
        apply_target(deployment, given, notes)
        finish(deployment)
    shared_memory(deployments)
    found: list[tuple[Finding, Deployment]] = []
    for deployment in deployments:
        notes.extend(f"{deployment.path}:{deployment.span.line}: {n}" for n in deployment.notes)
        for finding in evaluate(deployment, records):
            if selected(finding.code, select, ignore):
                found.append((finding, deployment))
    return deployments, found


def lint_file_result(result: FileResult, given: dict[str, Fact], records: list[dict[str, Any]],
                     options: Options, run: RunResult) -> None:
    """Lint one read file with the given target facts only (no configuration, no suppressions)."""
    for error in result.errors:
        (run.warnings if error.severity == "warning" else run.errors).append(error)
    deployments, found = _evaluate_file(result, given, records, options.select, options.ignore, run.notes)
    run.findings.extend(f for f, _ in found)
    run.deployments.extend(deployments)


def lint_paths(paths: list[str], options: Options) -> RunResult:
    session = Session(options)
    files, errors = discover(paths)
    session.run.errors.extend(errors)
    results: list[tuple[Path, FileResult]] = []
    for path, display, kind in files:
        if session.excluded(path):
            continue
        session.run.files += 1
        text, error = read_text(path, display)
        if error is not None or text is None:
            assert error is not None
            session.run.errors.append(error)
            continue
        results.append((path, read_file(text, display, kind)))
    # A Dockerfile or env file that another file of the run builds or loads (compose `build:`, `env_file:`,
    # systemd `EnvironmentFile=`) is linted as part of that deployment, not again as a deployment of its own.
    used = {os.path.realpath(u) for _, result in results for u in result.used_files}
    for path, result in results:
        if result.kind in ("dockerfile", "env") and os.path.realpath(path) in used:
            session.run.errors.extend(e for e in result.errors if e.severity != "warning")
            continue
        session.lint(result, path)
    return session.finish()


def lint_text(text: str, display: str, kind: str, options: Options) -> RunResult:
    """Lint a buffer as if it were the file ``display`` (stdin, editors)."""
    session = Session(options)
    session.run.files = 1
    session.lint(read_file(text, display, kind), Path(display))
    return session.finish()


# -- configuration, targets and suppressions over one run -----------------------------------------------------------

FAIL_RANK = {**SEVERITY_RANK, "never": 99}
_HARDWARE_KEYS = ("gpu.model", "gpu.vendor", "gpu.sm", "gpu.arch", "gpu.native_fp8", "gpu.native_fp4")


def _has_target(target: Target) -> bool:
    return bool(target.gpu or target.engine_version or target.os or target.facts)


def _over(base: dict[str, Fact], top: dict[str, Fact]) -> dict[str, Fact]:
    """``top`` over ``base``; a GPU in ``top`` replaces every hardware fact of ``base``."""
    if "gpu.model" in top:
        base = {k: v for k, v in base.items() if k not in _HARDWARE_KEYS}
    return {**base, **top}


def rule_table(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The public fields of every record that can report, and of the suppression checks (RL001-RL004)."""
    from relialint.suppress import META_RULES

    rules = [dict(rule) for rule in META_RULES]
    for record in records:
        if not record.get("trigger") or record.get("status") == "withdrawn":
            continue
        rules.append({"id": record["id"], "slug": record["slug"], "title": record["title"],
                      "summary": str(record.get("summary") or "").strip(), "fix": str(record.get("fix") or "").strip(),
                      "severity": record["severity"], "impact": record.get("impact") or "",
                      "engines": list(record.get("engines") or []), "url": record_url(record["id"])})
    return sorted(rules, key=lambda r: str(r["id"]))


@dataclass(repr=False, eq=False)
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


class Session:
    """One run across files: records, configuration per file, targets, suppressions and the baseline."""

    def __init__(self, options: Options) -> None:
        from relialint import suppress

        self.options = options
        self.records, record_errors = load_records(options)
        self.run = RunResult(errors=list(record_errors))
        self.run.rules = rule_table(self.records)
        targets = [t for t in options.targets if _has_target(t)] or [options.target]
        self.cli_targets = [(t.gpu or f"target {i + 1}" if len(targets) > 1 else None, target_facts(t))
                            for i, t in enumerate(targets)]
        self.configured: dict[tuple[str, int], _Configured] = {}
        self.linted: list[str] = []
        from relialint.config import Finder

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

    def _config(self, file: Path) -> Any:
        return self.finder.config_for(file)

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
        from relialint.suppress import META_RULES

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
        from dataclasses import replace

        from relialint.suppress import INVALID_DIRECTIVE, Problem

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

    def lint(self, result: FileResult, file: Path) -> None:
        from relialint import config, suppress

        options, run = self.options, self.run
        cfg = self._config(file)
        eff = config.effective(cfg, file)
        select = options.select or eff.select
        ignore = [*eff.ignore, *options.ignore]
        policy = self._policy(eff.fail_on, eff.strict)
        self.linted.append(result.path)
        for error in result.errors:
            (run.warnings if error.severity == "warning" else run.errors).append(error)

        # the targets: configuration below the command line, directives in the file above both
        configured = []
        for t in eff.targets:
            facts = {k: config.fact_text(v) for k, v in t.facts.items()}
            configured.append((t.label() if len(eff.targets) > 1 else None,
                               target_facts(Target(t.gpu, t.engine_version, t.os, facts, origin="configuration"))))
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
            deployments, hits = _evaluate_file(result, given, self.records, select, ignore, run.notes)
            for finding, _ in hits:
                finding.target = label
            found.extend(hits)
            if index == 0:
                run.deployments.extend(deployments)

        entries = []
        for number, entry in eff.suppressions:
            assert cfg is not None
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
        if options.inline_ignores:
            problems.extend(suppress.unused_inline(directives, result.path, lambda c: selected(c, select, ignore)))
        for problem in problems:
            self._meta(problem, policy, select, ignore)

    def finish(self) -> RunResult:
        from relialint import suppress

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
        run.failing = sum(1 for f in run.findings if SEVERITY_RANK[f.severity] >= run.policy[id(f)][0]
                          and (f.certainty == "definite" or run.policy[id(f)][1]))
        return run
