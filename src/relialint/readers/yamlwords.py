"""Shared by the YAML-based readers (compose, Kubernetes, Helm values): located words from YAML scalars.

A scalar's value can differ from its source text (quotes, escapes, folded ``>`` lines, block indentation), so
positions inside a scalar come from aligning the value with the source: each character of the value is matched
to the next equal character of the source region, skipping what the YAML syntax added. Strings split into words
with shell rules (compose ``command: vllm serve ...``) keep each word's own ``line:col``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from typing import NamedTuple, Protocol, runtime_checkable

from relialint.base import bounds
from relialint.readers.located import Command, EnvVar, FileResult, ReadError, Span, Word
from relialint.readers.opener import FileOpener
from relialint.readers.yamlsafe import YamlError, YMap, YNode, YScalar, YSeq, load_all

MAX_YAML_CHARS = 1024 * 1024
"""YAML larger than this is not parsed (the pure-Python parser reads about 150 KB/s): an error, never a long wait.
Deployment manifests are a few kilobytes; the general limit for other formats is ``located.MAX_FILE_BYTES``."""

_LOOKAHEAD = 400
Interp = Callable[[str, Span], tuple[str | None, Span | None]]
"""Turns a raw value into ``(value, source)``; ``value`` None when unknown (compose ``${VAR}``)."""


@runtime_checkable
class Expander(Protocol):
    """An ``Interp`` that can also say where each character of a value it expanded was written."""

    def raw_offsets(self, raw: str) -> list[int] | None:
        """For each character of the expanded value, its index in ``raw`` (a substituted value's characters lie
        within their reference); ``None`` when the value is unknown or the same text as ``raw``."""
        ...


class Placed(NamedTuple):
    """The YAML scalar a word came from, and (after a substitution such as Kubernetes ``$(VAR)``) where each
    character of the word's text was written in it."""

    node: YScalar
    raw_offsets: list[int] | None = None


def load(text: str, path: str) -> list[YNode | None]:
    """``yamlsafe.load_all`` with the YAML size bound; raises ``YamlError`` with a location."""
    if len(text) > MAX_YAML_CHARS:
        raise YamlError(ReadError(path, 1, 1, f"YAML file too large to parse ({len(text)} characters; the limit "
                                              f"is {MAX_YAML_CHARS})"))
    return load_all(text, path)


def mappings(text: str, path: str, result: FileResult, opener: FileOpener) -> tuple[Src, list[YMap]]:
    """The file's top-level mappings, one per YAML document; a YAML problem is a located error of ``result`` and
    gives none."""
    try:
        documents = load(text, path)
    except YamlError as exc:
        result.errors.append(exc.error)
        return Src(text, path, opener), []
    return Src(text, path, opener), [d for d in documents if isinstance(d, YMap)]


class Src:
    """Offsets and spans in one file's text, and the opener for the files it names (the scripts embedded in it
    may name one: ``docker run --env-file``)."""

    def __init__(self, text: str, path: str, opener: FileOpener) -> None:
        self.text = text
        self.path = path
        self.opener = opener
        self.starts = [0]
        for match in re.finditer("\n", text):
            self.starts.append(match.end())

    def offset(self, line: int, column: int) -> int:
        index = min(max(line - 1, 0), len(self.starts) - 1)
        return min(self.starts[index] + column - 1, len(self.text))

    def position(self, offset: int) -> tuple[int, int]:
        index = bisect_right(self.starts, offset) - 1
        return index + 1, offset - self.starts[index] + 1

    def span(self, start: int, end: int) -> Span:
        line, column = self.position(start)
        end_line, end_column = self.position(max(end, start))
        return Span(self.path, line, column, end_line, end_column)

    def align(self, value: str, span: Span) -> list[int]:
        """Source offset of each character of ``value``, which was written in the region ``span``."""
        start = self.offset(span.line, span.column)
        end = max(self.offset(span.end_line, span.end_column), start)
        out: list[int] = []
        j = start
        for char in value:
            k = self.text.find(char, j, min(end, j + _LOOKAHEAD)) if j < end else -1
            if k < 0:
                out.append(min(j, end))
                continue
            out.append(k)
            j = k + 1
        return out

    def sub_span(self, offsets: list[int], start: int, end: int, fallback: Span) -> Span:
        if not offsets or start >= len(offsets):
            return fallback
        first = offsets[start]
        last = offsets[max(min(end, len(offsets)) - 1, start)] + 1
        return self.span(first, last)


def shell_split(text: str, limit: int | None = None) -> tuple[list[tuple[str, int, int]], bool]:
    """Words of a command string by shell quoting rules (no expansion): ``(word, start, end)`` and whether the
    quoting was balanced. With ``limit``, at most ``limit + 1`` words are split: one more than ``limit`` says that
    the text holds more, and where they start (the rest is never scanned)."""
    words: list[tuple[str, int, int]] = []
    i, n = 0, len(text)
    balanced = True
    while i < n and (limit is None or len(words) <= limit):
        while i < n and text[i] in " \t\r\n":
            i += 1
        if i >= n:
            break
        start = i
        parts: list[str] = []
        while i < n and text[i] not in " \t\r\n":
            char = text[i]
            if char == "'":
                close = text.find("'", i + 1)
                if close < 0:
                    balanced = False
                    close = n
                parts.append(text[i + 1 : close])
                i = close + 1
            elif char == '"':
                i += 1
                while i < n and text[i] != '"':
                    if text[i] == "\\" and i + 1 < n and text[i + 1] in '"\\$`':
                        i += 1
                    parts.append(text[i])
                    i += 1
                if i >= n:
                    balanced = False
                i += 1
            elif char == "\\" and i + 1 < n:
                if text[i + 1] != "\n":
                    parts.append(text[i + 1])
                i += 2
            else:
                parts.append(char)
                i += 1
        words.append(("".join(parts), start, min(i, n)))
    return words, balanced


Resolved = tuple[str | None, Span | None]
"""A substitution's text (``None``: not statically known) and where the value was written."""


def substitute(raw: str, pattern: re.Pattern[str], resolve: Callable[[re.Match[str]], Resolved],
               offsets: list[int] | None = None) -> Resolved:
    """``raw`` with every ``pattern`` match replaced by ``resolve``'s text (``$$`` is a literal ``$``); unknown
    when any reference is unknown; the source of the last value taken from elsewhere. ``offsets``, when given,
    receives for each character of a known result its index in ``raw``: a replacement's characters lie within
    the reference (the first at its start, the last at its end), so a word made of one value spans the reference."""
    if "$" not in raw:
        if offsets is not None:
            offsets.extend(range(len(raw)))
        return raw, None
    unknown = False
    source: Span | None = None
    replaced: list[tuple[int, int, int]] = []

    def one(match: re.Match[str]) -> str:
        nonlocal unknown, source
        if match.group(0) == "$$":
            replaced.append((match.start(), match.end(), 1))
            return "$"
        text, where = resolve(match)
        if text is None:
            unknown = True
            return ""
        if where is not None:
            source = where
        replaced.append((match.start(), match.end(), len(text)))
        return text

    result = bounds.sub(pattern, one, raw)
    if unknown or result is None:
        return None, source
    if offsets is not None:
        at = 0
        for start, end, length in replaced:
            offsets.extend(range(at, start))
            offsets.extend(end - 1 if 0 < k == length - 1 else start for k in range(length))
            at = end
        offsets.extend(range(at, len(raw)))
    return result, source


def no_interp(raw: str, span: Span) -> tuple[str | None, Span | None]:
    del span
    return raw, None


def scalar_text(node: YNode | None) -> str | None:
    """A scalar's value as text (``True`` stays ``True``, as the tool reading it would see the string)."""
    if isinstance(node, YScalar) and node.value is not None:
        return node.text
    return None


def scalar_word(node: YScalar, interp: Interp = no_interp) -> Word:
    value, source = interp(node.text, node.span)
    return Word(value, node.span, source=source)


def split_words(src: Src, node: YScalar, interp: Interp = no_interp) -> list[Word]:
    """A command string split into located words."""
    tokens, _ = shell_split(node.text)
    offsets = src.align(node.text, node.span)
    words: list[Word] = []
    for raw, start, end in tokens:
        span = src.sub_span(offsets, start, end, node.span)
        value, source = interp(raw, span)
        if value is not None and source is not None and raw != value and re.search(r"\s", value.strip()):
            words.extend(Word(part, span, source=source) for part in value.split())
        else:
            words.append(Word(value, span, source=source))
    return words


def list_words(node: YNode | None, src: Src, interp: Interp = no_interp, split_strings: bool = True) -> list[Word]:
    """A command as a YAML list (each item a word) or a string (split with shell rules)."""
    if isinstance(node, YSeq):
        out: list[Word] = []
        for item in node.items:
            if isinstance(item, YScalar):
                if item.value is None and not item.quoted:
                    continue
                out.append(scalar_word(item, interp))
            else:
                out.append(Word(None, item.span))
        return out
    if isinstance(node, YScalar) and node.value is not None:
        if split_strings:
            return split_words(src, node, interp)
        return [scalar_word(node, interp)]
    return []


_SHELLS = {"sh", "bash", "ash", "dash", "zsh"}


def shell_script_commands(words: list[Word], src: Src, nodes: dict[int, Placed]) -> list[Command] | None:
    """``sh -c 'script'`` (as entrypoint and args together): the script's commands with spans in this file.

    ``nodes`` maps ``id(word)`` to the YAML scalar it came from (and, for a script with a substitution expanded
    in it, where each character was written), so positions in the script land in the source.
    Returns ``None`` when the words are not a shell running a script.
    """
    if not words or (words[0].text or "").rsplit("/", 1)[-1] not in _SHELLS:
        return None
    index = 1
    while index < len(words) and (words[index].text or "").startswith("-") and words[index].text != "-c":
        if "c" in (words[index].text or "")[1:]:
            break
        index += 1
    if index >= len(words) - 1 or "c" not in (words[index].text or "")[1:]:
        return None
    script_word = words[index + 1]
    if script_word.text is None:
        return None
    placed = nodes.get(id(script_word))
    if placed is None:  # a word split from a command string
        return script_commands(script_word.text, script_word.span, src, script_word.span)
    offsets: list[int] | None = None
    if placed.raw_offsets is not None:
        # the script as Kubernetes or compose expanded it: align the text as written, then map each character of
        # the expanded script to where it was written (a value inside its `$(VAR)` reference)
        written = src.align(placed.node.text, placed.node.span)
        offsets = [written[k] for k in placed.raw_offsets if k < len(written)] \
            if len(written) == len(placed.node.text) else None
        if offsets is not None and len(offsets) != len(script_word.text):
            offsets = None
    return script_commands(script_word.text, placed.node.span, src, script_word.span, offsets=offsets)


def script_commands(script: str, region: Span | None, src: Src, fallback: Span,
                    env: list[EnvVar] | None = None, offsets: list[int] | None = None) -> list[Command]:
    """A shell script embedded in this file (``sh -c`` argument, Dockerfile ``RUN``, a systemd ``ExecStart=``),
    its commands located in the file: ``region`` is where the script's text was written; ``env`` the variables
    the shell starts with; ``offsets``, where known, each character's offset in the file (a script with
    substitutions expanded, which no longer matches the text in ``region``)."""
    from relialint.readers import shell

    inner = shell.read(script, src.path, src.opener, env)
    if offsets is None:
        offsets = src.align(script, region) if region is not None else []
    script_src = Src(script, src.path, src.opener)

    def remap(span: Span) -> Span:
        if not offsets:
            return fallback
        start = script_src.offset(span.line, span.column)
        end = script_src.offset(span.end_line, span.end_column)
        return src.sub_span(offsets, start, max(end, start + 1), fallback)

    outer = {id(var.span) for var in env or []}

    def moved(span: Span | None) -> Span | None:
        """A span in the script moved into the file; one of the starting variables' is already there."""
        return span if span is None or id(span) in outer else remap(span)

    out: list[Command] = []
    for command in inner.commands:
        argv = [Word(w.text, remap(w.span), w.splice, moved(w.source)) for w in command.argv]
        env = [EnvVar(v.name, v.value, moved(v.span) or v.span, moved(v.source)) for v in command.env]
        image = Word(command.image.text, remap(command.image.span)) if command.image else None
        entry = [Word(w.text, remap(w.span), w.splice, moved(w.source))
                 for w in command.entrypoint] if command.entrypoint is not None else None
        out.append(Command(command.kind, argv, remap(command.span), env, command.env_complete, image, entry,
                           argv_complete=command.argv_complete, gpu_count=command.gpu_count,
                           gpu_count_span=remap(command.gpu_count_span) if command.gpu_count_span else None))
        out[-1].container_labels = [(label, value, remap(at)) for label, value, at in command.container_labels]
    return out


def words_with_nodes(node: YNode | None, src: Src, interp: Interp, nodes: dict[int, Placed],
                     split_strings: bool = True) -> list[Word]:
    """``list_words`` that also records which scalar each list item came from (for ``sh -c`` scripts), with
    where each character of a value that a substitution changed was written."""
    words = list_words(node, src, interp, split_strings)
    if isinstance(node, YSeq):
        scalars = [item for item in node.items if isinstance(item, YScalar) and (item.value is not None or item.quoted)]
        expander = interp if isinstance(interp, Expander) else None
        for word, item in zip(words, scalars, strict=False):
            moved = expander is not None and word.text is not None and word.text != item.text
            nodes[id(word)] = Placed(item, expander.raw_offsets(item.text) if expander is not None and moved else None)
    return words


def container_commands(image: Word | None, entrypoint: list[Word] | None, argv: list[Word], env: list[EnvVar],
                       span: Span, src: Src, nodes: dict[int, Placed], **extra: object) -> list[Command]:
    """One container, or, where it runs ``sh -c 'script'``, the script's commands inside that image."""
    from relialint.readers.wrappers import unwrap_container

    entrypoint, argv = unwrap_container(entrypoint, argv)
    words = (entrypoint or []) + argv if entrypoint is not None else argv
    inner = shell_script_commands(words, src, nodes) if entrypoint is not None or image is None else None
    if inner is None and entrypoint is None:
        inner = shell_script_commands(argv, src, nodes)
    if inner:
        out = []
        for command in inner:
            if command.image is not None:
                out.append(command)
                continue
            cmd = Command("container" if image is not None else "shell", [] if image is not None else command.argv,
                          command.span, env + command.env, image=image,
                          entrypoint=command.argv if image is not None else None,
                          argv_complete=command.argv_complete)
            _extra(cmd, extra)
            out.append(cmd)
        return out
    cmd = Command("container" if image is not None else "shell", argv if image is not None else words,
                  image.span if image is not None else span, env, image=image,
                  entrypoint=entrypoint if image is not None else None,
                  argv_complete=not any(w.splice for w in argv))
    _extra(cmd, extra)
    return [cmd]


def _extra(command: Command, extra: dict[str, object]) -> None:
    for key, value in extra.items():
        setattr(command, key, value)


def yaml_error(path: str, node: YNode | None, message: str, severity: str = "warning") -> ReadError:
    span = node.span if node is not None else Span(path, 1, 1, 1, 1)
    return ReadError(path, span.line, span.column, message, severity)


def map_items(node: YNode | None) -> list[tuple[YScalar, YNode]]:
    return node.items if isinstance(node, YMap) else []


def seq_items(node: YNode | None) -> list[YNode]:
    return node.items if isinstance(node, YSeq) else []
