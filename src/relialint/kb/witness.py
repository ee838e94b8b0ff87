"""The witness gate (``KB017``, ``KB018``): every version bound of a record agrees with what the released code shows.

``tools/witness.py`` evaluates each range's ``witness.code`` on every release artifact of the engine and commits
the result as ``witnesses/<ID>.json`` beside the records: per release, in release order, whether the checks hold
(the release is *affected*) and where they matched. This module reads those results (never an artifact, never the
network) and checks the record against them:

- ``introduced`` is the first affected release, after at least one release that is not (or, with
  ``older_unchecked``, the oldest release checked, when the code already holds there);
- ``fixed`` is the first release after the affected ones, which are followed by at least one that is not;
- ``last_affected`` is the last affected release; with no ``fixed``, also the newest release checked (past it
  nothing is known);
- ``last_known_good`` is the last release before the affected ones;
- the affected releases are one unbroken stretch (two stretches are two ranges).

For llama.cpp an artifact is a llama-cpp-python sdist whose vendored build may be known only as a bracket
``bLOW-bHIGH``: a bound then takes the end of the bracket that makes it safe (``introduced`` and ``fixed`` the
high end: every build from there on is surely past the change; ``last_affected`` and ``last_known_good`` the low
end), and where builds lie between the last release on one side and the first on the other, the range must name
both bounds, so that those builds stay unknown.

A bound no code can show is listed in ``witness.unwitnessed`` with why; the evaluator never lets such a bound make a
finding definite or a version clean. ``KB018``: a range that starts must end (``fixed``, or ``last_affected``: the
newest release checked), so one report never becomes a finding on every later release. ``KB019``: a record about an
engine gives affected ranges, unless its trigger decides the version itself (the per-version option and env
tables).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from relialint.kb.loader import LoadedRecord, Problem

BOUNDS = ("introduced", "fixed", "last_affected", "last_known_good")
SAFE_END = {"introduced": "high", "fixed": "high", "last_affected": "low", "last_known_good": "low"}


@dataclass(frozen=True)
class Row:
    """One release in a witness result: its engine version (a bracket for a llama.cpp build range) and verdict."""

    release: str
    low: str
    high: str
    affected: bool
    seen: tuple[str | None, ...]

    def end(self, which: str) -> str:
        return self.high if which == "high" else self.low


def _row(raw: dict[str, Any]) -> Row:
    low, _, high = str(raw["version"]).partition("-")
    return Row(str(raw["release"]), low, high or low, bool(raw["affected"]), tuple(raw.get("seen") or ()))


def load_results(directory: Path, record_id: str) -> tuple[dict[int, dict[str, Any]], str | None]:
    """Range index -> committed result, and an error message when the file cannot be read."""
    path = directory / "witnesses" / f"{record_id}.json"
    if not path.is_file():
        return {}, None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {int(r["index"]): r for r in data["ranges"]}, None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return {}, f"{path.name}: not a witness result ({exc})"


def _same(engine: str, a: str, b: str) -> bool:
    from relialint.core.versions import VersionError
    from relialint.engines.versioning import parse_engine_version

    if a == b:
        return True
    try:
        return parse_engine_version(engine, a) == parse_engine_version(engine, b)
    except VersionError:
        return False


class _RangeCheck:
    def __init__(self, loaded: LoadedRecord, index: int, rng: dict[str, Any]) -> None:
        self.loaded = loaded
        self.index = index
        self.rng = rng
        self.engine = str(rng["engine"])
        self.problems: list[Problem] = []

    def problem(self, loc: tuple[str | int, ...], code: str, message: str) -> None:
        span = self.loaded.span(("trigger", "affected", self.index, *loc)) or \
            self.loaded.span(("trigger", "affected", self.index))
        line, column = (span.line, span.column) if span else (1, 1)
        self.problems.append(Problem(self.loaded.path, line, column, code, message))

    def run(self, result: dict[str, Any] | None, read_error: str | None) -> list[Problem]:
        rng = self.rng
        bounds = [b for b in BOUNDS if rng.get(b)]
        if rng.get("introduced") and not rng.get("fixed") and not rng.get("last_affected"):
            self.problem(("introduced",), "KB018", "the range never ends: give fixed (the first release whose code "
                         "no longer has the problem) or last_affected (the newest release checked that still has "
                         "it); versions past it are then possible, not affected")
        if not bounds:
            return self.problems
        witness = rng.get("witness")
        if not witness:
            self.problem((bounds[0],), "KB017", f"no witness for {', '.join(bounds)}: give witness.code (checked on "
                         "every release by tools/witness.py) or witness.unwitnessed with why no code can show it")
            return self.problems
        unwitnessed = witness.get("unwitnessed") or {}
        for bound in unwitnessed:
            if bound not in bounds:
                self.problem(("witness", "unwitnessed", bound), "KB017",
                             f"unwitnessed names {bound}, which the range does not set")
        coded = [b for b in bounds if b not in unwitnessed]
        code = witness.get("code") or []
        if coded and not code:
            self.problem((coded[0],), "KB017", f"{', '.join(coded)}: no code checks and no unwitnessed reason")
            return self.problems
        if not code:
            return self.problems
        if read_error:
            self.problem(("witness",), "KB017", read_error)
            return self.problems
        if result is None:
            self.problem(("witness",), "KB017", "no witness result: run python tools/witness.py "
                         f"{self.loaded.data.get('id')} and commit records/witnesses/")
            return self.problems
        if result.get("engine") != self.engine or _canon(result.get("code")) != _canon(code):
            self.problem(("witness",), "KB017", "the witness result was made from other checks: rerun "
                         f"python tools/witness.py {self.loaded.data.get('id')}")
            return self.problems
        rows = [_row(r) for r in result.get("releases") or []]
        self._timeline(rows, coded)
        return self.problems

    def _timeline(self, rows: list[Row], coded: list[str]) -> None:
        rng = self.rng
        hits = [i for i, r in enumerate(rows) if r.affected]
        if not hits:
            span = f"{rows[0].release}-{rows[-1].release}" if rows else "none"
            self.problem(("witness",), "KB017", f"the code checks hold on no release checked ({span}): they do not "
                         "witness this range")
            return
        first, last = hits[0], hits[-1]
        if last - first + 1 != len(hits):
            gaps = [rows[i].release for i in range(first, last + 1) if not rows[i].affected]
            self.problem(("witness",), "KB017", "the code checks hold, stop and hold again (not on "
                         f"{', '.join(gaps)}): one range per unbroken stretch")
            return
        before = rows[first - 1] if first > 0 else None
        older_unchecked = bool((rng.get("witness") or {}).get("older_unchecked"))
        if older_unchecked and before is not None:
            self.problem(("witness", "older_unchecked"), "KB017", f"older_unchecked, but {before.release}, an older "
                         "release checked, does not have it: introduced is witnessed on both sides")
        after = rows[last + 1] if last + 1 < len(rows) else None
        gap_before = before is not None and not self._adjacent(before, rows[first])
        gap_after = after is not None and not self._adjacent(rows[last], after)
        expected: dict[str, tuple[str | None, str]] = {
            "introduced": (rows[first].end("high") if before or older_unchecked else None,
                           f"the first release whose code has it is {rows[first].release}" +
                           (f" ({before.release} does not)" if before else
                            " and it is the oldest release checked: the introduction may be older; widen the "
                            "window (tools/witness.py --since) or set witness.older_unchecked")),
            "fixed": (after.end("high") if after else None,
                      (f"the first release after the affected ones is {after.release}" if after else
                       f"the code still has it in the newest release checked ({rows[last].release}): no release "
                       f"fixes it; give last_affected: {rows[last].end('low')}")),
            "last_affected": (rows[last].end("low") if (after is None or rng.get("fixed")) else None,
                              f"the last release whose code has it is {rows[last].release}" +
                              (f" and {after.release} no longer has it: give fixed" if after and not rng.get("fixed")
                               else "")),
            "last_known_good": (before.end("low") if before else None,
                                f"the last release before the affected ones is {before.release}" if before else
                                "no release before the affected ones was checked"),
        }
        for bound in coded:
            want, why = expected[bound]
            have = str(rng[bound])
            if want is None or not _same(self.engine, have, want):
                self.problem((bound,), "KB017", f"{bound} is {have} but the released code says "
                             f"{want if want else 'no such bound'}: {why}")
        if gap_before and not rng.get("last_known_good") and "introduced" in coded and before is not None:
            self.problem(("introduced",), "KB017", f"builds between {before.end('low')} and "
                         f"{rows[first].end('high')} were not checked: give last_known_good: {before.end('low')}")
        if gap_after and not rng.get("last_affected") and "fixed" in coded:
            self.problem(("fixed",), "KB017", f"builds between {rows[last].end('low')} and "
                         f"{after.end('high') if after else ''} were not checked: give last_affected: "
                         f"{rows[last].end('low')}")

    def _adjacent(self, older: Row, newer: Row) -> bool:
        """No engine version lies strictly between two checked releases (always so for wheels: every release is
        checked; for llama.cpp builds only when the numbers follow each other)."""
        from relialint.engines.registry import default_registry

        model = default_registry().get(self.engine)
        if model is None or model.scheme != "build":  # numbered builds: the only versions with gaps between them
            return True
        try:
            return int(newer.high.lstrip("b")) - int(older.low.lstrip("b")) <= 1
        except ValueError:
            return False


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def check(loaded: LoadedRecord, directory: Path) -> list[Problem]:
    """The witness problems of one record, against the results committed beside it."""
    from relialint.kb.describe import per_version_facts

    trigger = loaded.data.get("trigger")
    ranges = ((trigger or {}).get("affected")) or []
    if not ranges:
        if trigger and loaded.data.get("engines") and not per_version_facts(trigger):
            span = loaded.span(("trigger", "when")) or loaded.span(("trigger",))
            line, column = (span.line, span.column) if span else (1, 1)
            return [Problem(loaded.path, line, column, "KB019", "an engine's failure with no affected range would "
                            "be reported on every release, past and future: give the ranges the released code "
                            "shows (with older_unchecked where it holds on the oldest release checked)")]
        return []
    results, error = load_results(directory, str(loaded.data.get("id")))
    problems: list[Problem] = []
    for index, rng in enumerate(ranges):
        problems += _RangeCheck(loaded, index, rng).run(results.get(index), error)
    return problems
