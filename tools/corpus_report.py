"""The corpus of real deployment shapes (tests/corpus) against its reviewed expectations.

Each corpus entry is a config file ``NAME`` with ``NAME.expected.yaml`` beside it: the deployments a correct linter
finds (engine, line) and the findings it reports by default (code, certainty, line, column, shown), each with the
reason it is right. This module runs relialint in process on every entry (``check --format json`` and
``facts --format json``, one entry per run so that files never meet as neighbours) and compares exactly.

    python tools/corpus_report.py            # totals, recognition, precision figures and every difference
    python tools/corpus_report.py --totals   # only the totals (bench/bench_corpus.py prints the same)

The JSON field ``shown`` (issue 12) is read with a default of ``True`` where a finding does not carry it yet.
The test ``tests/test_corpus.py`` uses the same functions; ``tests/corpus/KNOWN_GAPS.txt`` lists the entries the
current code does not meet yet.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"
SUFFIX = ".expected.yaml"
GAPS = "KNOWN_GAPS.txt"
ENGINES = ("vllm", "llama.cpp", "sglang")
CERTAINTIES = ("definite", "possible")
NOT_ENTRIES = {GAPS, "README.md"}


class ExpectationError(ValueError):
    """An expectation file that does not have the required shape."""


@dataclass(frozen=True, order=True)
class Deployment:
    path: str  # relative to the corpus root
    engine: str
    line: int


@dataclass(frozen=True, order=True)
class Finding:
    path: str  # relative to the corpus root
    line: int
    column: int
    code: str
    certainty: str
    shown: bool
    missing: tuple[str, ...] = ()  # the facts a possible finding waits on (JSON ``missing_facts``), sorted


@dataclass(frozen=True)
class ExpectedFact:
    """One fact a deployment must have: its value, and where the file states it when ``line`` is given."""

    value: Any
    line: int | None = None
    column: int | None = None


@dataclass
class Entry:
    config: Path
    expected_file: Path
    about: str
    uses: list[str]
    negative: bool
    deployments: list[Deployment]
    findings: list[Finding]
    tokens: list[tuple[str, int, int, str]] = field(default_factory=list)  # (path, line, column, token)
    reasons: list[tuple[str, str]] = field(default_factory=list)  # (where, why) of each expected finding
    problems: list[str] = field(default_factory=list)  # expectations incomplete but readable (reported, not raised)
    facts: dict[tuple[str, int], dict[str, ExpectedFact]] = field(default_factory=dict)  # per deployment (path, line)

    @property
    def name(self) -> str:
        return rel(self.config)


@dataclass
class Actual:
    deployments: list[Deployment]
    findings: list[Finding]
    errors: list[str]
    warnings: list[str] = field(default_factory=list)
    waits_on_stated: list[str] = field(default_factory=list)  # shown possible findings that wait on a stated fact
    facts: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)  # the JSON facts per deployment


STATED_ORIGINS = frozenset({"flag", "env", "config-file", "image", "manifest", "build", "directive"})
"""Origins of a fact the file itself states (not an engine default, an inference or a declared target)."""


@dataclass(frozen=True)
class Difference:
    kind: str  # missing-deployment, extra-deployment, missing-finding, extra-finding, certainty, shown,
    # missing-facts, warning, waits-on-stated, fact
    entry: str
    detail: str


def rel(path: Path) -> str:
    """A corpus path as the expectations and the reports write it (outside the corpus: the path itself)."""
    try:
        return path.resolve().relative_to(CORPUS.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


# -- expectations ---------------------------------------------------------------------------------------------------


def _int(item: dict[str, Any], key: str, where: str) -> int:
    value = item.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ExpectationError(f"{where}: `{key}` must be a positive integer")
    return value


def load_entry(expected_file: Path) -> Entry:
    config = expected_file.with_name(expected_file.name[: -len(SUFFIX)])
    where = rel(expected_file)
    if not config.is_file():
        raise ExpectationError(f"{where}: no config file {config.name} beside it")
    data = yaml.safe_load(expected_file.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ExpectationError(f"{where}: not a mapping")
    unknown = set(data) - {"about", "uses", "negative", "deployments", "findings"}
    if unknown:
        raise ExpectationError(f"{where}: unknown keys {sorted(unknown)}")
    about = data.get("about")
    if not isinstance(about, str) or not about.strip():
        raise ExpectationError(f"{where}: `about` (what shape this is and why) is required")
    uses = data.get("uses") or []
    if not isinstance(uses, list) or not all(isinstance(u, str) for u in uses):
        raise ExpectationError(f"{where}: `uses` must be a list of file names")
    negative = bool(data.get("negative", False))
    entry = Entry(config, expected_file, about, uses, negative, [], [])
    for number, item in enumerate(data.get("deployments") or [], 1):
        here = f"{where}: deployments[{number}]"
        if not isinstance(item, dict) or item.get("engine") not in ENGINES:
            raise ExpectationError(f"{here}: `engine` must be one of {ENGINES}")
        path = _path(config, item, here)
        line = _int(item, "line", here)
        entry.deployments.append(Deployment(path, item["engine"], line))
        if "token" in item:
            entry.tokens.append((path, line, 0, str(item["token"])))
        if "facts" in item:
            entry.facts[(path, line)] = _expected_facts(item["facts"], here)
    for number, item in enumerate(data.get("findings") or [], 1):
        here = f"{where}: findings[{number}]"
        if not isinstance(item, dict):
            raise ExpectationError(f"{here}: not a mapping")
        code = item.get("code")
        if not isinstance(code, str) or not code.startswith("RL"):
            raise ExpectationError(f"{here}: `code` must be a record id")
        if item.get("certainty") not in CERTAINTIES:
            raise ExpectationError(f"{here}: `certainty` must be one of {CERTAINTIES}")
        if not isinstance(item.get("shown"), bool):
            raise ExpectationError(f"{here}: `shown` must be true or false")
        if item["certainty"] == "definite" and not item["shown"]:
            raise ExpectationError(f"{here}: a definite finding is always shown")
        why = item.get("why")
        if not isinstance(why, str) or len(why.split()) < 5:
            raise ExpectationError(f"{here}: `why` must justify the finding")
        missing = item.get("missing")
        if item["certainty"] == "possible":
            # [] only where every fact the trigger reads is known and the record's sources leave the version open
            if not isinstance(missing, list) or not all(isinstance(m, str) for m in missing):
                entry.problems.append(f"{here} ({code}): `missing` (the facts the possible finding waits on, from "
                                      "the record's trigger and what the file leaves open) is required")
                missing = None
        elif missing is not None:
            raise ExpectationError(f"{here}: a definite finding waits on no fact; drop `missing`")
        path = _path(config, item, here)
        line, column = _int(item, "line", here), _int(item, "column", here)
        entry.findings.append(Finding(path, line, column, code, item["certainty"], item["shown"],
                                      tuple(sorted(missing or ()))))
        entry.reasons.append((f"{here} ({code})", " ".join(why.split())))
        if "token" in item:
            entry.tokens.append((path, line, column, str(item["token"])))
    if negative and entry.deployments:
        raise ExpectationError(f"{where}: a negative control expects no deployment")
    return entry


def _expected_facts(raw: object, where: str) -> dict[str, ExpectedFact]:
    """A deployment's ``facts``: ``key: value``, or ``key: {value: V, line: L, column: C}`` where the file states it.

    Only the facts listed are compared (the defaults and inferences a deployment also carries are not)."""
    if not isinstance(raw, dict) or not all(isinstance(k, str) for k in raw):
        raise ExpectationError(f"{where}: `facts` must map fact keys to values")
    out: dict[str, ExpectedFact] = {}
    for key, spec in raw.items():
        if isinstance(spec, dict):
            if "value" not in spec or set(spec) - {"value", "line", "column"}:
                raise ExpectationError(f"{where}: facts.{key} takes `value` and optionally `line` and `column`")
            line = _int(spec, "line", f"{where}: facts.{key}") if "line" in spec else None
            column = _int(spec, "column", f"{where}: facts.{key}") if "column" in spec else None
            out[key] = ExpectedFact(spec["value"], line, column)
        else:
            out[key] = ExpectedFact(spec)
    return out


def _path(config: Path, item: dict[str, Any], where: str) -> str:
    other = item.get("path")
    if other is None:
        return rel(config)
    target = config.parent / str(other)
    if not target.is_file():
        raise ExpectationError(f"{where}: `path` {other} does not exist")
    return rel(target)


def entries(root: Path = CORPUS) -> list[Entry]:
    return [load_entry(p) for p in sorted(root.rglob(f"*{SUFFIX}"))]


def orphans(found: list[Entry], root: Path = CORPUS) -> list[str]:
    """Corpus files that are neither an entry, nor its expectation, nor a file an entry uses."""
    covered = {rel(e.config) for e in found} | {rel(e.expected_file) for e in found}
    for e in found:
        covered |= {rel(e.config.parent / u) for u in e.uses}
    return sorted(rel(p) for p in root.rglob("*") if p.is_file() and p.name not in NOT_ENTRIES
                  and rel(p) not in covered)


def token_mismatches(entry: Entry) -> list[str]:
    """Expectations whose line/column do not point at the token they name (a config edited, the expectation not)."""
    bad = []
    for path, line, column, token in entry.tokens:
        lines = (CORPUS / path).read_text(encoding="utf-8").splitlines()
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        ok = text[column - 1:].startswith(token) if column else token in text
        if not ok:
            bad.append(f"{path}:{line}:{column} does not start with {token!r}")
    return bad


CITED = re.compile(r"`([^`]+)`")


def uncited_reasons(entry: Entry) -> list[str]:
    """Expected findings whose ``why`` quotes nothing of the entry's own files.

    A reason cites the file's evidence: at least one backticked span that occurs verbatim in the config or a file
    it uses (a flag, a value, an image tag, a variable), so a reason cannot be a template that fits any entry."""
    texts = [entry.config.read_text(encoding="utf-8", errors="replace")]
    texts += [(entry.config.parent / u).read_text(encoding="utf-8", errors="replace") for u in entry.uses
              if (entry.config.parent / u).is_file()]
    return [f"{where}: no backticked quote of the file's own text" for where, why in entry.reasons
            if not any(span in text for span in CITED.findall(why) for text in texts)]


def repeated_reasons(found: list[Entry]) -> list[str]:
    """Reasons written verbatim more than once in the corpus (whitespace aside): a template, not a review."""
    seen: dict[str, list[str]] = {}
    for entry in found:
        for where, why in entry.reasons:
            seen.setdefault(why, []).append(where)
    return [f"{' and '.join(places)}: the same reason" for why, places in seen.items() if len(places) > 1]


def known_gaps(root: Path = CORPUS) -> dict[str, str]:
    """``KNOWN_GAPS.txt``: one corpus path a line, then ``--`` and the reason; ``#`` starts a comment."""
    gaps: dict[str, str] = {}
    file = root / GAPS
    if not file.is_file():
        return gaps
    for number, raw in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        path, sep, reason = line.partition(" -- ")
        if not sep or not reason.strip():
            raise ExpectationError(f"{GAPS}:{number}: write `PATH -- reason`")
        gaps[path.strip()] = reason.strip()
    return gaps


# -- running relialint ----------------------------------------------------------------------------------------------


def _invoke(args: list[str]) -> dict[str, Any]:
    """``relialint ARGS`` in this process, from the repository root: its JSON on stdout."""
    import io

    from relialint.cli import main

    out, err = io.BytesIO(), io.BytesIO()
    saved = sys.stdout, sys.stderr
    cwd = os.getcwd()
    os.chdir(ROOT)
    stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    stderr = io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", write_through=True)
    sys.stdout, sys.stderr = stdout, stderr
    try:
        code: Any = main(args)
    except SystemExit as exc:
        code = exc.code
    finally:
        sys.stdout, sys.stderr = saved
        stdout.detach()  # let go of the bytes without closing them
        stderr.detach()
        os.chdir(cwd)
    try:
        doc: dict[str, Any] = json.loads(out.getvalue().decode("utf-8", "replace"))
    except ValueError as exc:
        output = (out.getvalue() + err.getvalue()).decode("utf-8", "replace")
        raise RuntimeError(f"relialint {' '.join(args)} gave no JSON (exit {code}): {output[-500:]}") from exc
    return doc


def _corpus_path(path: str) -> str:
    return rel(ROOT / path) if not os.path.isabs(path) else rel(Path(path))


def run(entry: Entry) -> Actual:
    """relialint's default output on one entry, as comparable facts."""
    target = entry.config.relative_to(ROOT).as_posix()
    checked = _invoke(["check", target, "--format", "json"])
    facts = _invoke(["facts", target, "--format", "json"])
    findings = [Finding(_corpus_path(f["path"]), f["line"], f["column"], f["code"], f["certainty"],
                        bool(f.get("shown", True)), tuple(sorted(f.get("missing_facts") or ())))
                for f in checked.get("findings", [])]
    deployments = [Deployment(_corpus_path(d["path"]), d["engine"], d["line"])
                   for d in facts.get("deployments", [])]
    errors = [f"{e.get('path')}:{e.get('line')}:{e.get('column')}: {e.get('message')}"
              for e in checked.get("errors", [])]
    warnings = [f"{e.get('path')}:{e.get('line')}:{e.get('column')}: {e.get('message')}"
                for e in checked.get("warnings", [])]
    stated = {(_corpus_path(d["path"]), d["line"]): d.get("facts") or {} for d in facts.get("deployments", [])}
    return Actual(sorted(deployments), sorted(findings), errors, warnings,
                  waits_on_stated(checked.get("findings", []), facts.get("deployments", [])), stated)


def waits_on_stated(findings: list[dict[str, Any]], deployments: list[dict[str, Any]]) -> list[str]:
    """Shown possible findings that name, as the fact deciding them, one the file already states (issue 25: a
    shown possible finding names the fact that would decide it, and that fact is not one the file states).

    A finding is matched to the deployment of its file that starts nearest before it (or the first one). A stated
    version range (``>=0.9``) does not decide a version, so a bound is not counted as stated."""
    out: list[str] = []
    for f in findings:
        if f.get("certainty") != "possible" or not f.get("shown", True):
            continue
        same = [d for d in deployments if d.get("path") == f.get("path")]
        before = [d for d in same if d.get("line", 0) <= f.get("line", 0)]
        owner = max(before, key=lambda d: d.get("line", 0)) if before else (same[0] if same else None)
        if owner is None:
            continue
        for key in f.get("missing_facts") or ():
            fact = owner.get("facts", {}).get(key)
            if not fact or fact.get("value") is None or fact.get("origin") not in STATED_ORIGINS:
                continue
            if key == "engine.version" and not re.fullmatch(r"[0-9b][0-9.a-z+]*", str(fact["value"])):
                continue
            out.append(f"{f['code']} at {_corpus_path(f['path'])}:{f['line']}:{f['column']} waits on {key}, "
                       f"which the file states ({fact['origin']}: {fact['value']!r})")
    return out


def compare(entry: Entry, actual: Actual) -> list[Difference]:
    out: list[Difference] = []
    want, got = Counter(entry.deployments), Counter(actual.deployments)
    for d in sorted((want - got).elements()):
        out.append(Difference("missing-deployment", entry.name, f"{d.engine} at {d.path}:{d.line}"))
    for d in sorted((got - want).elements()):
        out.append(Difference("extra-deployment", entry.name, f"{d.engine} at {d.path}:{d.line}"))
    if entry.negative:
        # issue 13: another tool's file is skipped quietly (counted), with no warning on every commit
        out.extend(Difference("warning", entry.name, w) for w in actual.warnings)
    expected = {(f.path, f.line, f.column, f.code): f for f in entry.findings}
    found = {(f.path, f.line, f.column, f.code): f for f in actual.findings}
    for key in sorted(expected.keys() | found.keys()):
        e, a = expected.get(key), found.get(key)
        where = f"{key[3]} at {key[0]}:{key[1]}:{key[2]}"
        if a is None and e is not None:
            out.append(Difference("missing-finding", entry.name, f"{where} ({_label(e)})"))
        elif e is None and a is not None:
            out.append(Difference("extra-finding", entry.name, f"{where} ({_label(a)})"))
        elif e is not None and a is not None:
            if e.certainty != a.certainty:
                out.append(Difference("certainty", entry.name, f"{where}: expected {e.certainty}, got {a.certainty}"))
            elif e.shown != a.shown:
                out.append(Difference("shown", entry.name, f"{where}: expected shown={e.shown}, got {a.shown}"))
            elif e.missing != a.missing:
                out.append(Difference("missing-facts", entry.name,
                                      f"{where}: expected missing {list(e.missing)}, got {list(a.missing)}"))
    out.extend(Difference("waits-on-stated", entry.name, w) for w in actual.waits_on_stated)
    out.extend(fact_differences(entry, actual))
    return out


def fact_differences(entry: Entry, actual: Actual) -> list[Difference]:
    """The facts an expectation lists for a deployment that the deployment relialint found lacks or has otherwise
    (value, or the line and column the file states it at). A deployment not found is already a difference."""
    out: list[Difference] = []
    for (path, line), wanted in sorted(entry.facts.items()):
        got = actual.facts.get((path, line))
        if got is None:
            continue
        for key, want in sorted(wanted.items()):
            where = f"{key} of the deployment at {path}:{line}"
            fact = got.get(key)
            if not isinstance(fact, dict):
                out.append(Difference("fact", entry.name, f"{where}: expected {want.value!r}, got no fact"))
                continue
            if fact.get("value") != want.value:
                out.append(Difference("fact", entry.name,
                                      f"{where}: expected {want.value!r}, got {fact.get('value')!r}"))
            elif want.line is not None and (fact.get("line"), fact.get("column")) != (want.line, want.column):
                out.append(Difference("fact", entry.name, f"{where}: expected at {want.line}:{want.column}, got "
                                                          f"{fact.get('line')}:{fact.get('column')}"))
    return out


def _label(f: Finding) -> str:
    waits = f", missing {list(f.missing)}" if f.missing else ""
    return f"{f.certainty}, {'shown' if f.shown else 'counted'}{waits}"


# -- figures --------------------------------------------------------------------------------------------------------


@dataclass
class Totals:
    files: int = 0
    negatives: int = 0
    expected_deployments: Counter[str] = field(default_factory=Counter)
    recognised: Counter[str] = field(default_factory=Counter)  # expected deployments found at the expected line
    false_on_negatives: int = 0
    warnings_on_negatives: int = 0
    definite: int = 0
    files_with_true_definite: int = 0  # files where at least one definite finding is one the expectations hold
    possible_shown: int = 0
    possible_counted: int = 0
    shown_per_file: list[int] = field(default_factory=list)
    errors: int = 0

    def add(self, entry: Entry, actual: Actual) -> None:
        self.files += 1
        self.negatives += entry.negative
        got = Counter(actual.deployments)
        for d in entry.deployments:
            self.expected_deployments[d.engine] += 1
            if got[d] > 0:
                got[d] -= 1
                self.recognised[d.engine] += 1
        if entry.negative:
            self.false_on_negatives += len(actual.deployments)
            self.warnings_on_negatives += len(actual.warnings)
        self.definite += sum(f.certainty == "definite" for f in actual.findings)
        expected = {f for f in entry.findings if f.certainty == "definite"}
        self.files_with_true_definite += any(f in expected for f in actual.findings if f.certainty == "definite")
        self.possible_shown += sum(f.certainty == "possible" and f.shown for f in actual.findings)
        self.possible_counted += sum(f.certainty == "possible" and not f.shown for f in actual.findings)
        self.shown_per_file.append(sum(f.certainty == "possible" and f.shown for f in actual.findings))
        self.errors += len(actual.errors)

    def lines(self) -> list[str]:
        out = [f"files: {self.files} ({self.negatives} negative controls)"]
        for engine in ENGINES:
            want, hit = self.expected_deployments[engine], self.recognised[engine]
            rate = f"{100 * hit / want:.1f}%" if want else "n/a"
            out.append(f"{engine} deployments recognised: {hit}/{want} ({rate})")
        out.append(f"deployments on negative controls: {self.false_on_negatives}, "
                   f"warnings on them: {self.warnings_on_negatives}")
        median = statistics.median(self.shown_per_file) if self.shown_per_file else 0
        out.append(f"findings: definite {self.definite}, possible shown {self.possible_shown}, "
                   f"possible counted {self.possible_counted}")
        out.append(f"files with at least one definite true finding: {self.files_with_true_definite}")
        out.append(f"possible shown per file: median {median}, max {max(self.shown_per_file, default=0)}")
        out.append(f"read errors: {self.errors}")
        return out


def expected_totals(found: list[Entry]) -> Totals:
    """The same figures for the expectations themselves (what a correct linter prints)."""
    totals = Totals()
    for entry in found:
        totals.add(entry, Actual(list(entry.deployments), list(entry.findings), []))
    return totals


def evaluate(found: list[Entry]) -> tuple[Totals, list[Difference]]:
    totals, differences = Totals(), []
    for entry in found:
        actual = run(entry)
        totals.add(entry, actual)
        differences.extend(compare(entry, actual))
    return totals, differences


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--totals", action="store_true", help="print only the totals")
    parser.add_argument("--only", metavar="PREFIX", action="append",
                        help="only the entries whose corpus path starts with PREFIX (repeatable)")
    args = parser.parse_args(argv)
    found = entries()
    if args.only:
        found = [e for e in found if any(e.name.startswith(p) for p in args.only)]
    totals, differences = evaluate(found)
    print("relialint on the corpus (default output):")
    print("\n".join(f"  {line}" for line in totals.lines()))
    if args.totals:
        return 0
    print("the expectations (a correct linter):")
    print("\n".join(f"  {line}" for line in expected_totals(found).lines()))
    gaps = known_gaps()
    kinds = Counter(d.kind for d in differences)
    print(f"differences: {len(differences)} in {len({d.entry for d in differences})} files "
          f"({', '.join(f'{k} {n}' for k, n in sorted(kinds.items())) or 'none'}); known gaps listed: {len(gaps)}")
    reasons = repeated_reasons(found) + [r for e in found for r in [*e.problems, *uncited_reasons(e)]]
    if reasons:
        print(f"\n## reasons ({len(reasons)})")
        print("\n".join(f"  {r}" for r in reasons))
    for kind in sorted(kinds):
        print(f"\n## {kind}")
        for d in differences:
            if d.kind == kind:
                print(f"  {d.entry}: {d.detail}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    raise SystemExit(main())
