"""Regular expressions compiled on first use.

Compiling a pattern costs start-up time whether or not the run needs it (a shell script never needs the YAML
shapes), so module-level patterns are made with :func:`compile` here: the object stands for the compiled pattern and
compiles it the first time any of its methods is called.
"""

from __future__ import annotations

import re
from typing import Any, cast


class _Lazy:
    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:  # search, match, fullmatch, finditer, sub, ...
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self.pattern, self.flags)
        return getattr(compiled, name)


def compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """A pattern that compiles itself on first use; typed as the compiled pattern it stands for."""
    return cast("re.Pattern[str]", _Lazy(pattern, flags))
