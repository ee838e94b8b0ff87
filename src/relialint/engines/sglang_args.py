"""SGLang's argument parser as relialint reads it: Python's ``argparse`` (``ServerArgs.add_cli_args``) with its
defaults: ``--name value`` and ``--name=value``, switches that take no value, several spellings of one option
(``--tp-size`` / ``--tensor-parallel-size`` / ``--tp``), and a unique prefix of a long option standing for it
(``allow_abbrev``). Which options take a value comes from the per-release tables (``sglang_flags.json``, through
``flagcheck``) where they know, else from the option's name (an ``--enable-*`` / ``--disable-*`` switch)."""

from __future__ import annotations

import re
from collections.abc import Callable

from relialint.engines.common import model_slot_variable
from relialint.readers.located import Word

ALIASES: dict[str, str] = {
    "model": "model-path", "tp-size": "tensor-parallel-size", "tp": "tensor-parallel-size",
    "pp-size": "pipeline-parallel-size", "pp": "pipeline-parallel-size", "dp-size": "data-parallel-size",
    "dp": "data-parallel-size", "ep-size": "expert-parallel-size", "ep": "expert-parallel-size",
}
"""Spellings of one option by the name the facts use (every release spells at least one of them; 0.2.x has only
``--tp-size`` and ``--dp-size``, 0.3.0 added the long names, 0.4.x ``--ep-size``, 0.5.x ``--model`` and ``--ep``)."""

SWITCH_PREFIXES = ("enable-", "disable-", "skip-", "allow-", "enforce-", "show-", "log-requests",
                   "trust-remote-code", "is-embedding", "delete-ckpt-after-loading", "debug-")
"""Name beginnings that mark a switch (``store_true``) where no table says; ``--log-requests-level`` takes a
value and is told by the tables."""


class Opt:
    """One option as the parser stores it: ``name`` is the spelling the facts use (:data:`ALIASES` applied),
    ``written`` the option string as written (before ``=``)."""

    name: str
    written: str
    value: str | None
    flag: Word
    value_word: Word | None
    equals: bool
    known: bool
    from_config: bool = False
    """Read from a ``--config`` YAML file (located at its key there)."""

    def __init__(self, name: str, written: str, value: str | None, flag: Word, value_word: Word | None = None,
                 equals: bool = False, known: bool = True) -> None:
        self.name = name
        self.written = written
        self.value = value
        self.flag = flag
        self.value_word = value_word
        self.equals = equals
        self.known = known


class Parsed:
    opts: list[Opt]
    positionals: list[Word]
    complete: bool

    def __init__(self) -> None:
        self.opts = []
        self.positionals = []
        self.complete = True


def canonical(long_name: str) -> str:
    """``tp-size`` -> ``tensor-parallel-size`` (a name without its dashes)."""
    return ALIASES.get(long_name, long_name)


def _is_value(word: Word) -> bool:
    text = word.text
    if text is None:
        return True
    return not text.startswith("-") or bool(re.fullmatch(r"-\d+(\.\d+)?", text)) or text == "-"


def parse_args(words: list[Word], takes_value: Callable[[str], bool | None],
               expand: Callable[[str], str | None]) -> Parsed:
    """The options and positionals of an SGLang command line. ``takes_value(option string)``: what the tables say
    (``None``: they do not know it); ``expand(option string)``: the option a unique prefix stands for, or
    ``None``."""
    parsed = Parsed()
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word.splice and not model_slot_variable(word):
            parsed.complete = False
            continue
        text = word.text
        if text is None or not text.startswith("-") or re.fullmatch(r"-\d+(\.\d+)?", text):
            parsed.positionals.append(word)
            continue
        if text == "--":
            parsed.positionals.extend(words[i:])
            break
        written, eq, inline = text.partition("=")
        full = expand(written) or written
        name = canonical(full.lstrip("-"))
        if eq:
            parsed.opts.append(Opt(name, written, inline, word, word, True))
            continue
        says = takes_value(full)
        value = says if says is not None else not name.startswith(SWITCH_PREFIXES)
        if value and i < len(words) and _is_value(words[i]):
            value_word = words[i]
            i += 1
            if value_word.splice and not (name == "model-path" and model_slot_variable(value_word)):
                parsed.complete = False
            parsed.opts.append(Opt(name, written, value_word.text, word, value_word,
                                   known=value_word.text is not None))
        else:
            parsed.opts.append(Opt(name, written, None, word))
    return parsed


def number(text: str | None, kind: type) -> int | float | None:
    if text is None:
        return None
    try:
        value = kind(text.strip())
    except ValueError:
        return None
    return value if isinstance(value, (int, float)) else None
