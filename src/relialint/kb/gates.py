"""The quality gates on where a record's claims come from, each with its own code:

- ``KB013``: a record drawn from a tracker (a reference that names or links an issue or PR,
  ``kb.upstream.drawn_from_tracker``) links at least one issue or PR thread by url;
- ``KB014``: every issue or PR number its text names is linked by one of its references;
- ``KB015``: every bound of an affected range says where it comes from (``bound_sources``), and names no bound
  the range does not set;
- ``KB016``: a comment cuts a prose value short (an unquoted ``text #1234`` ends the YAML value at ``text``);
- ``KB021``: a record the catalogue-growth rule chose (any id not in ``BEFORE_REACH``) states its ``reach`` (a record
  with a config trigger that no public config can hit waits: its estimate must be above 0) and links its upstream
  source by ``url``.
"""

from __future__ import annotations

import re
from pathlib import Path

from relialint.kb import upstream
from relialint.kb.loader import LoadedRecord, Problem
from relialint.kb.model import IMPACT_BY_HUNDRED
from relialint.readers.located import Span

Loc = tuple[str | int, ...]

BEFORE_REACH = ("RL101-RL125 RL130-RL133 RL150-RL156 RL201-RL219 RL221 RL230-RL232 RL250-RL254 RL301-RL306 RL320 "
                "RL350 RL352-RL355 RL401-RL404 RL501-RL514 RL520-RL528 RL540-RL542 RL550-RL554 RL556-RL559")
"""The ids written before the catalogue-growth rule (records chosen by how many public configs can hit them, each
linking its upstream source). Every other id follows the rule; these keep their references as they are."""


def before_reach(record_id: str) -> bool:
    """Whether the id is one of ``BEFORE_REACH``'s."""
    number = int(record_id[2:])
    for span in BEFORE_REACH.split():
        first, _, last = span.partition("-")
        if int(first[2:]) <= number <= int((last or first)[2:]):
            return True
    return False


def locate(loaded: LoadedRecord, loc: Loc, needle: str | None = None) -> tuple[int, int]:
    """Where a problem points: at ``needle`` inside the value at ``loc`` when it is found there in the file (the
    ``#1234`` in a folded paragraph), else at the key, else at the top of the file."""
    from relialint.readers.yamlsafe import find

    node = find(loaded.tree, loc)
    if needle and node is not None:
        # a folded paragraph may break the needle across lines: then its number alone, then the value
        for part in (needle, needle.split()[-1]):
            spot = _find_in(loaded.path, part, node.span)
            if spot is not None:
                return spot
    span = loaded.span(loc)
    return (span.line, span.column) if span else (1, 1)


def _find_in(path: str, needle: str, span: Span) -> tuple[int, int] | None:
    line0, col0, line1, col1 = span.line, span.column, span.end_line, span.end_column
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    for number in range(line0, min(line1, len(lines)) + 1):
        text = lines[number - 1]
        start = col0 - 1 if number == line0 else 0
        end = col1 - 1 if number == line1 else len(text)
        found = text.find(needle, start, end)
        if found >= 0:
            return number, found + 1
    return None


def _problem(loaded: LoadedRecord, loc: Loc, code: str, message: str, needle: str | None = None) -> Problem:
    line, column = locate(loaded, loc, needle)
    return Problem(loaded.path, line, column, code, message)


def check(loaded: LoadedRecord) -> list[Problem]:
    """The gates' problems for one record."""
    return (_tracker_link(loaded) + _numbers_linked(loaded) + _bound_sources(loaded) + _cut_by_comment(loaded)
            + _reach_and_link(loaded))


def _reach_and_link(loaded: LoadedRecord) -> list[Problem]:
    record = loaded.record
    if before_reach(record.id) or record.status == "withdrawn" or record.id[2] not in IMPACT_BY_HUNDRED:
        return []
    problems: list[Problem] = []
    if record.reach is None:
        problems.append(_problem(loaded, ("published",), "KB021",
                                 "a record chosen by the catalogue-growth rule states its reach: the exact "
                                 "strings searched in public configs, the files each found, and the estimate"))
    elif record.trigger is not None and record.reach.estimate == 0:
        problems.append(_problem(loaded, ("reach", "estimate"), "KB021",
                                 "no public config can hit this record's trigger (reach estimate 0): it waits"))
    if not any(ref.url for ref in record.references if ref.kind != "source"):
        problems.append(_problem(loaded, ("references",), "KB021",
                                 "a record chosen by the catalogue-growth rule links its upstream source (an "
                                 "issue, pull request, documentation page or source file) by url"))
    return problems


def _tracker_link(loaded: LoadedRecord) -> list[Problem]:
    data = loaded.data
    if not upstream.drawn_from_tracker(data) or upstream.threads(data):
        return []
    refs = data.get("references") or []
    index = next(i for i, ref in enumerate(refs)
                 if any(upstream.mentions(str(ref.get(key) or "")) for key in ("title", "locator")))
    return [_problem(loaded, ("references", index), "KB013",
                     "the record is drawn from a tracker (this reference names an issue or PR) but no reference "
                     "links an issue or pull request: give the thread's url")]


def _numbers_linked(loaded: LoadedRecord) -> list[Problem]:
    threads = upstream.threads(loaded.data)
    problems = []
    for loc, text in upstream.texts(loaded.data):
        for mention in upstream.mentions(text):
            if upstream.links(mention, threads):
                continue
            where = f" of {mention.repo}" if mention.repo else ""
            problems.append(_problem(loaded, loc, "KB014",
                                     f"{mention.text.strip()!r} names issue or PR {mention.number}{where}, which no "
                                     "reference links: add a reference whose url is that thread",
                                     mention.text.strip()))
    return problems


def _bound_sources(loaded: LoadedRecord) -> list[Problem]:
    problems = []
    for name in ("trigger", "runtime_trigger"):
        for index, rng in enumerate((loaded.data.get(name) or {}).get("affected") or []):
            given = rng.get("bound_sources") or {}
            for bound in upstream.BOUNDS:
                loc = (name, "affected", index, bound)
                if rng.get(bound) and not str(given.get(bound) or "").strip():
                    problems.append(_problem(loaded, loc, "KB015",
                                             f"{bound} {rng[bound]} does not say where it comes from: add "
                                             f"bound_sources.{bound} (the release holding the fixing commit, the "
                                             "reference section, the measurement), or leave the bound out"))
                elif bound in given and not rng.get(bound):
                    problems.append(_problem(loaded, (name, "affected", index, "bound_sources", bound), "KB015",
                                             f"bound_sources names {bound}, which the range does not set"))
    return problems


def _cut_by_comment(loaded: LoadedRecord) -> list[Problem]:
    """An unquoted value followed on its line by `` #...``: YAML reads the rest of the line as a comment, so the
    text the author wrote after it (often an issue number) is silently lost."""
    from relialint.readers.yamlsafe import YScalar, find

    try:
        lines = Path(loaded.path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    problems = []
    for loc, text in upstream.texts(loaded.data):
        node = find(loaded.tree, loc)
        if not isinstance(node, YScalar) or node.quoted or not 0 < node.span.end_line <= len(lines):
            continue
        rest = lines[node.span.end_line - 1][node.span.end_column - 1:]
        if _COMMENT.match(rest):
            problems.append(Problem(loaded.path, node.span.end_line, node.span.end_column + len(rest) -
                                    len(rest.lstrip()), "KB016",
                                    f"this ` #` starts a YAML comment, so the value ends at {text[-30:]!r}: quote "
                                    "the whole value"))
    return problems


_COMMENT = re.compile(r"\s+#")
