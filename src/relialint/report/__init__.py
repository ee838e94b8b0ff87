"""Formatters by name. None of them knows how findings were made."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from relialint.core.results import RunResult

if TYPE_CHECKING:
    from relialint.engines.releases import UpgradeRun

Formatter = Callable[[RunResult, bool, bool], str]
"""``render(run, color, show_ignored)``."""


def formatter(name: str) -> Formatter:
    """The formatter of one output format, imported on first use."""
    import importlib

    modules = {"text": "text", "json": "jsonout", "sarif": "sarif", "github": "github"}
    render: Formatter = importlib.import_module(f"relialint.report.{modules[name]}").render
    return render


def upgrade_formatter(name: str) -> Callable[[UpgradeRun, bool], str]:
    """The formatter of ``relialint upgrade`` in one output format (``render(run, color)``), imported on first
    use."""
    import importlib

    render: Callable[[UpgradeRun, bool], str] = importlib.import_module(f"relialint.report.upgrade_{name}").render
    return render


def repository_root(start: Path | None = None) -> Path:
    """The repository the run is in: the nearest folder upward from ``start`` (the working directory) that holds
    ``.git``; the working directory itself when there is none."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return here


def repo_relative(path: str, root: Path) -> str | None:
    """``path`` as a POSIX path relative to ``root``; ``None`` when it lies outside."""
    try:
        return Path(os.path.abspath(path)).relative_to(root).as_posix()
    except ValueError:
        return None
