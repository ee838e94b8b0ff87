"""Dockerfiles: the base image, ``ENV``, ``ARG`` defaults, ``ENTRYPOINT``/``CMD`` (exec and shell forms) and the
commands ``RUN`` lines execute at build time (a ``cmake -DGGML_HIP=ON`` there is a build fact).

Multi-stage files resolve ``FROM stage`` to the stage's own base. ``$VAR``/``${VAR}``/``${VAR:-default}`` in
``FROM``, ``ENV`` and ``ARG`` take the ``ARG`` defaults and earlier ``ENV`` values (a ``--build-arg`` given at
build time may differ: the file's default is what the file says). The last stage is the image that runs.
"""

from __future__ import annotations

import re

from relialint.base import bounds
from relialint.base.plain import Fields
from relialint.readers import bounded
from relialint.readers.located import Command, EnvVar, FileResult, ReadError, Span, Word
from relialint.readers.opener import FileOpener
from relialint.readers.yamlwords import Src, script_commands

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:[-+])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_HEREDOC = re.compile(r"<<-?[\"']?([A-Za-z_][A-Za-z0-9_]*)[\"']?")
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


class Instruction(Fields):
    keyword: str
    body: str
    span: Span
    """Where the body was written (continuations included)."""
    keyword_span: Span

    _fields = ("keyword", "body", "span", "keyword_span")

    def __init__(self, keyword: str, body: str, span: Span, keyword_span: Span) -> None:
        self.keyword = keyword
        self.body = body
        self.span = span
        self.keyword_span = keyword_span


class Stage(Fields):
    name: str | None
    image: Word | None
    parent: Stage | None = None
    env: list[EnvVar]
    entrypoint: list[Word] | None = None
    cmd: list[Word] | None = None
    entrypoint_line: int = 0
    cmd_line: int = 0

    _fields = ("name", "image", "parent", "env", "entrypoint", "cmd", "entrypoint_line", "cmd_line")

    def __init__(self, name: str | None, image: Word | None, parent: Stage | None = None,
                 env: list[EnvVar] | None = None, entrypoint: list[Word] | None = None, cmd: list[Word] | None = None,
                 entrypoint_line: int = 0, cmd_line: int = 0) -> None:
        self.name = name
        self.image = image
        self.parent = parent
        self.env = [] if env is None else env
        self.entrypoint = entrypoint
        self.cmd = cmd
        self.entrypoint_line = entrypoint_line
        self.cmd_line = cmd_line


class Built(Fields):
    """What running the image a Dockerfile builds means: base image, env, entrypoint, CMD, and build commands."""

    image: Word | None
    env: list[EnvVar]
    entrypoint: list[Word] | None
    cmd: list[Word]
    runs: list[Command]
    span: Span
    errors: list[ReadError]

    _fields = ("image", "env", "entrypoint", "cmd", "runs", "span", "errors")

    def __init__(self, image: Word | None, env: list[EnvVar], entrypoint: list[Word] | None, cmd: list[Word],
                 runs: list[Command], span: Span, errors: list[ReadError] | None = None) -> None:
        self.image = image
        self.env = env
        self.entrypoint = entrypoint
        self.cmd = cmd
        self.runs = runs
        self.span = span
        self.errors = [] if errors is None else errors


def instructions(text: str, path: str) -> tuple[list[Instruction], list[ReadError]]:
    """Logical instructions with continuations joined, comments and parser directives dropped."""
    lines = text.split("\n")
    escape = "\\"
    for line in lines[:5]:
        match = re.match(r"^#\s*escape\s*=\s*(\S)\s*$", line.rstrip("\r"))
        if match:
            escape = match.group(1)
    out: list[Instruction] = []
    errors: list[ReadError] = []
    i = 0
    while i < len(lines):
        raw = lines[i].rstrip("\r")
        i += 1
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = re.match(r"^(\s*)([A-Za-z]+)(\s+|$)", raw)
        if match is None:
            errors.append(ReadError(path, i, len(raw) - len(raw.lstrip()) + 1,
                                    "not a Dockerfile instruction; ignored", "warning"))
            continue
        keyword = match.group(2).upper()
        keyword_span = Span(path, i, match.start(2) + 1, i, match.end(2) + 1)
        start_line, start_col = i, match.end() + 1
        parts = [raw[match.end():]]  # joined once at the end: a long continuation stays linear
        end_line, end_col = i, len(raw) + 1
        while _continued(parts, escape) and i < len(lines):
            while not parts[-1].rstrip():
                parts.pop()
            parts[-1] = parts[-1].rstrip()[:-1]
            nxt = lines[i].rstrip("\r")
            i += 1
            end_line, end_col = i, len(nxt) + 1
            if not nxt.strip().startswith("#"):
                parts.append(nxt)
        body = "".join(parts)
        heredoc = _HEREDOC.search(body) if keyword in ("RUN", "COPY") else None
        if heredoc is not None:
            terminator = heredoc.group(1)
            content: list[str] = []
            while i < len(lines) and lines[i].rstrip("\r").strip() != terminator:
                content.append(lines[i].rstrip("\r"))
                i += 1
            if i < len(lines):
                end_line, end_col = i + 1, len(lines[i].rstrip("\r")) + 1
                i += 1
            body = body[: heredoc.start()] + body[heredoc.end():] + "\n" + "\n".join(content)
        out.append(Instruction(keyword, body, Span(path, start_line, start_col, end_line, end_col), keyword_span))
    return out, errors


def _continued(parts: list[str], escape: str) -> bool:
    """Whether the text joined from ``parts`` ends with the escape character (trailing blanks ignored)."""
    for part in reversed(parts):
        stripped = part.rstrip()
        if stripped:
            return stripped.endswith(escape)
    return False


def _substitute(text: str, values: dict[str, EnvVar]) -> tuple[str | None, Span | None]:
    source: Span | None = None
    unknown = False

    def sub(match: re.Match[str]) -> str:
        nonlocal source, unknown
        name = match.group(1) or match.group(4)
        op, arg = match.group(2), match.group(3) or ""
        var = values.get(name)
        present = var is not None and var.value is not None and var.value != ""
        if op == ":-":
            if var is not None and present:
                source = var.span
                return var.value or ""
            return arg
        if op == ":+":
            return arg if present else ""
        if var is None or var.value is None:
            unknown = True
            return ""
        source = var.span
        return var.value

    result = bounds.sub(_VAR, sub, text)
    return (None if unknown else result), source


def _exec_form(body: str, span: Span, src: Src) -> list[Word] | None:
    """``["a", "b"]`` as located words, or ``None`` when the body is not a JSON array of strings."""
    stripped = body.strip()
    if not stripped.startswith("["):
        return None
    try:
        items = bounds.json_loads(stripped)
    except ValueError:
        return None
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        return None
    start = src.offset(span.line, span.column)
    end = src.offset(span.end_line, span.end_column)
    region = src.text[start:end]
    words: list[Word] = []
    found = list(_STRING.finditer(region))
    for index, item in enumerate(items):
        if index < len(found):
            match = found[index]
            words.append(Word(item, src.span(start + match.start(), start + match.end())))
        else:
            words.append(Word(item, span))
    return words


def _shell_form(body: str, span: Span, src: Src) -> list[Word]:
    """A shell-form ``CMD``/``ENTRYPOINT`` (run by ``/bin/sh -c``): the words of the command it runs."""
    commands = script_commands(body, span, src, span)
    if not commands:
        return [Word(None, span, splice=True)]
    last = commands[-1]
    return last.argv if last.image is None else [Word(None, span, splice=True)]


def _key_values(body: str, span: Span, src: Src) -> list[tuple[str, str, Span]]:
    """``ENV A=1 B="x y"`` or the legacy ``ENV A 1`` (also ``ARG A=1``) as located pairs."""
    offsets = src.align(body, span)
    out: list[tuple[str, str, Span]] = []
    legacy = re.match(r"^\s*([A-Za-z_][A-Za-z0-9_.\-]*)\s+(?!\S*=)(.*?)\s*$", body, re.S)
    if legacy and "=" not in body.split()[0]:
        value = legacy.group(2)
        out.append((legacy.group(1), _unquote(value), src.sub_span(offsets, legacy.start(1), len(body.rstrip()), span)))
        return out
    from relialint.readers.yamlwords import shell_split

    tokens, _ = shell_split(body)
    for raw, start, end in tokens:
        name, eq, value = raw.partition("=")
        out.append((name, value if eq else "", src.sub_span(offsets, start, end, span)))
        if not eq:
            out[-1] = (name, "\0", out[-1][2])
    return out


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def parse(text: str, path: str, opener: FileOpener) -> tuple[list[Stage], list[Command], list[ReadError]]:
    src = Src(text, path, opener)
    items, errors = instructions(text, path)
    stages: list[Stage] = []
    runs: list[Command] = []
    global_args: dict[str, EnvVar] = {}
    scope: dict[str, EnvVar] = {}
    stage: Stage | None = None
    for ins in items:
        if ins.keyword == "FROM":
            parts = ins.body.split()
            flags = [p for p in parts if p.startswith("--")]
            rest = [p for p in parts if not p.startswith("--")]
            if not rest:
                errors.append(ReadError(path, ins.span.line, ins.span.column, "FROM without an image", "warning"))
                continue
            raw_image = rest[0]
            name = rest[2] if len(rest) >= 3 and rest[1].lower() == "as" else None
            offset = ins.body.find(raw_image, sum(len(f) + 1 for f in flags))
            offsets = src.align(ins.body, ins.span)
            image_span = src.sub_span(offsets, offset, offset + len(raw_image), ins.span)
            value, source = _substitute(raw_image, global_args)
            parent = next((s for s in reversed(stages) if s.name and value and s.name.lower() == value.lower()),
                          None)
            image = parent.image if parent is not None else Word(value, image_span, source=source)
            stage = Stage(name, image, parent)
            if parent is not None:
                stage.env = list(parent.env)
            stages.append(stage)
            scope = {var.name: var for var in stage.env}
            continue
        if ins.keyword == "ARG":
            for key, value, span in _key_values(ins.body, ins.span, src):
                known = None if value == "\0" else _substitute(value, {**global_args, **scope})[0]
                if value == "\0" and key in global_args:
                    known = global_args[key].value
                var = EnvVar(key, known, span)
                if stage is None:
                    global_args[key] = var
                else:
                    scope[key] = var
            continue
        if stage is None:
            errors.append(ReadError(path, ins.keyword_span.line, ins.keyword_span.column,
                                    f"{ins.keyword} before the first FROM; ignored", "warning"))
            continue
        if ins.keyword == "ENV":
            for key, value, span in _key_values(ins.body, ins.span, src):
                resolved, source = _substitute(value, scope) if value != "\0" else (None, None)
                var = EnvVar(key, resolved, span, source)
                stage.env = [v for v in stage.env if v.name != key] + [var]
                scope[key] = var
        elif ins.keyword in ("ENTRYPOINT", "CMD"):
            words = _exec_form(ins.body, ins.span, src)
            if words is None:
                words = _shell_form(ins.body, ins.span, src)
            if ins.keyword == "ENTRYPOINT":
                stage.entrypoint, stage.entrypoint_line = words, ins.span.line
            else:
                stage.cmd, stage.cmd_line = words, ins.span.line
        elif ins.keyword == "RUN":
            words = _exec_form(ins.body, ins.span, src)
            if words is not None:
                runs.append(Command("build", words, ins.keyword_span, list(stage.env)))
                continue
            body = re.sub(r"^\s*(--\S+\s+)*", "", ins.body)
            skip = len(ins.body) - len(body)
            offsets = src.align(ins.body, ins.span)
            region = src.sub_span(offsets, skip, len(ins.body), ins.span)
            for command in script_commands(body, region, src, ins.span):
                runs.append(command)
    return stages, runs, errors


def _chain(stage: Stage) -> tuple[list[Word] | None, list[Word]]:
    """ENTRYPOINT and CMD in force in a stage, looking through ``FROM earlier-stage`` (iteratively: a chain of
    stages may be as long as the file)."""
    entrypoint: list[Word] | None = None
    node: Stage | None = stage
    while node is not None and entrypoint is None:
        entrypoint, node = node.entrypoint, node.parent
    cmd: list[Word] | None = None
    node = stage
    while node is not None:
        if node.cmd is not None:
            cmd = node.cmd
            break
        if node.entrypoint is not None:
            break
        node = node.parent
    return entrypoint, cmd or []


@bounded.budgeted
def built(text: str, path: str, opener: FileOpener) -> Built:
    """The image a Dockerfile builds; ``opener`` reads the files its ``RUN`` scripts name."""
    stages, runs, errors = parse(text, path, opener)
    if not stages:
        return Built(None, [], None, [], runs, Span(path, 1, 1, 1, 1), errors)
    final = stages[-1]
    entrypoint, cmd = _chain(final)
    span = final.image.span if final.image is not None else Span(path, 1, 1, 1, 1)
    return Built(final.image, list(final.env), entrypoint, cmd, runs, span, errors)


@bounded.budgeted
def read(text: str, path: str, opener: FileOpener) -> FileResult:
    """Read a Dockerfile: its build commands, then the container its last stage runs."""
    result = FileResult(path, "dockerfile", text=text)
    image = built(text, path, opener)
    result.errors.extend(image.errors)
    result.commands.extend(image.runs)
    if image.image is None:
        if not image.runs:
            result.errors.append(ReadError(path, 1, 1, "no FROM instruction; not a Dockerfile", "error"))
        return result
    if image.entrypoint is None and not image.cmd:
        return result
    from relialint.readers.wrappers import unwrap_container

    entrypoint, cmd = unwrap_container(image.entrypoint, image.cmd)
    result.commands.append(Command("container", cmd, image.span, image.env, env_complete=False,
                                   image=image.image, entrypoint=entrypoint,
                                   argv_complete=not any(w.splice for w in cmd)))
    return result
