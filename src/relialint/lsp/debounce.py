"""When the language server lints a document after an edit.

A fixed delay after every keystroke makes the user wait for a lint that costs a few milliseconds. So the delay
depends on what the last lint of the document cost, in the server's CPU time: a lint that cost at most
``CHEAP_SHARE`` of the debounce runs at once (after the messages already received, so that a burst of edits is
linted once); a dearer one (a large file) waits for ``delay_s`` without an edit, so that edits coalesce. CPU time,
not the time on the clock: other work on a busy machine makes a lint slower, not dearer, and holding it back would
only add the debounce to the wait. A document not linted yet is linted at once. The server's first lint pays for
imports and loading the records, so it is not a measure of what the next one costs and is not recorded; until a
large document's lint is timed, its size stands for its cost.
"""

from __future__ import annotations

CHEAP_SHARE = 0.25
"""A lint that takes at most this share of the debounce (37.5 ms of the default 150 ms) runs at once."""

LARGE_CHARS = 1024 * 1024
"""A document of more characters whose lint has not been timed yet is taken to be dear: a lint of it takes far
longer than the debounce (about a second per 1 MB), so edits to it coalesce from the first one."""


class Debounce:
    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self.cost_s: dict[str, float] = {}
        self.warm = False

    @property
    def cheap_s(self) -> float:
        return self.delay_s * CHEAP_SHARE

    def due(self, uri: str, now: float, size: int = 0) -> float:
        """When to lint ``uri`` (``size`` characters) after an edit at ``now``: at once, or ``delay_s`` later."""
        cost = self.cost_s.get(uri)
        if cost is None:
            return now + self.delay_s if size > LARGE_CHARS else now
        if cost <= self.cheap_s:
            return now
        return now + self.delay_s

    def linted(self, uri: str, seconds: float) -> None:
        """What a lint of ``uri`` took (the first lint of the server is not recorded)."""
        if self.warm:
            self.cost_s[uri] = seconds
        self.warm = True

    def forget(self, uri: str) -> None:
        self.cost_s.pop(uri, None)
