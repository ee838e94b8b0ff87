"""Which files relialint opens beyond those it is given: the project root, and the opt-in to leave it.

A linted file names other files: ``--env-file``, compose ``env_file`` and ``build``, the ``.env`` beside a compose
file, systemd ``EnvironmentFile``, vLLM ``--config``, a local checkpoint's ``config.json``, a Helm chart's
``Chart.yaml``; a folder holds symlinks. Reading one of them is how a deployment's facts are found, and it is also
how a file under review (a pull request, a downloaded example) would make relialint read ``/run/secrets/...`` or
``../../.env`` on the machine that lints it and print what it found.

The policy (docs/bad-input.md, "Files outside the project"): relialint reads a file that another file names, and
follows a symlink met while walking a folder, only when its real path (symlinks resolved) lies inside the project
root of one of the paths on the command line. The project root of a path is

1. the nearest folder upward that holds a version-control checkout (``.git``, a folder or a worktree's file,
   ``.hg``, ``.svn``, ``.jj``): the unit a repository, a pull request and a CI job share;
2. else the folder of the nearest relialint configuration (``.relialint.toml``, ``pyproject.toml`` with
   ``[tool.relialint]``);
3. else the path itself (a folder) or the folder that holds it (a file).

A file named on the command line is always read: naming it is asking for it. ``--follow-outside`` (or
``follow-outside = true`` in the configuration) lifts the limit. A file left unread is a located warning at the
reference that says why and how to allow it, and what it would have told stays unknown, never "unset".

The limit for the files being read is carried by the opener the run builds for each file
(``relialint.disk.DiskOpener``); without one, the referring file's own project root applies.
"""

from __future__ import annotations

import os
from pathlib import Path

from relialint.base.plain import Frozen

VCS_MARKERS = (".git", ".hg", ".svn", ".jj")
HOW_TO_ALLOW = "--follow-outside or follow-outside = true in the configuration reads it"


class Reach(Frozen):
    """The folders files may be read from (real paths: ``project_root`` gives them), and whether files outside them
    are read anyway."""

    roots: tuple[str, ...]
    follow_outside: bool = False

    _fields = ("roots", "follow_outside")

    def __init__(self, roots: tuple[str, ...], follow_outside: bool = False) -> None:
        self.roots = roots
        self.follow_outside = follow_outside

    def _root(self, real: str) -> str | None:
        return next((root for root in self.roots if real == root or real.startswith(root.rstrip(os.sep) + os.sep)),
                    None)

    def inside(self, path: Path | str) -> bool:
        """Whether ``path``, symlinks resolved, lies in one of the roots."""
        return self._root(os.path.realpath(path)) is not None

    def refusal(self, path: Path | str, referrer: Path | str) -> str | None:
        """Why ``path``, named by (or a symlink in the folder of) ``referrer``, is not read (``None``: it may be)."""
        if self.follow_outside or self.inside(path):
            return None
        where = self._root(os.path.realpath(os.path.dirname(os.path.abspath(referrer)))) or " or ".join(self.roots)
        return f"outside the project root {where}, so not read: {HOW_TO_ALLOW}"


def project_root(path: Path | str) -> Path:
    """The project root of a path named on the command line (see the module's docstring)."""
    from relialint.run.config import find

    try:
        real = Path(os.path.realpath(path))
    except (OSError, ValueError):  # a name the system cannot take (too long, a NUL): the folder it is named in
        real = Path(os.path.abspath(os.path.dirname(path) or "."))
    start = real if os.path.isdir(real) else real.parent
    for folder in (start, *start.parents):
        if any(os.path.lexists(folder / marker) for marker in VCS_MARKERS):
            return folder
    config = find(start) if os.path.isdir(start) else None
    if config is not None:
        return Path(os.path.realpath(config.parent))
    return start
