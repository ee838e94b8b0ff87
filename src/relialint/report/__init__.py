"""Formatters by name. None of them knows how findings were made."""

from __future__ import annotations

from typing import Callable

from relialint.lint import RunResult

Formatter = Callable[[RunResult, bool], str]


def formatter(name: str) -> Formatter:
    from relialint.report import jsonout, text

    return {"text": text.render, "json": jsonout.render}[name]
