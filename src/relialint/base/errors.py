"""The exceptions relialint defines all derive from :class:`RelialintError`, so one ``except`` catches every error
relialint raises on purpose (the command line does, in one place: ``cli.main``). Each keeps the standard base it
had (``ValueError``, ``LookupError``, ``OSError``...) so that callers catching that still work.

This module imports nothing: every layer may raise these.
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


class RelialintError(Exception):
    """Base of every exception relialint defines."""


class UsageError(RelialintError, ValueError):
    """A bad command line, option value, target fact or facts file: exit 2 before anything is reported.

    ``command_line``: the command line itself is wrong (an unknown option, a bad choice), and the command's usage line
    is printed before the message; otherwise a value found bad while running (an unknown GPU, a bad fact), printed
    alone."""

    def __init__(self, message: str, *, command_line: bool = False) -> None:
        super().__init__(message)
        self.command_line = command_line


class InternalError(RelialintError):
    """An invariant of relialint does not hold: a bug in relialint, never the input's fault. The command line reports
    it as an internal error (exit 2), as any other unexpected exception."""


def never_none(value: T | None, invariant: str) -> T:
    """``value``, which ``invariant`` says is there; :class:`InternalError` where it is not (an explicit check that
    ``python -O`` keeps, unlike ``assert``)."""
    if value is None:
        raise InternalError(invariant)
    return value
