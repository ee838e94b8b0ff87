"""Finding the files to lint and handing each to the reader of its kind (no engine knowledge here)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path, PurePath

from relialint.base import bounds
from relialint.disk import read_bytes, read_text
from relialint.readers import bounded, detect
from relialint.readers.located import MAX_FILE_BYTES, FileResult, ReadError
from relialint.readers.opener import FileOpener, Opened
from relialint.run.reach import Reach, project_root

# -- readers --------------------------------------------------------------------------------------------------------

Reader = Callable[[str, str, FileOpener], FileResult]
"""A reader: a pure function of a file's text, its path and the opener for the files it names."""


READER_MODULES = {"shell": "shell", "compose": "compose", "kubernetes": "kubernetes", "helm": "helm",
                  "env": "envfile", "systemd": "systemd", "dockerfile": "dockerfile",
                  "windows": "windows", "truss": "truss", "skypilot": "skypilot"}


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


def _vllm_config(text: str, display: str, opener: FileOpener) -> FileResult:
    """A vLLM ``--config`` YAML on its own: the engine model reads it (no reader knows the engine)."""
    from relialint.readers.yamlsafe import YamlError
    from relialint.readers.yamlwords import load

    del opener

    result = FileResult(display, "vllm-config", text=text)
    try:
        load(text, display)
    except YamlError as exc:
        result.errors.append(exc.error)
    return result


def read_file(text: str, display: str, kind: str, opener: FileOpener | None = None) -> FileResult:
    """One file's text through the reader of its kind, with the checks every reader shares. The files it names
    are read through ``opener``; without one, from the disk within the project root of ``display``."""
    result = _read_file(text, display, kind, DiskOpener() if opener is None else opener)
    if len(result.commands) > bounds.MAX_COMMANDS:
        bounded.too_many_commands(result, result.commands[bounds.MAX_COMMANDS].span)
        del result.commands[bounds.MAX_COMMANDS:]
    bounded.bound_words(result)
    _unicode_dashes(result)
    return result


UNICODE_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"


def _unicode_dashes(result: FileResult) -> None:
    """A word that starts with a Unicode dash (``—max-model-len``, pasted from a rich-text page) is no option to
    any engine's parser: a located warning, once per word."""
    for command in result.commands:
        for word in (*command.argv, *(command.entrypoint or ())):
            if word.text and word.text[0] in UNICODE_DASHES and len(word.text) > 1:
                result.errors.append(ReadError(
                    word.span.path, word.span.line, word.span.column,
                    f"`{word.text.split('=', 1)[0]}` starts with a Unicode dash (U+{ord(word.text[0]):04X}), not "
                    "`-`: the engine reads it as an argument, not an option", "warning"))


def _read_file(text: str, display: str, kind: str, opener: FileOpener) -> FileResult:
    if kind in ("yaml", "yaml?"):
        found = detect.yaml_kind(text)
        if found is None and detect.other_tool(PurePath(display), text):
            # Plainly another tool's configuration (pre-commit hands the hook every YAML file): skipped quietly,
            # counted in the summary.
            return FileResult(display, "skipped", text=text)
        if found is None:
            # A YAML file that looks like a deployment but is none of the shapes relialint reads: skipped with a
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
    return read(text, display, opener)


# -- finding files --------------------------------------------------------------------------------------------------


ReachFor = Callable[[Path], Reach]
"""The limit on the files read for one path (``reach``): a walk follows a symlink only where it allows."""


def discover(paths: list[str], reach_for: ReachFor | None = None) -> tuple[list[tuple[Path, str, str]],
                                                                         list[ReadError]]:
    """Files to lint as ``(path, display, kind)``; folders are walked, explicit files always read. A symlink met in
    a walk that leads out of the project root is not followed (a warning says so) unless ``reach_for`` allows it;
    without ``reach_for``, the project root of each path named applies."""
    found: list[tuple[Path, str, str]] = []
    errors: list[ReadError] = []
    if reach_for is None:
        roots = tuple(str(project_root(p)) for p in paths)

        def reach_for(_: Path) -> Reach:
            return Reach(roots)

    for raw in paths:
        path = Path(raw)
        problem = _unusable(path)
        if problem is not None:
            errors.append(ReadError(raw, 1, 1, problem))
            continue
        if path.is_dir():
            before, errors_before = len(found), len(errors)
            _walk(path, found, errors, reach_for)
            if len(found) == before and len(errors) == errors_before:
                errors.append(ReadError(raw, 1, 1, "no files relialint reads in this folder"))
            continue
        kind = detect.kind_by_given_name(path)
        if kind is None:
            text, _ = read_text(path, raw)
            kind = detect.kind_by_content(text or "") or "shell"
        found.append((path, raw, kind))
    return found, errors


def _unusable(path: Path) -> str | None:
    """Why a path named on the command line cannot be linted at all (``None``: it can, or the read says why)."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return None if path.is_symlink() else "no such file or folder"
    except OSError as exc:
        return f"cannot read: {exc.strerror or 'invalid path'}"
    except ValueError:
        return "cannot read: invalid path"
    return None


def _outside(path: Path, reach_for: ReachFor, errors: list[ReadError], what: str) -> bool:
    """Whether a symlink met in a walk leads out of the project root and is left (a warning says so)."""
    if not os.path.islink(path):
        return False
    why = reach_for(path).refusal(path, path)
    if why is None:
        return False
    errors.append(ReadError(str(path), 1, 1, f"symlink to a {what} {why}", "warning"))
    return True


def _walk(root: Path, found: list[tuple[Path, str, str]], errors: list[ReadError], reach_for: ReachFor) -> None:
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
        dirs[:] = sorted(d for d in dirs if d not in detect.SKIP_DIRS
                         and not _outside(Path(current) / d, reach_for, errors, "folder"))
        for name in sorted(files):
            path = Path(current) / name
            if _outside(path, reach_for, errors, "file"):
                continue
            kind = detect.kind_by_name(path)
            if kind is None and detect.sniff_worthy(name):
                data, _ = read_bytes(path, str(path), detect.SNIFF_BYTES, head=True)
                if data is None:
                    continue
                kind = detect.kind_by_content(data.decode("utf-8", "replace"))
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
    except (OSError, ValueError) as exc:
        errors.append(ReadError(str(path), 1, 1, f"cannot read: {getattr(exc, 'strerror', None) or 'invalid path'}"))
        return None
    if size > MAX_FILE_BYTES:
        return None
    text, _ = read_text(path, str(path))
    if text is None:
        return "yaml"  # the read error is reported when the file is linted
    return detect.yaml_kind(text)



class DiskOpener(FileOpener):
    """Files on disk, within the run's limits: a file whose real path lies outside the project root is not read
    (``reach``) unless ``--follow-outside`` allows it, and every read is ``read_text`` (regular files only, at most
    ``MAX_FILE_BYTES``, UTF-8 or UTF-16 with its mark). ``reach`` ``None``: the project root of the referring file
    (a caller outside a run, such as a record's example)."""

    def __init__(self, reach: Reach | None = None) -> None:
        self.reach = reach

    def refusal(self, path: str, referrer: str) -> str | None:
        reach = self.reach if self.reach is not None else Reach((str(project_root(referrer)),))
        return reach.refusal(path, referrer)

    def read(self, path: str) -> Opened:
        text, error = read_text(path, path)
        if text is not None:
            return Opened(path, text)
        return Opened(path, None, error, exists=error is None or error.message != "no such file"
                      or os.path.lexists(path))
