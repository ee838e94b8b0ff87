"""Loading records: YAML (safe, located) into validated ``Record``s, and a compiled JSON form for the linter.

The compiled form is what ``relialint check`` reads on every run: plain data, cached under the user's cache
folder, keyed by the record files' paths, sizes and modification times, so a start needs no YAML parse and no
pydantic.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from relialint.base.errors import never_none
from relialint.base.plain import Frozen
from relialint.disk import read_text
from relialint.readers.located import Span

if TYPE_CHECKING:
    from relialint.readers.yamlsafe import YNode


class Problem(Frozen):
    """A located problem in a record file; ``code`` is one of the ``KB0xx`` codes."""

    path: str
    line: int
    column: int
    code: str
    message: str

    _fields = ("path", "line", "column", "code", "message")

    def __init__(self, path: str, line: int, column: int, code: str, message: str) -> None:
        self.path = path
        self.line = line
        self.column = column
        self.code = code
        self.message = message


class LoadedRecord:
    path: str
    data: dict[str, Any]
    tree: YNode | None
    record: Any  # kb.model.Record

    def __init__(self, path: str, data: dict[str, Any], tree: YNode | None, record: Any) -> None:
        self.path = path
        self.data = data
        self.tree = tree
        self.record = record

    def span(self, loc: tuple[str | int, ...]) -> Span | None:
        from relialint.readers.yamlsafe import key_span

        return key_span(self.tree, loc)


class LoadResult:
    records: list[LoadedRecord]
    problems: list[Problem]

    def __init__(self, records: list[LoadedRecord] | None = None, problems: list[Problem] | None = None) -> None:
        self.records = [] if records is None else records
        self.problems = [] if problems is None else problems


def shipped_dir() -> Path:
    """The records shipped with relialint: inside the installed package, or the checkout's ``records/``."""
    packaged = Path(__file__).resolve().parents[1] / "_records"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[3] / "records"


def record_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.glob("*.y*ml") if p.suffix in (".yaml", ".yml"))


def load_dir(directory: Path) -> LoadResult:
    """Every record file of a folder, validated against the schema (semantic checks are ``validate``'s job)."""
    from pydantic import ValidationError

    from relialint.kb.model import Record
    from relialint.readers.yamlsafe import YamlError, key_span, load_all, plain

    result = LoadResult()
    if not directory.is_dir():
        result.problems.append(Problem(str(directory), 1, 1, "KB001", "not a folder of records"))
        return result
    for path in record_files(directory):
        display = str(path)
        text, error = read_text(path, display)
        if error is not None or text is None:
            error = never_none(error, "read_text gives an error where it gives no text")
            result.problems.append(Problem(display, error.line, error.column, "KB001", error.message))
            continue
        try:
            docs = load_all(text, display)
        except YamlError as exc:
            e = exc.error
            result.problems.append(Problem(display, e.line, e.column, "KB001", e.message))
            continue
        if len(docs) != 1 or docs[0] is None:
            result.problems.append(Problem(display, 1, 1, "KB002", "a record file holds exactly one YAML document"))
            continue
        tree = docs[0]
        data = plain(tree)
        if not isinstance(data, dict):
            result.problems.append(Problem(display, 1, 1, "KB002", "a record is a mapping"))
            continue
        try:
            record = Record.model_validate(data)
        except ValidationError as exc:
            for err in exc.errors():
                loc = _loc(err["loc"])
                span = key_span(tree, loc) or tree.span
                where = ".".join(str(p) for p in loc) or "(record)"
                result.problems.append(Problem(display, span.line, span.column, "KB002", f"{where}: {err['msg']}"))
            continue
        result.records.append(LoadedRecord(display, data, tree, record))
    return result


def _loc(raw: tuple[Any, ...]) -> tuple[str | int, ...]:
    """A pydantic error location without the union-member names it inserts."""
    out: list[str | int] = []
    for part in raw:
        if isinstance(part, str) and (part in ("All", "Any_", "Not", "Leaf") or part.startswith(("function-",
                                                                                                 "list[", "str",
                                                                                                 "bool", "int",
                                                                                                 "float"))):
            continue
        out.append("in" if part == "in_" else ("not" if part == "not_" else part))
    return tuple(out)


def compile_record(loaded: LoadedRecord) -> dict[str, Any]:
    """The plain form the linter evaluates."""
    data: dict[str, Any] = loaded.record.model_dump(mode="json", by_alias=True, exclude_none=True)
    data["_path"] = loaded.path
    return data


def compiled(directories: list[Path]) -> tuple[list[dict[str, Any]], list[Problem]]:
    """The records of these folders in compiled form, from the cache when the files have not changed, each
    trigger compiled into its typed tree (:func:`relialint.core.triggers.attach`, after the cache is written: the cache
    holds plain data)."""
    import json

    from relialint.base import cache
    from relialint.core.triggers import attach

    files = [p for d in directories for p in record_files(d)] if directories else []
    key = cache.digest(files)
    text = cache.read_text("records", key)
    try:
        hit = None if text is None else json.loads(text)
    except ValueError:
        hit = None
    if isinstance(hit, list) and text is not None:
        return attach(hit, text), []
    records: list[dict[str, Any]] = []
    problems: list[Problem] = []
    for directory in directories:
        result = load_dir(directory)
        problems.extend(result.problems)
        records.extend(compile_record(r) for r in result.records)
    records.sort(key=lambda r: r["id"])
    text = json.dumps(records)
    if not problems:
        cache.write_text("records", key, text)
    return attach(records, text), problems
