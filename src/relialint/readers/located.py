"""Located pieces that readers produce: spans, words, env assignments, commands, and read errors.

Readers know no engine. They turn one input format into ``Command``s (a program's words with the environment
it runs in, or a container image with its arguments), each word with ``path:line:col``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

MAX_FILE_BYTES = 5 * 1024 * 1024
"""Files larger than this are not read: an error, never a slow parse."""


@dataclass(frozen=True)
class Span:
    """A 1-based, end-exclusive region of a file."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class Word:
    """One word of a command line.

    ``text`` is ``None`` when the value is not statically known (an unresolved ``$VAR``). ``splice`` is true when
    the word may expand to any number of words (``"$@"``, an unquoted ``$OPTS``). ``source`` is where a
    substituted value came from (an assignment earlier in the script, a ``.env`` line) when that differs.
    """

    text: str | None
    span: Span
    splice: bool = False
    source: Span | None = None
    variable: str | None = None
    """The variable's name when the word is one unquoted ``$NAME`` / ``${NAME}`` whose value is unknown (it may
    split; an engine may still treat it as one word where its syntax expects one, such as a model slot)."""


@dataclass(frozen=True)
class EnvVar:
    """An environment variable as the process will see it (``value`` ``None``: not statically known)."""

    name: str
    value: str | None
    span: Span
    source: Span | None = None


@dataclass(repr=False, eq=False)
class Command:
    """One command a file runs or declares.

    For a shell line ``argv`` holds every word, program first. For a container (compose service, Kubernetes
    container, ``docker run``) ``image`` is set, ``entrypoint`` holds an explicit entrypoint override (``None``:
    the image's own) and ``argv`` the arguments appended to it.
    """

    kind: str
    argv: list[Word]
    span: Span
    env: list[EnvVar] = field(default_factory=list)
    env_complete: bool = True
    image: Word | None = None
    entrypoint: list[Word] | None = None
    name: str | None = None
    gpu_count: int | None = None
    gpu_count_span: Span | None = None
    gpu_labels: list[tuple[str, str, Span]] = field(default_factory=list)
    argv_complete: bool = True
    branch: Branch = ()
    """Where the command sits in the file's alternatives (see ``exclusive``)."""


Branch = tuple[tuple[int, int, int], ...]
"""The arms a command is inside: one ``(line, column, arm)`` per enclosing ``if`` / ``case`` (the construct's
position in the file and the index of the arm: ``then`` 0, each ``elif`` / ``else`` / ``case`` item after it 1,
2, ...), outermost first."""


def exclusive(a: Branch, b: Branch) -> bool:
    """True when two commands sit in different arms of one ``if`` / ``case``, so they never run together."""
    for (la, ca, arm_a), (lb, cb, arm_b) in zip(a, b, strict=False):
        if (la, ca) != (lb, cb):
            return False
        if arm_a != arm_b:
            return True
    return False


@dataclass(frozen=True)
class ReadError:
    """A problem reading an input, located as well as the reader could."""

    path: str
    line: int
    column: int
    message: str
    severity: str = "error"


@dataclass(repr=False, eq=False)
class FileResult:
    """What a reader made of one file: its commands in order, files it writes (heredocs), and errors."""

    path: str
    kind: str
    commands: list[Command] = field(default_factory=list)
    errors: list[ReadError] = field(default_factory=list)
    written_files: dict[str, tuple[str, Span]] = field(default_factory=dict)
    text: str = ""
    used_files: list[str] = field(default_factory=list)
    """Other files this one read (a ``.env``, an ``env_file``, a built Dockerfile), so they are not linted again
    as standalone files."""


def read_text(path: Path, display: str) -> tuple[str | None, ReadError | None]:
    """Read a file as text: UTF-8 (a BOM is dropped), CRLF kept for the parser, never more than
    ``MAX_FILE_BYTES``. Binary and undecodable files are errors located at the first bad byte."""
    try:
        if path.is_dir():
            return None, ReadError(display, 1, 1, "is a directory with no files relialint reads")
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            return None, ReadError(display, 1, 1, f"file too large ({size} bytes; the limit is {MAX_FILE_BYTES})")
        data = path.read_bytes()
    except FileNotFoundError:
        return None, ReadError(display, 1, 1, "no such file")
    except PermissionError:
        return None, ReadError(display, 1, 1, "permission denied")
    except OSError as exc:
        return None, ReadError(display, 1, 1, f"cannot read: {exc.strerror or exc}")
    return decode(data, display)


def decode(data: bytes, display: str) -> tuple[str | None, ReadError | None]:
    """Bytes to text, or a located error for binary or non-UTF-8 input."""
    nul = data.find(b"\x00")
    if nul >= 0:
        line, column = _position(data, nul)
        return None, ReadError(display, line, column, "binary file (NUL byte); not a configuration file")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        line, column = _position(data, exc.start)
        return None, ReadError(display, line, column, f"not valid UTF-8 (byte 0x{data[exc.start]:02x})")


def _position(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    return line, offset - start + 1
