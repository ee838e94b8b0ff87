"""Located pieces that readers produce: spans, words, env assignments, commands, and read errors.

Readers know no engine. They turn one input format into ``Command``s (a program's words with the environment
it runs in, or a container image with its arguments), each word with ``path:line:col``.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from relialint.base.plain import Frozen

MAX_FILE_BYTES = 5 * 1024 * 1024
"""Files larger than this are not read: an error, never a slow parse."""


class Span(NamedTuple):
    """A 1-based, end-exclusive region of a file. (A NamedTuple: readers make one for every token, and a frozen
    dataclass is several times slower to create.)"""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int


class Word(Frozen):
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
    tail: str | None = None
    """Where ``text`` is ``None`` because only a path's directory is unknown (``"$HOME/models/m-Q6_K.gguf"``,
    ``%h/models/m.gguf``, a variable assigned so): the file name as written (``m-Q6_K.gguf``), nothing expanded."""
    held: str | None = None
    """Where ``text`` is ``None`` because a reference in it takes a value that is set but not in the files (a
    Kubernetes ``$(VAR)`` whose VAR comes from a ``secretKeyRef``): the word up to that reference, expanded
    (``--api-key=``, or ``""`` when the word is the reference alone). The word is there; only its value is unknown."""
    held_by: str | None = None
    """What supplies the held value (``secretKeyRef qwen-auth/api-key of SERVER_KEY``), for the fact's note."""

    _fields = ("text", "span", "splice", "source", "variable", "tail", "held", "held_by")

    def __init__(self, text: str | None, span: Span, splice: bool = False, source: Span | None = None,
                 variable: str | None = None, tail: str | None = None, held: str | None = None,
                 held_by: str | None = None) -> None:
        self.text = text
        self.span = span
        self.splice = splice
        self.source = source
        self.variable = variable
        self.tail = tail
        self.held = held
        self.held_by = held_by


_FILE_NAME = re.compile(r"(?<=[/\\])[A-Za-z0-9._+\-]+$")


def file_name_tail(raw: str) -> str | None:
    """The literal file name at the end of a path as written (``$HOME/models/m.gguf`` -> ``m.gguf``), where a
    separator precedes it and something precedes the separator; ``None`` otherwise. Nothing is expanded: the caller
    knows the rest of the path is unknown."""
    found = _FILE_NAME.search(raw)
    if found is None or found.start() < 2:
        return None
    return found.group(0)


class EnvVar(Frozen):
    """An environment variable as the process will see it (``value`` ``None``: not statically known; ``held``:
    what sets it when it is certainly set but its value is not in the files, such as a Kubernetes
    ``secretKeyRef``)."""

    name: str
    value: str | None
    span: Span
    source: Span | None = None
    held: str | None = None

    _fields = ("name", "value", "span", "source", "held")

    def __init__(self, name: str, value: str | None, span: Span, source: Span | None = None,
                 held: str | None = None) -> None:
        self.name = name
        self.value = value
        self.span = span
        self.source = source
        self.held = held


UNKNOWN = "\x00unknown"
"""A container label's value that is set but not known (a ``$PORT`` the file does not give)."""


class Command:
    """One command a file runs or declares.

    For a shell line ``argv`` holds every word, program first. For a container (compose service, Kubernetes
    container, ``docker run``) ``image`` is set, ``entrypoint`` holds an explicit entrypoint override (``None``:
    the image's own) and ``argv`` the arguments appended to it.
    """

    kind: str
    argv: list[Word]
    span: Span
    env: list[EnvVar]
    env_complete: bool = True
    image: Word | None = None
    entrypoint: list[Word] | None = None
    name: str | None = None
    gpu_count: int | None = None
    gpu_count_span: Span | None = None
    gpu_labels: list[tuple[str, str, Span]]
    argv_complete: bool = True
    branch: Branch = ()
    """Where the command sits in the file's alternatives (see ``exclusive``)."""
    problems: list[ReadError]
    """What could not be read for it (an ``--env-file`` that is a device, a FIFO or missing), located."""
    argv_from_image: bool = False
    """A container whose file writes no command and no entrypoint, and no Dockerfile read says what its image runs:
    the image's own ``CMD`` runs, unseen here (``argv`` is then empty and says nothing about the options)."""
    shows: list[tuple[str, str, Span]]
    """What a container declares beside its launch, as written, for the engine models to weigh when the launch is
    unseen: ``("name", service or container name)``, ``("port", container port)``, ``("volume", a mount's
    source or target)``, ``("probe", a health check's command or HTTP path)``."""
    container_labels: list[tuple[str, str, Span]]
    """What the container platform says about the container the command runs in, as written, for the evidence
    layer to turn into ``container.*`` facts (``engines.evidence.container_facts``): ``("kind", compose | docker |
    kubernetes)`` first (none: not a container of one of these), then ``("cpus", limit)``, ``("publish", host IP or
    "")``, ``("publish_all", "")``, ``("network", mode)``, ``("host_port", port)``, ``("service", type)``,
    ``("ipc", mode)``, ``("shm_size", size)``, ``("shm_dir", sizeLimit or "")``, ``("mount", target)``,
    ``("partial", why)`` (the file shows only part of the pod spec: what is not written is unknown, not absent)."""

    def __init__(self, kind: str, argv: list[Word], span: Span, env: list[EnvVar] | None = None,
                 env_complete: bool = True, image: Word | None = None, entrypoint: list[Word] | None = None,
                 name: str | None = None, gpu_count: int | None = None, gpu_count_span: Span | None = None,
                 gpu_labels: list[tuple[str, str, Span]] | None = None, argv_complete: bool = True,
                 branch: Branch = (), problems: list[ReadError] | None = None) -> None:
        self.shows = []
        self.container_labels = []
        self.kind = kind
        self.argv = argv
        self.span = span
        self.env = [] if env is None else env
        self.env_complete = env_complete
        self.image = image
        self.entrypoint = entrypoint
        self.name = name
        self.gpu_count = gpu_count
        self.gpu_count_span = gpu_count_span
        self.gpu_labels = [] if gpu_labels is None else gpu_labels
        self.argv_complete = argv_complete
        self.branch = branch
        self.problems = [] if problems is None else problems


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


class ReadError(Frozen):
    """A problem reading an input, located as well as the reader could."""

    path: str
    line: int
    column: int
    message: str
    severity: str = "error"

    _fields = ("path", "line", "column", "message", "severity")

    def __init__(self, path: str, line: int, column: int, message: str, severity: str = "error") -> None:
        self.path = path
        self.line = line
        self.column = column
        self.message = message
        self.severity = severity


class FileResult:
    """What a reader made of one file: its commands in order, files it writes (heredocs), and errors."""

    path: str
    kind: str
    commands: list[Command]
    errors: list[ReadError]
    written_files: dict[str, tuple[str, Span]]
    text: str = ""
    used_files: list[str]
    """Other files this one read (a ``.env``, an ``env_file``, a built Dockerfile), so they are not linted again
    as standalone files."""
    interpreter: Word | None = None
    """A script's ``#!`` interpreter as written (``/data/data/com.termux/files/usr/bin/bash``), where it has one."""

    def __init__(self, path: str, kind: str, commands: list[Command] | None = None,
                 errors: list[ReadError] | None = None, written_files: dict[str, tuple[str, Span]] | None = None,
                 text: str = "", used_files: list[str] | None = None) -> None:
        self.path = path
        self.kind = kind
        self.commands = [] if commands is None else commands
        self.errors = [] if errors is None else errors
        self.written_files = {} if written_files is None else written_files
        self.text = text
        self.used_files = [] if used_files is None else used_files
        self.interpreter = None


def decode(data: bytes, display: str) -> tuple[str | None, ReadError | None]:
    """Bytes to text, or a located error for binary or non-UTF-8 input. UTF-16 with a byte-order mark is decoded;
    lone CR line ends (old Mac) become LF so lines are counted as an editor counts them."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError:
            return None, ReadError(display, 1, 1, "not valid UTF-16 (the file starts with a UTF-16 byte-order mark)")
        return _lines(text.replace("\x00", "\ufffd") if "\x00" in text else text), None
    nul = data.find(b"\x00")
    if nul >= 0:
        line, column = _position(data, nul)
        return None, ReadError(display, line, column, "binary file (NUL byte); not a configuration file")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return _lines(data.decode("utf-8")), None
    except UnicodeDecodeError as exc:
        line, column = _position(data, exc.start)
        return None, ReadError(display, line, column, f"not valid UTF-8 (byte 0x{data[exc.start]:02x})")


_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate(text: str, display: str) -> ReadError | None:
    """A located error for text that holds a lone surrogate (an editor's buffer can: JSON escapes any code unit),
    which no file holds and no reader can encode; ``None`` for text without one."""
    found = _SURROGATE.search(text)
    if found is None:
        return None
    at = found.start()
    line = text.count("\n", 0, at) + text.count("\r", 0, at) - text.count("\r\n", 0, at) + 1
    start = max(text.rfind("\n", 0, at), text.rfind("\r", 0, at)) + 1
    return ReadError(display, line, at - start + 1, f"not valid Unicode (a lone surrogate, U+{ord(text[at]):04X}); "
                                                     "not read")


def _lines(text: str) -> str:
    """CR-only line ends read as LF (one character for one, so columns do not move); CRLF is kept."""
    if "\r" not in text:
        return text
    return _LONE_CR.sub("\n", text)


_LONE_CR = re.compile(r"\r(?!\n)")


def _position(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    return line, offset - start + 1
