"""systemd units (``.service``) and Podman Quadlet units (``.container``), located.

``ExecStart=`` (continuation lines joined; the ``-@:+!`` prefixes dropped; systemd quoting), ``Environment=``
(several quoted assignments per line), ``EnvironmentFile=`` (read relative to the unit's folder where it can be;
an absolute path is tried as a file of that name beside the unit, else the variables are unknown). ``${VAR}``
and ``$VAR`` in ``ExecStart=`` take ``Environment=`` values; ``%h``-style specifiers make a word unknown (``%%``
is a literal). Quadlet ``[Container]`` sections give a container command (``Image=``, ``Exec=``,
``Environment=``, ``AddDevice=``). Text before the first section is ignored with a warning.
"""

from __future__ import annotations

import re
from pathlib import PurePath

from relialint.base import bounds
from relialint.readers import bounded, envfile
from relialint.readers.dockerrun import docker_run
from relialint.readers.located import Command, EnvVar, FileResult, ReadError, Span, Word, file_name_tail
from relialint.readers.opener import FileOpener
from relialint.readers.wrappers import shell_script, unwrap
from relialint.readers.yamlwords import Src, script_commands, shell_split

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_SPECIFIER = re.compile(r"%[^%]")


class _Entry:
    def __init__(self, section: str, key: str, value: str, span: Span, key_span: Span) -> None:
        self.section, self.key, self.value, self.span, self.key_span = section, key, value, span, key_span


def entries(text: str, path: str) -> tuple[list[_Entry], list[ReadError]]:
    lines = text.split("\n")
    out: list[_Entry] = []
    errors: list[ReadError] = []
    section: str | None = None
    warned = False
    i = 0
    while i < len(lines):
        raw = lines[i].rstrip("\r")
        i += 1
        stripped = raw.strip()
        if not stripped or stripped[0] in "#;":
            continue
        if stripped.startswith("[") and stripped.endswith("]"):
            section = stripped[1:-1].strip()
            continue
        if section is None:
            if not warned:
                errors.append(ReadError(path, i, 1, "text before the first [Section]; ignored", "warning"))
                warned = True
            continue
        key, eq, value = raw.partition("=")
        if not eq:
            errors.append(ReadError(path, i, 1, "not a Key=Value line; ignored", "warning"))
            continue
        start_line = i
        key_start = len(key) - len(key.lstrip())
        value_col = len(key) + 2 + (len(value) - len(value.lstrip()))
        value = value.strip()
        end_line, end_col = i, len(raw) + 1
        parts = [value]  # joined once at the end: a long continuation stays linear
        while parts[-1].endswith("\\") and i < len(lines):
            nxt = lines[i].rstrip("\r")
            i += 1
            if nxt.strip()[:1] in ("#", ";"):
                continue
            parts[-1] = parts[-1][:-1]
            parts.append(" " + nxt.strip())
            end_line, end_col = i, len(nxt) + 1
        value = "".join(parts)
        span = Span(path, start_line, value_col, end_line, end_col)
        key_span = Span(path, start_line, key_start + 1, start_line, len(key.rstrip()) + 1)
        out.append(_Entry(section, key.strip(), value, span, key_span))
    return out, errors


def _assignments(entry: _Entry, src: Src) -> list[EnvVar]:
    tokens, _ = shell_split(entry.value)
    offsets = src.align(entry.value, entry.span)
    out: list[EnvVar] = []
    for raw, start, end in tokens:
        name, eq, value = raw.partition("=")
        if eq:
            out.append(EnvVar(name, None if _SPECIFIER.search(value) else value.replace("%%", "%"),
                              src.sub_span(offsets, start, end, entry.span)))
    return out


def _env_file(entry: _Entry, unit: str, result: FileResult, opener: FileOpener) -> list[EnvVar] | None:
    name = entry.value.lstrip("-").strip()
    optional = entry.value.startswith("-")
    if _SPECIFIER.search(name):
        return None
    absolute = PurePath(name).is_absolute()
    # an absolute path names a file on the machine the unit runs on: tried as a file of that name beside the unit
    opened = opener.open(unit, PurePath(name).name if absolute else name)
    if opened.refused or opened.exists:
        env, error = envfile.load(opened)
        if env is not None:
            result.used_files.append(opened.path)
            return env
        if error is not None:
            result.errors.append(ReadError(unit, entry.span.line, entry.span.column,
                                           f"EnvironmentFile {name}: {error.message}; its variables are unknown",
                                           "warning"))
            return None
    if not optional and not absolute:
        result.errors.append(ReadError(unit, entry.span.line, entry.span.column,
                                       f"EnvironmentFile {name} not found; its variables are unknown", "warning"))
    return None


def _words(entry: _Entry, src: Src, env: list[EnvVar], result: FileResult,
           raws: dict[int, str] | None = None) -> list[Word]:
    """The command line's words (at most ``bounds.MAX_WORDS``, then one unknown word for the rest, with a
    warning); ``raws`` receives the text as written of each word that holds a specifier."""
    value = entry.value
    # ExecStart= may start with special prefixes (`-` ignore failure, `@`, `:`, `+`, `!`); a Quadlet `Exec=` holds
    # the container's arguments as they are
    prefix = len(value) - len(value.lstrip("-@:+!|")) if entry.section == "Service" else 0
    body = value[prefix:]
    tokens, _ = shell_split(body, bounds.MAX_WORDS)
    rest: Span | None = None
    offsets = src.align(value[: prefix + tokens[-1][2]] if tokens else value, entry.span)
    if len(tokens) > bounds.MAX_WORDS:
        _, start, end = tokens.pop()
        rest = src.sub_span(offsets, prefix + start, prefix + end, entry.span)
    known = {var.name: var for var in env}
    words: list[Word] = []
    for raw, start, end in tokens:
        span = src.sub_span(offsets, prefix + start, prefix + end, entry.span)
        if _SPECIFIER.search(raw.replace("%%", "")):
            word = Word(None, span, tail=file_name_tail(raw))  # `%h/models/m.gguf`: the file name is written
            if raws is not None:
                raws[id(word)] = raw
            words.append(word)
            continue
        text = raw.replace("%%", "%")
        source: Span | None = None
        unknown = False

        def sub(match: re.Match[str]) -> str:
            nonlocal source, unknown
            var = known.get(match.group(1) or match.group(2))
            if var is None or var.value is None:
                unknown = True
                return ""
            source = var.span
            return var.value

        expanded = bounds.sub(_VAR, sub, text)
        unknown = unknown or expanded is None
        resolved = expanded or ""
        # `$FOO` alone as a word splits at whitespace; inside a longer word (a `bash -c` script) it does not
        split = match_splice(text)
        if unknown:
            words.append(Word(None, span, splice=split, tail=file_name_tail(text)))
        elif split and source is not None:
            words.extend(Word(part, span, source=source) for part in resolved.split())
        else:
            words.append(Word(resolved, span, source=source))
    if rest is not None:
        words.append(Word(None, rest, splice=True))  # the rest is unknown, never read word by word
        bounded.too_many_words(result, rest)
    return words


def _program(word: Word, raws: dict[int, str]) -> Word:
    """A program under a specifier (``%h/llama.cpp/build/bin/llama-server``): its file name says which program
    runs, so the path stays as written; anywhere else a specifier's value is unknown."""
    raw = raws.get(id(word))
    if raw is not None and re.fullmatch(r"[^%]*%[a-zA-Z][^%]*/[A-Za-z0-9._+\-]+", raw):
        return Word(raw, word.span)
    return word


def match_splice(text: str) -> bool:
    """``$VAR`` (unbraced) splits into any number of words when unknown; ``${VAR}`` stays one word."""
    return bool(re.fullmatch(r"\$[A-Za-z_][A-Za-z0-9_]*", text))


@bounded.budgeted
def read(text: str, path: str, opener: FileOpener) -> FileResult:
    """Read a systemd or Quadlet unit; ``EnvironmentFile=`` and ``docker run --env-file`` files are read through
    ``opener``."""
    result = FileResult(path, "systemd", text=text)
    items, errors = entries(text, path)
    result.errors.extend(errors)
    src = Src(text, path, opener)
    env: list[EnvVar] = []
    complete = True
    for entry in items:
        if entry.key == "Environment" and entry.section in ("Service", "Container"):
            env.extend(_assignments(entry, src))
        elif entry.key == "EnvironmentFile" and entry.section in ("Service", "Container"):
            loaded = _env_file(entry, path, result, opener)
            if loaded is None:
                complete = False
            else:
                env.extend(loaded)
    image: Word | None = None
    count: int | None = None
    exec_words: list[Word] | None = None
    for entry in items:
        if entry.section == "Service" and entry.key == "ExecStart" and entry.value:
            raws: dict[int, str] = {}
            words, _ = unwrap(_words(entry, src, env, result, raws), [])
            if not words:
                continue
            script = shell_script(words)
            if len(words) > 1 and words[1].text == "run" \
                    and (words[0].text or "").rsplit("/", 1)[-1] in ("docker", "podman"):
                container = docker_run(words[2:], list(env), words[0].span, opener)
                result.errors.extend(container.problems)
                container.env_complete = container.env_complete and complete
                result.commands.append(container)
            elif script is not None and script.text is not None:
                # `bash -c '...'`: the script's commands, with the unit's environment exported to them
                for command in script_commands(script.text, script.span, src, script.span, list(env)):
                    command.env_complete = command.env_complete and complete
                    result.commands.append(command)
            else:
                words[0] = _program(words[0], raws)
                result.commands.append(Command("shell", words, words[0].span, list(env), complete,
                                               argv_complete=not any(w.splice for w in words)))
        elif entry.section == "Container" and entry.key == "Image":
            image = Word(entry.value, entry.span)
        elif entry.section == "Container" and entry.key == "Exec":
            exec_words = _words(entry, src, env, result)
        elif entry.section == "Container" and entry.key == "AddDevice" and "nvidia.com/gpu=" in entry.value:
            count = None
    if image is not None:
        argv = exec_words or []
        result.commands.append(Command("container", argv, image.span, list(env), complete, image,
                                       argv_complete=not any(w.splice for w in argv), gpu_count=count))
    return result
