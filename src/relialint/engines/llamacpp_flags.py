"""llama-server's options by build, from ``data/llamacpp_flags.json`` (``tools/gen_llamacpp_tables.py``).

llama.cpp's parser (``common/arg.cpp``) looks every command-line word up whole: a word that is neither an option
nor the value of the option before it is an error (``invalid argument: WORD``), and so is an option the build does
not have. :func:`check` walks a launch's words with each tabled build's option kinds, as the parser does, and
reports every unknown option, every value the build rejects and every stray word, each at its own word, with the
tables that refuse it (:attr:`Problem.refused`) among the tables the deployment may run (:attr:`Problem.pool`).

The ``LLAMA_ARG_*`` variables are read the same way, build by build (:func:`env_effect`: the option each sets in
each build and how its handler reads the value): :func:`check_env` (a value the handler throws on, RL521),
:func:`check_unread` (a variable the build does nothing with, RL527), :func:`check_negated` (a boolean's
``LLAMA_ARG_NO_*`` form given a false word, RL528).

Whether a problem holds is decided in the build worlds (``engines/llamacpp_engine.py``), not here:

- the build unknown: every table, narrowed (leaving the word out) to the tables that accept the other options
  present, and the builds older than the first table and newer than the last, where it is unknown;
- the build stated and tabled: that table's answer (definite);
- a stated build between two tables, beyond them, or a release (:meth:`LlamaTable.build_worlds`): the tables that
  can neighbour it say whether there is a problem at all, and whether the build itself has it is unknown
  (possible), since it is none of them.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from relialint.base.plain import Fields, Frozen
from relialint.base.secrets import secret_name
from relialint.core.facts import MAX_INSTANCES
from relialint.core.versions import Version

DATA = Path(__file__).resolve().parent.parent / "data"
# Options llama.cpp replaced by another spelling (engine reference §7: PR #20834 folded the loading switches into
# --load-mode); and spellings of other programs people carry over (llama-cpp-python's server takes --n_ctx).
RENAMED = {"--mlock": "--load-mode mlock", "--no-mmap": "--load-mode none", "--mmap": "--load-mode mmap",
           "--direct-io": "--load-mode dio", "--n-ctx": "--ctx-size", "--n-batch": "--batch-size",
           "--n-threads": "--threads"}
FLASH_ATTN = ("-fa", "--flash-attn")
FA_WORDS = {"on", "off", "auto", "1", "0", "-1", "enabled", "disabled", "true", "false"}
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


class Problem(Frozen):
    """One word llama-server rejects: ``kind`` is ``unknown``, ``value`` or ``stray``; ``refused``: the tables
    (indices) that reject it, among ``pool``, the tables the deployment may run once the other options present have
    narrowed them (leave one out)."""

    kind: str
    position: int
    message: str
    refused: frozenset[int]
    pool: frozenset[int]

    _fields = ("kind", "position", "message", "refused", "pool")

    def __init__(self, kind: str, position: int, message: str, refused: frozenset[int], pool: frozenset[int]) -> None:
        self.kind = kind
        self.position = position
        self.message = message
        self.refused = refused
        self.pool = pool


class BuildWorlds(Frozen):
    """What a stated version (or none) says about the builds a deployment may run: ``tables`` (indices, oldest
    first) it allows; ``older`` / ``newer``: a build older than the first table / newer than the last may be
    running; ``own``: the label of a stated build or release that is no table (it lies between the ``tables`` that
    can neighbour it). ``exact``: the version is one table's build, whose answer is the build's."""

    tables: tuple[int, ...]
    older: bool
    newer: bool
    own: str | None

    _fields = ("tables", "older", "newer", "own")

    def __init__(self, tables: tuple[int, ...], older: bool, newer: bool, own: str | None) -> None:
        self.tables = tables
        self.older = older
        self.newer = newer
        self.own = own

    @property
    def exact(self) -> bool:
        return len(self.tables) == 1 and not (self.older or self.newer or self.own)


class LlamaTable:
    def __init__(self, data: dict[str, Any]) -> None:
        self.builds: list[dict[str, Any]] = data["builds"]
        self.options: dict[str, list[list[Any]]] = data["options"]
        self.env: dict[str, list[list[Any]]] = data["env"]
        self.values: dict[str, list[list[Any]]] = data["values"]
        self.releases: dict[str, Any] = data["releases"]
        self.brackets: list[tuple[int, int]] = _narrow(self.builds, self.releases)
        """Each table's build number as narrowed by everything known (:func:`_narrow`)."""

    def label(self, index: int) -> str:
        return str(self.builds[index]["label"])

    def option(self, spelling: str, index: int) -> tuple[str, str] | None:
        """(kind, canonical long spelling) of a spelling in the table at ``index``."""
        for lo, hi, kind, canonical in self.options.get(spelling) or []:
            if lo <= index <= hi:
                return kind, canonical or spelling
        return None

    def accepted(self, canonical: str, index: int) -> tuple[list[str], bool] | None:
        for lo, hi, words, integer in self.values.get(canonical) or []:
            if lo <= index <= hi:
                return words, integer
        return None

    def versions(self) -> tuple[Version, ...]:
        """Each table as a version world's version, oldest first, labelled by its build text: ``b4579``, or
        ``@4227c9be4`` for a table known only within a bracket of builds (b6111-b8501), whose key (the bracket's
        lowest build, then the commit) equals no build number, so that a stated build never matches it."""
        out: list[Version] = []
        for (lo, _), build in zip(self.brackets, self.builds, strict=True):
            label = str(build["label"])
            key: tuple[object, ...] = (lo,) if label == f"b{lo}" else (lo, label)
            out.append(Version("build", label, key))
        return tuple(out)

    def narrow(self, options: list[str], leave_out: str | None = None) -> list[int]:
        """The tables that accept every written option (but ``leave_out``) that some table has: a build that
        refuses one would not start. An option no table has narrows nothing (it is a finding of its own), and
        options no single table accepts together narrow nothing either (every table)."""
        every = range(len(self.builds))
        real = [spelling(o) for o in options if o != leave_out]
        real = [o for o in real if any(self.option(o, i) is not None for i in every)]
        return [i for i in every if all(self.option(o, i) is not None for o in real)] or list(every)

    def where(self, indices: list[int]) -> str:
        """Table indices as build text (``b4579-@4227c9be4, b11312``)."""
        runs: list[list[int]] = []
        for i in sorted(indices):
            if runs and runs[-1][1] == i - 1:
                runs[-1][1] = i
            else:
                runs.append([i, i])
        return ", ".join(self.label(a) if a == b else f"{self.label(a)}-{self.label(b)}" for a, b in runs)

    def worlds(self, version: Version | None) -> tuple[list[int], bool]:
        """The tables a deployment may run, and whether that is exactly one known build.

        A build number that no table has lies between two tables in commit order, its nearest older and newer one:
        the tables that can be either (by :attr:`brackets`) are its worlds, and no other (a table the number puts
        on the far side of another table never neighbours it). A release lies between the last table whose
        CMakeLists.txt sets an older version (every table from before the versioning is older) and the first that
        sets its version or a newer one."""
        last = len(self.builds) - 1
        if version is None:
            return list(range(last + 1)), False
        if version.scheme == "build":
            number = int(version.key[0])  # type: ignore[call-overload]
            for i, (lo, hi) in enumerate(self.brackets):
                if lo == hi == number:
                    return [i], True
            return neighbours(self.brackets, number), False
        if version.scheme == "release":
            release = tuple(int(str(n)) for n in version.key)
            dev = _dev_versions(self.builds)
            # a table whose CMakeLists.txt sets X.Y.Z lies after the bump to X.Y.Z, where release vX.Y.Z is cut
            before = [i for i, d in enumerate(dev) if d is not None and d < release]
            after = [i for i, d in enumerate(dev) if d is not None and d >= release]
            lo = max(before) if before else 0
            hi = min(after) if after else last
            return list(range(lo, hi + 1)), False
        return list(range(last + 1)), False

    def build_worlds(self, version: Version | None) -> BuildWorlds:
        """The builds a deployment of ``version`` may run (:class:`BuildWorlds`): the tables :meth:`worlds`
        allows, and whether builds outside them may run. The version unknown: every table, and builds older than
        the first and newer than the last. A build number below the first table's (or above the last's) lies
        outside the tables, beside the edge table; one between two tables, and a release, lie between the tables
        that can neighbour them and are none of them (``own``)."""
        last = len(self.builds) - 1
        if version is None or version.scheme not in ("build", "release"):
            return BuildWorlds(tuple(range(last + 1)), True, True, None)
        tables, exact = self.worlds(version)
        if exact:
            return BuildWorlds(tuple(tables), False, False, None)
        if version.scheme == "build":
            number = int(str(version.key[0]))
            if number < self.brackets[0][0]:
                return BuildWorlds(tuple(tables), True, False, None)
            if number > self.brackets[last][1]:
                return BuildWorlds(tuple(tables), False, True, None)
        elif tables == [last] and (_dev_versions(self.builds)[last] or (0,)) < tuple(int(str(n)) for n in version.key):
            return BuildWorlds(tuple(tables), False, True, None)  # a release after the newest table's version
        return BuildWorlds(tuple(tables), False, False, version.text)


def _dev_versions(builds: list[dict[str, Any]]) -> list[tuple[int, ...] | None]:
    """The version each table's CMakeLists.txt sets; ``(0, 0, 0)`` for a table older than the first that sets one
    (llama.cpp had no version before PR #26839: every release is newer), ``None`` where unknown."""
    dev = [tuple(int(n) for n in str(b["dev"]).split(".")) if b.get("dev") else None for b in builds]
    first = next((i for i, d in enumerate(dev) if d is not None), None)
    return [(0, 0, 0) if first is not None and i < first else d for i, d in enumerate(dev)]


def _narrow(builds: list[dict[str, Any]], releases: dict[str, Any]) -> list[tuple[int, int]]:
    """Each table's build number, ``(lowest, highest)``: the bracket its extraction records, raised to the first
    development build of the versioning for a table whose CMakeLists.txt sets a version, and kept in commit order
    (the tables are distinct commits of master, oldest first, and ``git rev-list --count`` grows by at least one
    from each to the next)."""
    first_dev = int(releases.get("first_dev_build") or 0)
    brackets = [[int(b["build"][0]), int(b["build"][1])] for b in builds]
    for bracket, build in zip(brackets, builds, strict=True):
        if build.get("dev") and first_dev:
            bracket[0] = max(bracket[0], first_dev)
    for i in range(1, len(brackets)):
        brackets[i][0] = max(brackets[i][0], brackets[i - 1][0] + 1)
    for i in range(len(brackets) - 2, -1, -1):
        brackets[i][1] = min(brackets[i][1], brackets[i + 1][1] - 1)
    return [(lo, hi) for lo, hi in brackets]


def neighbours(brackets: list[tuple[int, int]], number: int) -> list[int]:
    """The tables that can be the nearest older or the nearest newer table of build ``number`` (a number no table
    has): table ``i`` is the nearest older one where it can be below ``number`` while the next table can be above
    it, and the nearest newer one where it can be above ``number`` while the one before can be below it."""
    last = len(brackets) - 1
    out = []
    for i, (lo, hi) in enumerate(brackets):
        older = lo < number and (i == last or brackets[i + 1][1] > number)
        newer = hi > number and (i == 0 or brackets[i - 1][0] < number)
        if older or newer:
            out.append(i)
    return out


@lru_cache(maxsize=1)
def table() -> LlamaTable:
    return LlamaTable(json.loads((DATA / "llamacpp_flags.json").read_text(encoding="utf-8")))


ENV_PREFIX = "LLAMA_ARG_"
NEVER_READ = -2
"""``Problem.position`` of a variable that no tabled build reads (a misspelt name): unread whatever the build."""


class EnvEffect(Frozen):
    """What one build does with one variable (``common_params_parse_ex``: every option's variable goes to its
    handler before the command line is read). ``kind``: ``unread`` (the build has no such variable), ``ignored`` (a
    switch's variable whose value is not one the build applies: the switch stays off), ``refused`` (the handler
    throws: the start-up stops), ``set``. ``option``: the option's long spelling where the build reads the variable;
    ``value``: what it sets (``true``/``false`` for a switch, the value as written otherwise)."""

    kind: str
    option: str | None
    value: str | None
    handler: str | None

    _fields = ("kind", "option", "value", "handler")

    def __init__(self, kind: str, option: str | None = None, value: str | None = None,
                 handler: str | None = None) -> None:
        self.kind = kind
        self.option = option
        self.value = value
        self.handler = handler


_UNREAD = EnvEffect("unread")


def env_read(name: str, index: int) -> tuple[str, str] | None:
    """(option long spelling, handler) of the variable ``name`` in the table at ``index``; ``None`` where that
    build does not read it."""
    for lo, hi, option, handler in table().env.get(name) or []:
        if lo <= index <= hi:
            return str(option), str(handler)
    return None


def env_readers(name: str) -> list[int]:
    """The tables that read the variable ``name``."""
    return [i for lo, hi, *_ in table().env.get(name) or [] for i in range(lo, hi + 1)]


def env_effect(name: str, value: str, index: int) -> EnvEffect:
    """What the build of the table at ``index`` does with ``name=value`` (:class:`EnvEffect`)."""
    t = table()
    read = env_read(name, index) if name in t.env else None
    if read is None:
        return _UNREAD
    option, handler = read
    build = t.builds[index]
    if handler == "neg":  # get_value_from_env: the LLAMA_ARG_NO_* form is read first and means false, any value
        return EnvEffect("set", option, "false", handler)
    if handler == "void":
        if value in build.get("env_switch", []):
            return EnvEffect("set", option, "true", handler)
        return EnvEffect("ignored", option, None, handler)
    if handler == "bool":
        words: list[str] = build.get("env_bool", [])
        if value not in words:
            return EnvEffect("refused", option, None, handler)
        return EnvEffect("set", option, "true" if value in build.get("env_switch", []) else "false", handler)
    if handler == "int" and not fits(value, [], True):
        return EnvEffect("refused", option, None, handler)
    accepted = t.accepted(option, index)
    if handler == "string" and accepted is not None and not fits(value, *accepted):
        return EnvEffect("refused", option, None, handler)
    return EnvEffect("set", option, value, handler)


def env_pool(words: list[str | None], version: Version | None) -> list[int]:
    """The tables a deployment's variables are read by: those the version allows, narrowed to the ones that accept
    every option on the command line."""
    t = table()
    worlds = list(t.build_worlds(version).tables)
    return [i for i in t.narrow(written_options(words)) if i in worlds] or worlds


def env_note(name: str, option: str, builds: list[int]) -> str:
    """The provenance of a fact a variable sets: the variable, the option and the tables where it maps so."""
    t = table()
    every = env_readers(name)
    scope = f"llama-server {t.where(builds)}"
    if sorted(set(every)) != sorted(builds):
        scope += f"; read by {t.where(every)}"
    return f"{name} sets {option} ({scope})"


def spelling(text: str) -> str:
    """The parser's lookup key: ``_`` becomes ``-`` in ``--`` options."""
    return "--" + text[2:].replace("_", "-") if text.startswith("--") else text


class _Walk(Fields):
    problems: dict[int, tuple[str, str]]  # position -> (kind, detail)
    consumed: set[int]

    _fields = ("problems", "consumed")

    def __init__(self, problems: dict[int, tuple[str, str]], consumed: set[int]) -> None:
        self.problems = problems
        self.consumed = consumed


def _walk(words: list[str | None], index: int) -> _Walk:
    t = table()
    problems: dict[int, tuple[str, str]] = {}
    consumed: set[int] = set()
    aligned = True
    j = 0
    while j < len(words):
        text = words[j]
        if text is None:
            aligned = False  # an unknown word (a variable): what follows may be shifted
            j += 1
            continue
        key = spelling(text)
        entry = t.option(key, index)
        if entry is None:
            if j > 0 and words[j - 1] in FLASH_ATTN and text in FA_WORDS:
                pass  # -fa on where -fa takes no value: RL506's case
            elif "=" in text and text.startswith("-"):
                pass  # --flag=value: RL505's case
            elif text.startswith("-") and len(text) > 1 and not _NUMBER.match(text):
                problems[j] = ("unknown", key)
                nxt = words[j + 1] if j + 1 < len(words) else None
                if nxt is None or not nxt.startswith("-") or _NUMBER.match(nxt):
                    j += 1  # what follows may be the unknown option's value: not a stray word of its own
            elif aligned:
                problems[j] = ("stray", text)
            j += 1
            continue
        kind, canonical = entry
        if kind in ("f", "n"):
            j += 1
            continue
        count = 2 if kind == "2" else 1
        value = words[j + 1] if j + 1 < len(words) else None
        if canonical == "--flash-attn" and value is not None and value.startswith("-") and value not in FA_WORDS:
            j += 1  # a bare -fa before another option: RL506's case
            continue
        accepted = t.accepted(canonical, index)
        if canonical == "--flash-attn":
            accepted = None  # any other word after -fa is RL506's case
        if value is not None and accepted is not None and not fits(value, *accepted):
            problems[j + 1] = ("value", canonical)
        consumed.update(range(j + 1, j + 1 + count))
        j += 1 + count
    return _Walk(problems, consumed)


def fits(value: str, words: list[str], integer: bool) -> bool:
    """Whether the option whose accepted words and integer flag are given takes ``value``."""
    if value in words:
        return True
    return integer and re.fullmatch(r"\s*[-+]?\d+.*", value) is not None  # std::stoi reads a leading integer


def written_options(words: list[str | None]) -> list[str]:
    """The options of a llama-server command line as written that some table has, but those a table's walk
    takes as another option's value: what narrows the build worlds (:meth:`LlamaTable.narrow`)."""
    t = table()
    every = range(len(t.builds))
    walks = [_walk(words, i) for i in every]
    return [str(w) for j, w in enumerate(words) if w is not None and w.startswith("-") and len(w) > 1
            and not _NUMBER.match(w) and "=" not in w and any(t.option(spelling(w), i) is not None for i in every)
            and not any(j in walk.consumed for walk in walks)]


def leave_out(words: list[str | None], position: int, options: list[str]) -> str | None:
    """The written option a problem at ``position`` is about, left out of the narrowing of its own worlds."""
    word = words[position]
    return word if word is not None and word in options else None


def check(words: list[str | None], version: Version | None) -> list[Problem]:
    """Every word of a llama-server command line (after the program) that some table the version allows rejects,
    with the tables that reject it among those that accept the other options present (leave one out: a build
    that refuses another option of the line would not start, so it is not one this word can fail on)."""
    t = table()
    worlds = list(t.build_worlds(version).tables)
    walks = {i: _walk(words, i) for i in range(len(t.builds))}
    options = written_options(words)
    positions = sorted({p for i in worlds for p in walks[i].problems})
    out: list[Problem] = []
    for p in positions:
        narrowed = [i for i in t.narrow(options, leave_out(words, p, options)) if i in worlds]
        pool = narrowed or worlds
        bad = [i for i in pool if p in walks[i].problems]
        if not bad:
            continue
        kind, detail = next(walks[i].problems[p] for i in bad)
        message = _message(kind, detail, str(words[p]), words, p, bad, pool)
        if narrowed and len(narrowed) < len(worlds):
            message += " (narrowed to the builds that accept the other options here)"
        out.append(Problem(kind, p, message, frozenset(bad), frozenset(pool)))
    return out


def check_env(env: dict[str, str], words: list[str | None], version: Version | None) -> dict[str, Problem]:
    """``LLAMA_ARG_*`` values the build rejects: the parser hands every variable of an option to its handler before it
    reads the command line, and a value the handler refuses stops the start-up (``LLAMA_ARG_SPLIT_MODE=tensor``
    before ``tensor`` existed, ``LLAMA_ARG_THREADS=auto`` to an integer's ``std::stoi``, ``LLAMA_ARG_MMAP=no`` to a
    boolean's ``parse_bool_value``). Keyed by variable name; the tables are narrowed to those that accept every
    option on the command line (:func:`env_pool`)."""
    t = table()
    pool = env_pool(words, version)
    out: dict[str, Problem] = {}
    for name, value in sorted(env.items()):
        if name not in t.env:
            continue  # read by no build: nothing to refuse (RL527)
        bad = [i for i in pool if env_effect(name, value, i).kind == "refused"]
        if not bad:
            continue
        option, handler = env_read(name, bad[-1]) or ("", "")
        scope = f"llama-server {t.where(bad)}"
        if len(bad) < len(pool):
            scope += f" (the builds {t.where([i for i in pool if i not in bad])} accept it)"
        message = (f"`{name}={value}` is not a value of `{option}` on {scope}: it takes "
                   f"{_takes(option, handler, bad[-1])} (the variable is read before the command line, so the "
                   f"start-up stops even where a flag sets the option)")
        out[name] = Problem("value", -1, message, frozenset(bad), frozenset(pool))
    return out


def _takes(option: str, handler: str, index: int) -> str:
    """The values a variable's handler takes in the table at ``index``, in words."""
    if handler == "bool":
        return ", ".join(table().builds[index].get("env_bool", []))
    if handler == "int":
        return "an integer only"
    words_ok, integer = table().accepted(option, index) or ([], True)
    if not words_ok:
        return "an integer only"
    return ", ".join(words_ok) + (" or an integer" if integer else "")


def check_unread(env: dict[str, str], words: list[str | None], version: Version | None) -> dict[str, Problem]:
    """Variables the build does nothing with: an ``LLAMA_ARG_*`` name (or an ``LLAMA_*`` name some tabled build reads
    for an option, such as ``LLAMA_LOG_FILE``, and nothing else reads) that the build does not read, and a switch's
    variable whose value the build does not apply although it asks for the switch (``LLAMA_ARG_FLASH_ATTN=on`` where
    -fa is a switch set only by 1 or true; a false word there leaves the switch off, as meant). Keyed by variable
    name; ``refused``: the tables of the pool (:func:`env_pool`) that do nothing with it. A name no tabled build
    reads is reported with the nearest name that one does (``position`` :data:`NEVER_READ`)."""
    t = table()
    pool = env_pool(words, version)
    out: dict[str, Problem] = {}
    for name, value in sorted(env.items()):
        if len(out) >= MAX_INSTANCES:
            break  # a generated file: the first ones are reported (and their did-you-mean looked up), not 5,000
        readers = env_readers(name)
        if not name.startswith("LLAMA_") or (not readers and not name.startswith(ENV_PREFIX)):
            # not only llama-server's option variables: another program's (CUDA_VISIBLE_DEVICES), or one llama.cpp
            # reads elsewhere (LLAMA_CACHE; MTMD_BACKEND_DEVICE in clip.cpp, HF_TOKEN in llama-bench)
            continue
        effects = {i: env_effect(name, value, i) for i in pool}
        unread = [i for i in pool if effects[i].kind == "unread"]
        ignored = [i for i in pool if effects[i].kind == "ignored" and value.strip().lower() not in FALSE_WORDS]
        bad = sorted(unread + ignored)
        if not bad:
            continue
        if not readers:
            hint = _suggest_env(name) if len(out) < SUGGESTIONS else ""
            message = (f"`{name}` is read by no llama-server build from {t.label(0)} to "
                       f"{t.label(len(t.builds) - 1)}: it does nothing{hint}")
            out[name] = Problem("unread", NEVER_READ, message, frozenset(bad), frozenset(pool))
            continue
        parts = []
        if unread:
            parts.append(f"`{name}` is not read by llama-server {t.where(unread)}: it sets {_reads(name)}"
                         f"{_instead(name, unread)}")
        if ignored:
            switch_words = " or ".join(t.builds[ignored[-1]].get("env_switch", []))
            parts.append(f"`{name}={value}` is ignored by llama-server {t.where(ignored)}: there "
                         f"`{effects[ignored[-1]].option}` is a switch whose variable is applied only for "
                         f"{switch_words}")
        message = "; ".join(parts)
        if len(bad) < len(pool):
            message += f" (the builds {t.where([i for i in pool if i not in bad])} apply it)"
        out[name] = Problem("unread", -1, message, frozenset(bad), frozenset(pool))
    return out


def _reads(name: str) -> str:
    """The option(s) a variable sets and the tables where (``--kv-unified`` only in @49bfddeca-b11312)."""
    t = table()
    by_option: dict[str, list[int]] = {}
    for lo, hi, option, _handler in t.env.get(name) or []:
        by_option.setdefault(str(option), []).extend(range(lo, hi + 1))
    only = " only" if len(by_option) == 1 else ""
    return ", ".join(f"`{option}`{only} in {t.where(found)}" for option, found in by_option.items())


def check_negated(env: dict[str, str], words: list[str | None], version: Version | None) -> dict[str, Problem]:
    """A boolean's ``LLAMA_ARG_NO_*`` variable given a false word (``LLAMA_ARG_NO_MMAP=false``, meant as "do not
    disable"): from @49bfddeca ``get_value_from_env`` reads that form first and turns the option off whatever its
    value, the opposite of what was meant. Keyed by variable name; ``refused``: the tables of the pool
    (:func:`env_pool`) that read it so (before them it was a switch of its own, and a false word left it off)."""
    t = table()
    pool = env_pool(words, version)
    out: dict[str, Problem] = {}
    for name, value in sorted(env.items()):
        if not name.startswith("LLAMA_ARG_NO_") or value.strip().lower() not in FALSE_WORDS - {""}:
            continue
        bad = [i for i in pool if env_read(name, i) is not None and (env_read(name, i) or ("", ""))[1] == "neg"]
        if not bad:
            continue
        option = (env_read(name, bad[-1]) or ("?", ""))[0]
        positive = name.replace("LLAMA_ARG_NO_", ENV_PREFIX, 1)
        message = (f"`{name}={value}` turns `{option}` off on llama-server {t.where(bad)}: a boolean's "
                   f"LLAMA_ARG_NO_* variable is read as false whatever its value; to keep `{option}` on, remove it "
                   f"(or set `{positive}=true`)")
        if len(bad) < len(pool):
            message += f" (on {t.where([i for i in pool if i not in bad])} the false word leaves it as meant)"
        out[name] = Problem("negated", -1, message, frozenset(bad), frozenset(pool))
    return out


SUGGESTIONS = 20
"""The most misspelt names of one deployment given a did-you-mean (the spelling comparison is the costly part)."""


FALSE_WORDS = frozenset({"0", "false", "off", "disabled", "no", ""})
"""Values that ask for a switch to stay off: a build that ignores them leaves it off, as meant."""


def _instead(name: str, builds: list[int]) -> str:
    """The variables that set the same option as ``name`` in the ``builds`` that do not read ``name``
    (``LLAMA_ARG_LOG_FILE`` for ``LLAMA_LOG_FILE`` from b9518, ``LLAMA_ARG_KV_SPLIT`` on @4227c9be4)."""
    t = table()
    options = {r[2] for r in t.env.get(name) or []}
    by_name: dict[str, list[int]] = {}
    for other, ranges in t.env.items():
        for lo, hi, option, handler in ranges:
            if other != name and option in options and handler != "neg":
                by_name.setdefault(other, []).extend(i for i in builds if lo <= i <= hi)
    uses = [f"{t.where(found)} reads `{other}`" for other, found in sorted(by_name.items()) if found]
    return f" (for that option {'; '.join(uses)})" if uses else ""


def _suggest_env(name: str) -> str:
    """The nearest name some tabled build reads: one that extends the name or that it extends (``LLAMA_ARG_CTX``:
    ``LLAMA_ARG_CTX_SIZE``), else the closest spelling."""
    stem = name.removeprefix(ENV_PREFIX)
    known = _known_env()
    near = [n for n, s in known if s.startswith(stem) or stem.startswith(s)]
    if near:
        best = min(near, key=lambda n: (abs(len(n) - len(name)), n))
        return f" (did you mean `{best}`?)"
    import difflib  # only when a name is not read: a start-up import otherwise

    close = difflib.get_close_matches(name, [n for n, _ in known], n=1, cutoff=0.8)
    return f" (did you mean `{close[0]}`?)" if close else ""


@lru_cache(maxsize=1)
def _known_env() -> tuple[tuple[str, str], ...]:
    """Every ``LLAMA_ARG_*`` name a tabled build reads, with its part after the prefix."""
    return tuple((n, n.removeprefix(ENV_PREFIX)) for n in table().env if n.startswith(ENV_PREFIX))


def _message(kind: str, detail: str, word: str, words: list[str | None], p: int, bad: list[int],
             pool: list[int]) -> str:
    t = table()
    scope = f"llama-server {t.where(bad)}"
    if kind == "unknown":
        known = [i for i in range(len(t.builds)) if t.option(detail, i) is not None]
        if not known:
            scope = f"any llama-server build from {t.label(0)} to {t.label(len(t.builds) - 1)}"
        history = f"; it exists in {t.where(known)}" if known else ""
        hint = _suggest(detail, bad[-1]) if not known or detail in RENAMED else ""
        return f"`{word}` is not an option of {scope}{history}{hint}"
    if len(bad) < len(pool):
        scope += f" (the builds {t.where([i for i in pool if i not in bad])} accept it)"
    if kind == "value":
        accepted = t.accepted(detail, bad[-1])
        detail = words[p - 1] or detail  # the option as written (-ngl, not --gpu-layers)
        words_ok = ", ".join(accepted[0]) if accepted else ""
        also = " or an integer" if accepted and accepted[1] else ""
        if accepted and not accepted[0]:
            return f"`{word}` is not a value of `{detail}` on {scope}: it takes an integer only"
        return f"`{word}` is not a value of `{detail}` on {scope}: it takes {words_ok}{also}"
    before = words[p - 1] if p > 0 else None
    option = words[p - 2] if p > 1 else None
    if before and before.startswith("-") and "=" in before:
        option = before.split("=", 1)[0]
    if before and option and option.startswith("-") and secret_name(option):
        after = f" after the value of `{option}`"  # a secret (--api-key): named, never shown (``secrets``)
    else:
        after = f" after `{before}`" if before else ""
    return (f"`{word}`{after} is neither an option nor an option's value on {scope}: the parser stops with "
            f"\"invalid argument: {word}\"")


def _suggest(key: str, index: int) -> str:
    if key in RENAMED:
        return f" (use `{RENAMED[key]}`)"
    pool = [s for s in table().options if s.startswith("--") and table().option(s, index) is not None]
    import difflib  # only when a name is unknown: a start-up import otherwise

    close = difflib.get_close_matches(key, pool, n=1, cutoff=0.8)
    return f" (did you mean `{close[0]}`?)" if close else " (no close option)"


def kinds_of(spelling: str, version: Version | None) -> set[str]:
    """The kinds (``v``, ``f``, ...) a spelling has across the builds the version allows (``-`` where it is absent)."""
    t = table()
    worlds, _ = t.worlds(version)
    return {(t.option(spelling, i) or ("-", ""))[0] for i in worlds}


def fa_words() -> set[str]:
    """The words ``-fa`` takes in the builds where it takes a value (the parser's truthy, falsey and auto words)."""
    return {w for entry in table().values.get("--flash-attn") or [] for w in entry[2]}


def record_launch(deployment: Any, args: list[Any]) -> None:
    """``--flag=value`` tokens (RL505) and what follows ``-fa`` (RL506); none of it depends on the build."""
    from relialint.core.facts import Fact
    from relialint.engines.common import word_fact

    facts = deployment.facts
    words = fa_words()
    equals: list[Any] = []
    bare = value = None
    bare_word: Any = None
    for i, word in enumerate(args):
        text = word.text
        if text is None or not text.startswith("-") or text in ("-", "--"):
            continue
        head, eq, _ = text.partition("=")
        if eq and (head.startswith("--") or head in table().options):
            equals.append(word)
        if head in FLASH_ATTN and not eq:
            nxt = args[i + 1].text if i + 1 < len(args) else ""
            if nxt is None:
                continue  # spliced: cannot tell
            if nxt in words:
                value = value or (nxt, word)
            elif bare is None:
                bare, bare_word = nxt, word
    for word in equals:  # every `--flag=value`, each reported at its own word
        facts.add_instance("args.equals_form", {"args.equals_form": word_fact(word.text, "flag", word)})
    if not equals:
        facts.set("args.equals_form", Fact(None, "inferred"))
    facts.set("llama.flash_attn_bare", word_fact(bare, "flag", bare_word) if bare_word is not None
              else Fact(None, "inferred"))
    facts.set("llama.flash_attn_value", word_fact(value[0], "flag", value[1]) if value is not None
              else Fact(None, "inferred"))
