"""The bounds of ``relialint.base.bounds`` applied to what a reader returns: the expansion budget of one file and the
warnings, located in the file, for what was not read past a bound (too many words, too many commands)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

from relialint.base import bounds
from relialint.readers.located import FileResult, ReadError, Span, Word

F = TypeVar("F", bound=Callable[..., Any])


def budgeted(read: F) -> F:
    """A reader's entry point runs with a fresh expansion budget, shared with the files it reads in turn; a file
    whose expansions passed it gets the warning (a ``(value, error)`` pair from a sub-reader gets none)."""

    @functools.wraps(read)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        result, exceeded = bounds.run_budgeted(read, *args, **kwargs)
        if exceeded and isinstance(result, FileResult):
            result.errors.append(ReadError(result.path, 1, 1, bounds.EXPANSION_WARNING, "warning"))
        return result

    return cast(F, wrapper)


def too_many_words(result: FileResult, span: Span) -> None:
    """The warning, once per place, that a command's words past ``MAX_WORDS`` were not read (from ``span`` on)."""
    warning = ReadError(span.path, span.line, span.column,
                        f"a command of more than {bounds.MAX_WORDS} words; the rest of it is not read", "warning")
    if warning not in result.errors:
        result.errors.append(warning)


def bound_words(result: FileResult) -> None:
    """Every command of a read file holds at most ``MAX_WORDS`` words and a last word that stands, unknown, for the
    rest (whichever reader read it): a longer one is cut there, with the warning."""
    limit = bounds.MAX_WORDS
    for command in result.commands:
        argv = command.argv
        if len(argv) > limit + 1 or (len(argv) == limit + 1 and not argv[limit].splice):
            span = argv[limit].span
            del argv[limit:]
            argv.append(Word(None, span, splice=True))
            command.argv_complete = False
            too_many_words(result, span)


def too_many_commands(result: FileResult, span: Span) -> None:
    """The warning, once per file, that commands past ``MAX_COMMANDS`` were not read (from ``span`` on)."""
    message = f"more than {bounds.MAX_COMMANDS} commands in one file; from here on they are not read"
    if not any(e.message == message for e in result.errors):
        result.errors.append(ReadError(span.path, span.line, span.column, message, "warning"))
