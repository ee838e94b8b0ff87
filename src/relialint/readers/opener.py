"""The one way a reader or an engine model reads a file that the file it reads names.

A compose file names its ``.env``, ``env_file:`` and the Dockerfile it builds; a systemd unit its
``EnvironmentFile=``; ``docker run --env-file``; Helm values the ``Chart.yaml`` beside them; vLLM ``--config`` and a
local checkpoint's ``config.json``. Readers and engines never touch the file system themselves: they are pure
functions of (text, path, opener), and the opener the caller builds decides what a name reads. The run builds one
over the disk, limited to the project root (``relialint.run.files.DiskOpener``); the language server one that serves the
editor's unsaved buffers first; tests a dictionary (``MemoryOpener``).

A name is resolved as the files that name them do: relative to the folder of the referring file (an absolute name
stays absolute), with no normalisation beyond ``pathlib``'s, and that joined path is the path the read file is
located by (``Opened.path``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePath

from relialint.base.plain import Frozen
from relialint.readers.located import MAX_FILE_BYTES, ReadError, lone_surrogate


class Opened(Frozen):
    """What opening one named file gave.

    ``text`` is the file's text (``None``: not read); ``error`` says why it was not read, located at the file
    (``path:1:1``, or where a decoding error is); ``refused`` is true when the run's limits left it unread (outside
    the project root) rather than a read failing; ``exists`` whether an entry of that name is there at all (a
    dangling symlink is one), as ``os.path.lexists`` says, so a reader can tell "not found" from "cannot be read".
    A refused file is not asked about (``exists`` true: neither opened nor tested for existence, docs/bad-input.md);
    a name refused in the referrer's own folder is a symlink there, so an entry is there.
    """

    path: str
    text: str | None
    error: ReadError | None = None
    refused: bool = False
    exists: bool = True

    _fields = ("path", "text", "error", "refused", "exists")

    def __init__(self, path: str, text: str | None, error: ReadError | None = None, refused: bool = False,
                 exists: bool = True) -> None:
        self.path = path
        self.text = text
        self.error = error
        self.refused = refused
        self.exists = exists


def named(referrer: str, name: str) -> str:
    """The path a name written in ``referrer`` stands for: relative to the referrer's folder, absolute as is."""
    return str(PurePath(referrer).parent / name)


def missing(path: str) -> Opened:
    """No file of that name."""
    return Opened(path, None, ReadError(path, 1, 1, "no such file"), exists=False)


class FileOpener:
    """Reads a file that a deployment's file refers to, relative to the referring file, under the run's rules.

    Subclasses give ``refusal`` (the limits of the run: ``None`` where a path may be read) and ``read`` (the text
    of a path that may be). ``open`` is what readers call; calling the opener itself is the engine models' form:
    ``(text, path)``, ``None`` when the file cannot be read, or the ``ReadError`` that says why it was left
    unread (outside the project root)."""

    def refusal(self, path: str, referrer: str) -> str | None:
        """Why ``path``, named by ``referrer``, is not read (``None``: it may be)."""
        del path, referrer
        return None

    def read(self, path: str) -> Opened:
        """The text of a path the limits allow, or why it cannot be read."""
        return missing(path)

    def open(self, referrer: str, name: str) -> Opened:
        """The file ``name`` as ``referrer`` names it."""
        path = named(referrer, name)
        why = self.refusal(path, referrer)
        if why is not None:
            return Opened(path, None, ReadError(path, 1, 1, why), refused=True)
        return self.read(path)

    def __call__(self, referrer: str, name: str) -> tuple[str, str] | ReadError | None:
        opened = self.open(referrer, name)
        if opened.text is not None:
            return opened.text, opened.path
        return opened.error if opened.refused else None


def checked_text(path: str, text: str) -> Opened:
    """Text that did not come from a file (an editor's buffer, a test's dictionary) under the bounds a file read
    has: no more than ``MAX_FILE_BYTES`` of UTF-8, no lone surrogate."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_FILE_BYTES:
        return Opened(path, None, ReadError(path, 1, 1, f"file too large ({size} bytes; the limit is "
                                                        f"{MAX_FILE_BYTES})"))
    bad = lone_surrogate(text, path)
    if bad is not None:
        return Opened(path, None, bad)
    return Opened(path, text)


class MemoryOpener(FileOpener):
    """Files held in memory, by the path a reader names them with (``named``); nothing else exists. Tests use
    it, and a caller with no files to offer (``MemoryOpener({})``)."""

    def __init__(self, files: Mapping[str, str]) -> None:
        self.files = dict(files)

    def read(self, path: str) -> Opened:
        text = self.files.get(path)
        if text is None:
            return missing(path)
        return checked_text(path, text)
