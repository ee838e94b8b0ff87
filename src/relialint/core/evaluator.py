"""The memo of one run (or one language server): what judging triggers over possible worlds has already found.

Before, these tables were module-level dicts keyed by ``id()`` of record dicts, shared by every run in a process
(the language server's too) and right only while no record dict was ever changed. An :class:`Evaluator` is made by
whoever owns a run (``lint.Session``, one per ``relialint check``; the language server, one for its life) and passed
down to ``findings.evaluate`` and ``worlds.judge``. Its keys hold compiled trigger nodes
(:mod:`relialint.core.triggers`: immutable, hashed by identity), never the id of something it does not hold, so a
record that changes between two runs is compiled again and judged again. Each table is emptied when it passes
:attr:`Evaluator.limit` entries: a run over a huge tree stays bounded.

Threads: an evaluator is not synchronised. The language server reads its input on a thread of its own
(``lsp.rpc.serve``) that only queues messages; every lint, and so every use of the server's evaluator, runs on the
thread that handles them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from relialint.core.triggers import Trigger, attached, compile_trigger

if TYPE_CHECKING:
    from relialint.core.facts import Fact

Seen = tuple[tuple[tuple[str, object], ...], frozenset[str], dict[str, "Fact | None"]]
"""What an engine's defaults read (with the values), the closed prefixes, and what they changed."""

DEFAULT_LIMIT = 65536
"""Entries of one table past which it is emptied (the judgements; the smaller tables have a tenth of it)."""


class Evaluator:
    """The memo tables of one run. ``judged``: a trigger's judgement over worlds, by what it read;
    ``gpu_classes``: the GPU worlds grouped by a trigger's GPU conditions; ``orders``: how each version world
    compares with a trigger's version literals; ``defaults_seen``: what an engine's defaults changed for a version
    class, by what they read; ``compiled``: triggers of records built by hand (not loaded, so not compiled at load),
    each held beside its dict so that the dict's id stays its own while the entry lives."""

    __slots__ = ("compiled", "defaults_seen", "gpu_classes", "judged", "limit", "orders")

    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self.limit = limit
        self.judged: dict[tuple[Any, ...], Any] = {}
        self.gpu_classes: dict[tuple[Any, ...], Any] = {}
        self.orders: dict[tuple[Any, ...], list[tuple[str, ...]]] = {}
        self.defaults_seen: dict[tuple[object, ...], list[Seen]] = {}
        self.compiled: dict[int, tuple[Mapping[str, Any], Trigger]] = {}

    def small(self) -> int:
        """The bound of the smaller tables (GPU classes, orders, hand-built triggers)."""
        return max(self.limit // 16, 1)

    def remember(self, table: dict[Any, Any], key: Any, value: Any, limit: int | None = None) -> None:
        """``table[key] = value``, emptying the table first when it is full."""
        if len(table) >= (self.limit if limit is None else limit):
            table.clear()
        table[key] = value

    def trigger(self, record: Mapping[str, Any], name: str = "trigger") -> Trigger | None:
        """A record's compiled trigger: the one compiled when it was loaded, else (a record built by hand: tests,
        a validate example, the probe) compiled here once for this evaluator's life."""
        found = attached(record, name)
        if found is not None:
            return found
        raw = record.get(name)
        if not raw:
            return None
        return self.compile(raw)

    def compile(self, raw: Trigger | Mapping[str, Any]) -> Trigger:
        """``raw`` compiled, once per dict for this evaluator (the dict is held: its id stays its own)."""
        if isinstance(raw, Trigger):
            return raw
        entry = self.compiled.get(id(raw))
        if entry is not None and entry[0] is raw:
            return entry[1]
        trigger = compile_trigger(raw)
        self.remember(self.compiled, id(raw), (raw, trigger), self.small())
        return trigger
