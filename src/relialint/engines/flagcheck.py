"""Version-aware option and env-var knowledge, from the generated tables in ``relialint/data``.

``vllm_flags.json`` (``tools/gen_vllm_tables.py``) lists every option string of ``vllm serve`` and every
``VLLM_*`` variable of ``envs.py`` for each released vLLM version the table covers (llama.cpp's tables are read by
``llamacpp_flags``). The table is loaded lazily, once, with one ``json.loads``.

The checks here turn them into facts (``args.unknown_option``, ``args.unread_env``, ...). With the version known
and covered, an unknown option is certain, with a did-you-mean; with the version unknown, an option that no
version has is certain, and one that only some versions have leaves the finding *possible* on
``engine.version``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from relialint.base.plain import Frozen
from relialint.core.versions import Version, parse_in_family
from relialint.readers.located import Span

DATA = Path(__file__).resolve().parent.parent / "data"

# -- loading --------------------------------------------------------------------------------------------------------


class OptionInfo(Frozen):
    """One option string in one version: its kind (v value, o optional value, f flag, n negative, ? unknown)."""

    kind: str
    canonical: str | None = None

    _fields = ("kind", "canonical")

    def __init__(self, kind: str, canonical: str | None = None) -> None:
        self.kind = kind
        self.canonical = canonical


class VllmTable:
    def __init__(self, data: dict[str, Any]) -> None:
        self.versions: list[str] = data["versions"]
        self.parsed: list[Version] = [parse_in_family(False, v) for v in self.versions]
        self.options: dict[str, list[list[Any]]] = data["options"]
        self.env: dict[str, list[list[int]]] = data["env"]
        self.incomplete: set[str] = set(data.get("incomplete") or [])
        self.renames: dict[str, tuple[str, str]] = {old: (new[0], new[1]) for old, new in
                                                    (data.get("renames") or {}).items()}
        """old option or variable -> (the replacement as shown, the option string or variable it needs)"""
        self.refused: dict[str, frozenset[int]] = {}
        """option -> the table indices whose parser has it only to refuse it (``deprecated`` entries of behaviour
        ``refused``: SGLang's ``DeprecatedAction`` raises when the option is given)"""
        for name, ranges in (data.get("deprecated") or {}).items():
            refused = frozenset(i for lo, hi, behaviour, *_ in ranges if behaviour == "refused"
                                for i in range(lo, hi + 1))
            if refused:
                self.refused[name] = refused
            news = [entry[3] for entry in ranges if len(entry) > 3 and isinstance(entry[3], str)]
            if news and re.fullmatch(r"--[\w-]+", news[-1]) and name not in self.renames:
                self.renames[name] = (news[-1], news[-1])  # the replacement the parser names
        self.prefix_rewrites: dict[str, list[list[Any]]] = data.get("env_prefix_rewrites") or {}
        """variable prefix -> [[first, last, new prefix]]: releases that copy every ``OLD_X`` to ``NEW_X``"""
        self._long: dict[int | None, list[str]] = {}

    def index(self, version: Version | None) -> int | None:
        """The table index of exactly this version, or ``None``."""
        if version is None:
            return None
        for i, known in enumerate(self.parsed):
            if known == version:
                return i
        return None

    def covers(self, version: Version) -> bool:
        """Whether ``version`` lies inside the table's first..last range (even if not listed itself)."""
        return not version < self.parsed[0] and not self.parsed[-1] < version

    def option(self, name: str, index: int | None) -> OptionInfo | None:
        """The option as of the version at ``index``; with ``None``, the newest version that has it."""
        ranges = self.options.get(name)
        if not ranges:
            return None
        if index is None:
            last = ranges[-1]
            return OptionInfo(last[2], last[3] if len(last) > 3 else None)
        for entry in ranges:
            if entry[0] <= index <= entry[1]:
                return OptionInfo(entry[2], entry[3] if len(entry) > 3 else None)
        return None

    def has_option(self, name: str, index: int) -> bool:
        return self.option(name, index) is not None

    def option_span(self, name: str) -> str | None:
        """Where an option exists, as text (``0.6.6.post1-0.8.2``)."""
        return _span_text(self.options.get(name) or [], self.versions)

    def env_span(self, name: str) -> str | None:
        """Where a variable is read, as text, wherever it is read (``0.10.2-0.33.0``)."""
        merged: list[list[int]] = []
        for lo, hi, *_ in self.env.get(name) or []:
            if merged and merged[-1][1] == lo - 1:
                merged[-1][1] = hi
            else:
                merged.append([lo, hi])
        return _span_text(merged, self.versions)

    def has_env(self, name: str, index: int) -> bool:
        return any(lo <= index <= hi for lo, hi, *_ in self.env.get(name) or [])

    def listed(self, name: str, index: int) -> bool:
        """Whether the version at ``index`` lists the variable in ``envs.environment_variables`` (a range with a
        third element is a variable it reads elsewhere only: in another module or in its compiled code)."""
        return any(lo <= index <= hi and not rest for lo, hi, *rest in self.env.get(name) or [])

    def read_where(self, name: str, index: int) -> str | None:
        """Where the version at ``index`` reads a variable its ``environment_variables`` does not list."""
        for lo, hi, *rest in self.env.get(name) or []:
            if lo <= index <= hi and rest:
                return str(rest[0])
        return None

    def long_options(self, index: int | None) -> list[str]:
        """Every ``--`` option of a version (``None``: of any version); computed once per version."""
        cached = self._long.get(index)
        if cached is None:
            cached = [name for name, ranges in self.options.items() if name.startswith("--") and (
                index is None or any(r[0] <= index <= r[1] for r in ranges))]
            self._long[index] = cached
        return cached

    def env_names(self, index: int | None) -> list[str]:
        return [name for name, ranges in self.env.items() if index is None or any(
            lo <= index <= hi for lo, hi, *_ in ranges)]


def _span_text(ranges: list[list[Any]], versions: list[str]) -> str | None:
    if not ranges:
        return None
    parts = []
    for entry in ranges:
        lo, hi = versions[entry[0]], versions[entry[1]]
        parts.append(lo if lo == hi else f"{lo}-{hi}")
    return ", ".join(parts)


TABLES = {"vllm": ("vllm_flags.json", "vLLM", ("VLLM_",)),
          "sglang": ("sglang_flags.json", "SGLang", ("SGLANG_", "SGL_"))}
"""The engines with per-release option tables in this format: the data file, the engine's name in prose, the
prefixes of the variables it reads."""


@lru_cache(maxsize=1)
def vllm_table() -> VllmTable:
    return table_of("vllm")


@lru_cache(maxsize=4)
def table_of(engine: str) -> VllmTable:
    """An engine's option table (``TABLES``), loaded once."""
    text = (DATA / TABLES[engine][0]).read_text(encoding="utf-8")
    return VllmTable(json.loads(text))


def has_table(engine: str) -> bool:
    """Whether the engine's table is shipped (``TABLES`` names it and the data file is there)."""
    return engine in TABLES and (DATA / TABLES[engine][0]).is_file()


def label(engine: str) -> str:
    """The engine's name in prose (``vLLM``, ``SGLang``)."""
    return TABLES[engine][1] if engine in TABLES else engine


# -- vLLM options ---------------------------------------------------------------------------------------------------


class Verdict(Frozen):
    """The check of one written option: ``problem`` is the text for the finding, ``certain`` its certainty."""

    problem: str | None
    certain: bool = True

    _fields = ("problem", "certain")

    def __init__(self, problem: str | None, certain: bool = True) -> None:
        self.problem = problem
        self.certain = certain


NO_CLOSE = " (no close option)"


def _suggest(name: str, candidates: list[str], cutoff: float = 0.8) -> str:
    return _suggest_cached(name, tuple(candidates), cutoff)


@lru_cache(maxsize=4096)
def _suggest_cached(name: str, candidates: tuple[str, ...], cutoff: float) -> str:
    import difflib  # only when a name is unknown: a start-up import otherwise

    close = difflib.get_close_matches(name, candidates, n=1, cutoff=cutoff)
    return f" (did you mean `{close[0]}`?)" if close else ""


def vllm_version(value: object) -> Version | None:
    if isinstance(value, Version) and value.scheme == "pep440":
        return value
    return None


def resolve_long(name: str, index: int | None, engine: str = "vllm") -> tuple[str | None, list[str]]:
    """Argparse's lookup of a ``--`` name: exact, else the unique prefix; returns (match, ambiguous candidates)."""
    table = table_of(engine)
    if index is not None:
        if table.has_option(name, index):
            return name, []
        pool = table.long_options(index)
    else:
        if name in table.options:
            return name, []
        pool = table.long_options(None)
    matches = [option for option in pool if option.startswith(name)]
    if len(matches) == 1:
        return matches[0], []
    return None, matches


def option_head(written: str) -> str | None:
    """The option string the parser looks up for a written option (``--a_b.c=1`` -> ``--a-b``); ``None`` for the
    ``-O`` forms the parser rewrites itself."""
    head = written.split("=", 1)[0]
    if head.startswith("--"):
        return "--" + head[2:].split(".", 1)[0].replace("_", "-")
    if head.startswith("-O"):
        return None
    return head.split(".", 1)[0]


@lru_cache(maxsize=256)
def _long_pool(allowed: frozenset[int], engine: str = "vllm") -> tuple[str, ...]:
    """The long options of any of the versions ``allowed``, sorted (once per set of versions)."""
    table = table_of(engine)
    return tuple(sorted({o for i in allowed for o in table.long_options(i)}))


@lru_cache(maxsize=8192)
def _present(head: str, engine: str = "vllm") -> frozenset[int]:
    """The table indices of the versions whose parser accepts ``head`` (exact, a unique prefix, ``-qfp8``)."""
    table = table_of(engine)
    if head.startswith("--"):
        candidates = [name for name in table.options if name.startswith(head)]
        present = frozenset(i for i in range(len(table.versions)) if table.has_option(head, i)
                            or sum(1 for name in candidates if table.has_option(name, i)) == 1)
        if table.refused:  # an option a release keeps only to refuse it (exactly, or as the unique prefix's match)
            present = frozenset(i for i in present if i not in table.refused.get(head, ()) and not (
                not table.has_option(head, i) and any(table.has_option(name, i) and i in table.refused.get(name, ())
                                                      for name in candidates)))
        return present
    return frozenset(i for i in range(len(table.versions))
                     if table.has_option(head, i) or _attached_short(head, i, engine))


def _accepting(heads: Iterable[str], engine: str = "vllm") -> frozenset[int]:
    out = frozenset(range(len(table_of(engine).versions)))
    for head in heads:
        out &= _present(head, engine)
    return out


VALUE_SINCE: dict[str, dict[str, str]] = {
    # --speculative-config `method` values (engine-facts.md §3, from the released wheels): 0.8.5 has ngram, eagle,
    # medusa, mlp_speculator, draft_model; 0.9.2 adds eagle3 and deepseek_mtp (so from 0.9.0 at the earliest);
    # 0.11.0 adds mtp (0.10.0-0.10.2 lack it)
    "args.spec_method": {"eagle3": "0.9.0", "deepseek_mtp": "0.9.0", "mtp": "0.11.0"},
}
"""Values that a vLLM release refuses before the version given (the earliest it can accept them): a deployment that
writes one runs on that version or a later one."""
VALUE_OPTION = {"args.spec_method": "--speculative-config"}
"""The option each of ``VALUE_SINCE``'s values is written in."""


def value_floor(facts: Any, leave_out: str | None = None) -> Version | None:
    """The earliest vLLM version that accepts every value the deployment writes, by ``VALUE_SINCE``; a value
    written in the option ``leave_out`` (an option string) does not count (its own worlds: leave one out)."""
    floor: Version | None = None
    for key, since in VALUE_SINCE.items():
        if leave_out is not None and VALUE_OPTION.get(key) == leave_out:
            continue
        fact = facts.get(key)
        text = since.get(str(fact.value)) if fact is not None and fact.value is not None else None
        if text is not None:
            version = parse_in_family(False, text)
            floor = version if floor is None or floor < version else floor
    return floor


def options_window(words: list[Any], engine: str = "vllm") -> tuple[str, Any, str] | None:
    """The releases a launch's options allow, as a PEP 440 range (``>=0.17.0``, ``>=0.8.2,<=0.16.0``), with the
    option that bounds it and why; ``None`` when they allow every tabled release. An option no release has, and
    options no single release accepts together, narrow nothing (they are findings of their own)."""
    table = table_of(engine)
    real = [w for w in words if w.text and versions_accepting(engine, [w.text])]
    allowed = versions_accepting(engine, [w.text for w in real])
    if not allowed or len(allowed) == len(table.parsed):
        return None
    low, high = allowed[0], allowed[-1]
    parts = ([f">={low}"] if low != table.parsed[0] else []) + ([f"<={high}"] if high != table.parsed[-1] else [])
    if not parts:
        return None
    for word in real:
        own = versions_accepting(engine, [word.text])
        if (low != table.parsed[0] and own[0] == low) or (high != table.parsed[-1] and own[-1] == high):
            name = word.text.split("=", 1)[0]
            return ",".join(parts), word, f"{name} exists only in {label(engine)} {_span_text_of(own)}"
    return ",".join(parts), real[0], "the options exist together only in these releases"


def _span_text_of(versions: list[Version]) -> str:
    return f"{versions[0]}-{versions[-1]}" if versions[0] != versions[-1] else str(versions[0])


def versions_accepting(engine: str, options: Iterable[str]) -> list[Version]:
    """The released, tabled versions of ``engine`` whose parser accepts every one of ``options`` (as written:
    ``--max-model-len``, ``--max_model_len=8192``, ``--speculative-config.method``, ``-tp``); every tabled version
    for no options. A deployment that passes the options runs on one of these (any other would refuse to start).
    Words that are not options (values) are skipped. An option no tabled version has makes the list empty. Only
    engine with option tables (``table_of``) has this (``[]`` otherwise)."""
    table = table_of(engine) if engine in TABLES else None
    if table is None:
        return []
    heads = [h for h in (option_head(o) for o in options if o.startswith("-")) if h is not None]
    return [table.parsed[i] for i in sorted(_accepting(heads, engine))]


def _indices_text(indices: Iterable[int], engine: str = "vllm") -> str:
    """Table indices as version ranges (``0.6.6.post1-0.8.2, 0.33.0``)."""
    table = table_of(engine)
    ranges: list[list[int]] = []
    for i in sorted(indices):
        if ranges and ranges[-1][1] == i - 1:
            ranges[-1][1] = i
        else:
            ranges.append([i, i])
    return ", ".join(table.versions[a] if a == b else f"{table.versions[a]}-{table.versions[b]}" for a, b in ranges)


def _rename(head: str, indices: Iterable[int], engine: str = "vllm") -> str:
    """The engine's own replacement for a removed or renamed option or variable, where it is valid in every one of
    ``indices`` (the versions the deployment can be on)."""
    entry = table_of(engine).renames.get(head)
    if entry is None:
        return _prefix_twin(head, indices, engine)
    shown, new_head = entry
    needed = frozenset(indices)
    valid = _present(new_head, engine) if new_head.startswith("-") else frozenset(
        i for i in range(len(table_of(engine).versions)) if table_of(engine).has_env(new_head, i))
    if not needed or not needed <= valid:
        return ""
    return f"; use `{shown}` instead"


def _prefix_twin(name: str, indices: Iterable[int], engine: str) -> str:
    """For a variable of the new prefix of a prefix rewrite (``SGLANG_X``), its old-prefix twin (``SGL_X``) where
    every one of ``indices`` reads that: the spelling those releases take."""
    needed = frozenset(indices)
    for old, ranges in table_of(engine).prefix_rewrites.items():
        for new in dict.fromkeys(str(entry[2]) for entry in ranges):
            if name.startswith(new) and needed:
                twin = old + name[len(new):]
                if needed <= env_present(twin, engine):
                    return f"; use `{twin}` instead"
    return ""


def _typo_hint(head: str, pool: list[str]) -> str:
    """For a name no version has: the engine's rename, else the nearest real name, else say there is none."""
    return _suggest(head, pool) or NO_CLOSE


def check_vllm_option(written: str, version: Version | None, others: Iterable[str] = (), engine: str = "vllm"
                      ) -> Verdict:
    """One written option (``--gpu_memory_utilization`` already dashed is fine) against ``version``; with the
    version unknown, against the versions the ``others`` (every other option of the launch) allow."""
    table = table_of(engine)
    if written.split("=", 1)[0].strip("-") == "":
        return Verdict(f"`{written}` names no option")  # `--=`: argparse finds it ambiguous with every option
    head = option_head(written)
    if head is None:
        return Verdict(None)  # -O<n>, -O.x, -O: rewritten by the parser itself
    present = _present(head, engine)
    long = head.startswith("--")
    index = table.index(version)
    if index is not None:
        if index in present:
            return Verdict(None)
        if long:
            _, ambiguous = resolve_long(head, index, engine)
            if len(ambiguous) > 1:
                return Verdict(f"`{head}` is ambiguous in {label(engine)} {table.versions[index]} "
                               f"(could be {', '.join(f'`{a}`' for a in sorted(ambiguous)[:4])})")
        return Verdict(f"`{head}` is not an option of {label(engine)} {table.versions[index]}"
                       f"{_history(head, present, [index], engine)}")
    if not present:
        beyond = version is not None and not table.covers(version)
        # the nearest real option among those of the versions the other options allow
        allowed = _accepting((h for h in (option_head(o) for o in others) if h is not None and h != head
                              and _present(h, engine)), engine) if version is None else frozenset()
        pool = list(_long_pool(allowed, engine)) if long and allowed else (
            table.long_options(None) if long else [n for n in table.options if not n.startswith("--")])
        return Verdict(f"`{head}` is not an option of any {label(engine)} version from {table.versions[0]} to "
                       f"{table.versions[-1]}{_typo_hint(head, pool)}", certain=not beyond)
    if version is not None:
        if not table.covers(version):
            return Verdict(None)  # newer than the table: a known option is assumed kept
        # between two listed releases (a pre-release): trust the neighbours when both agree
        before = max(i for i, v in enumerate(table.parsed) if v < version)
        if before not in present and before + 1 not in present:
            return Verdict(f"`{head}` is in neither {label(engine)} {table.versions[before]} nor "
                           f"{table.versions[before + 1]} "
                           f"(it exists in {_indices_text(present, engine)})", certain=False)
        return Verdict(None)
    # version unknown: the versions every other (somewhere known) option allows, leaving this one out
    other_heads = [h for h in (option_head(o) for o in others) if h is not None and h != head and _present(h, engine)]
    allowed = _accepting(other_heads, engine)
    if not allowed:
        allowed = frozenset(range(len(table.versions)))  # the others conflict among themselves: no narrowing
    if allowed <= present:
        return Verdict(None)
    if not allowed & present:
        blockers = [h for h in other_heads if not _present(h, engine) & present]
        both = f"`{head}` and `{blockers[0]}`" if blockers else f"`{head}` and the other options"
        return Verdict(f"no {label(engine)} release accepts both {both}: `{head}` exists in "
                       f"{_indices_text(present, engine)}"
                       f"{_rename(head, allowed, engine)}")
    return Verdict(f"`{head}` exists only in {label(engine)} {_indices_text(present, engine)}", certain=False)


def _history(head: str, present: frozenset[int], indices: list[int], engine: str = "vllm") -> str:
    """Why an option is missing from these versions: where it exists and its replacement, else a did-you-mean."""
    table = table_of(engine)
    if present:
        return f"; it exists in {_indices_text(present, engine)}{_rename(head, indices, engine)}"
    renamed = _rename(head, indices, engine)
    if renamed:
        return renamed
    pool = sorted({o for i in indices for o in (table.long_options(i) if head.startswith("--") else [
        n for n in table.options if not n.startswith("--") and table.has_option(n, i)])})
    return _typo_hint(head, pool)


def _attached_short(head: str, index: int | None, engine: str = "vllm") -> bool:
    """``-qfp8``: a one-letter short option with its value attached."""
    if len(head) <= 2 or head.startswith("--"):
        return False
    short = head[:2]
    info = table_of(engine).option(short, index)
    return info is not None and info.kind in ("v", "o", "?")


def takes_value(name: str, version: Version | None, engine: str = "vllm") -> bool | None:
    """Whether the long option ``--name`` takes a value, per the table (``None``: the table does not say)."""
    table = table_of(engine)
    index = table.index(version)
    info = table.option("--" + name, index)
    if info is None and index is not None:
        info = table.option("--" + name, None)
    if info is None or info.kind == "?":
        return None
    return info.kind in ("v", "o")


@lru_cache(maxsize=4096)
def env_present(name: str, engine: str = "vllm") -> frozenset[int]:
    """The table indices of the versions that read a variable: by its own name, or under the name a prefix
    rewrite gives it where the release rewrites (``env_prefix_rewrites``: SGLang copies every ``SGL_X`` to
    ``SGLANG_X`` at import from 0.5.3rc2)."""
    table = table_of(engine)
    present = frozenset(i for lo, hi, *_ in table.env.get(name) or [] for i in range(lo, hi + 1))
    for old, ranges in table.prefix_rewrites.items():
        if not name.startswith(old):
            continue
        for lo, hi, new in ranges:
            renamed = frozenset(i for a, b, *_ in table.env.get(new + name[len(old):]) or []
                                for i in range(a, b + 1))
            present |= renamed & frozenset(range(lo, hi + 1))
    return present


def _distance(a: str, b: str) -> int:
    """Levenshtein distance (insertions, deletions, substitutions)."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def near_miss(name: str, known: Iterable[str], prefixes: tuple[str, ...] = ("VLLM_",)) -> str | None:
    """The real ``VLLM_*`` name an unknown one misspells: at most two edits away, on a name of at least eight
    characters after ``VLLM_``, and not the real name cut at or extended from a ``_`` boundary (``VLLM_HOST`` is
    not ``VLLM_HOST_IP`` misspelt: it is more likely the deployment's own variable)."""
    stem = next((name[len(p):] for p in prefixes if name.startswith(p)), name)
    if len(stem) < 8:
        return None
    best: tuple[int, str] | None = None
    for real in known:
        if real.startswith(name + "_") or name.startswith(real + "_"):
            continue
        distance = _distance(name, real)
        if distance <= 2 and (best is None or (distance, real) < best):
            best = (distance, real)
    return best[1] if best is not None else None


def check_vllm_env(name: str, version: Version | None, options: Iterable[str] = (), engine: str = "vllm") -> Verdict:
    """A ``VLLM_*`` variable: does the version read it? With the version unknown, the versions that accept every
    one of ``options`` decide. A name no vLLM version ever read is a finding only as a near miss of a real one
    (``VLLM_ATENTION_BACKEND``); any other is the deployment's own variable (``VLLM_REPO_URL`` for an install
    script), not vLLM's, and gives nothing."""
    table = table_of(engine)
    present = env_present(name, engine)
    if not present:
        close = near_miss(name, table.env_names(None), TABLES[engine][2])
        if close is None:
            return Verdict(None)
        beyond = version is not None and not table.covers(version)
        return Verdict(f"no {label(engine)} version from {table.versions[0]} to {table.versions[-1]} reads `{name}` "
                       f"(did you mean `{close}`?)", certain=not beyond)
    index = table.index(version)
    if index is not None:
        if index in present:
            return Verdict(None)
        return Verdict(f"{label(engine)} {table.versions[index]} does not read `{name}` (read in "
                       f"{_indices_text(present, engine)})"
                       f"{_rename(name, [index], engine)}")
    if version is not None:
        if not table.covers(version):
            return Verdict(None)
        before = max(i for i, v in enumerate(table.parsed) if v < version)
        if before not in present and before + 1 not in present:
            return Verdict(f"`{name}` is read only by {label(engine)} {_indices_text(present, engine)}", certain=False)
        return Verdict(None)
    heads = [h for h in (option_head(o) for o in options) if h is not None and _present(h, engine)]
    allowed = _accepting(heads, engine) or frozenset(range(len(table.versions)))
    if allowed <= present:
        return Verdict(None)
    if not allowed & present:
        return Verdict(f"no {label(engine)} release that accepts these options reads `{name}` (read in "
                       f"{_indices_text(present, engine)}, the options need {_indices_text(allowed, engine)})"
                       f"{_rename(name, allowed, engine)}")
    return Verdict(f"`{name}` is read only by {label(engine)} {_indices_text(present, engine)}", certain=False)


ENVIRON_VALIDATION = "--fail-on-environ-validation"
"""From 0.17.0, ``EngineArgs.create_engine_config`` calls ``envs.validate_environ(self.fail_on_environ_validation)``:
with the option set, a ``VLLM_*`` variable of the process that ``envs.environment_variables`` does not list raises
``ValueError("Unknown vLLM environment variable detected: NAME")`` before the engine is built (without it, a
warning). vllm/engine/arg_utils.py and vllm/envs.py of the 0.17.0-0.33.0 wheels."""


def check_vllm_environ(name: str, version: Version | None, options: Iterable[str] = ()) -> Verdict:
    """A ``VLLM_*`` variable under ``--fail-on-environ-validation``: does the version refuse to start on it (its
    ``environment_variables`` lacks the name)? Only the versions that have the option can be the deployment's;
    with the version unknown, the versions that accept every one of ``options`` (the option among them)."""
    table = vllm_table()
    validating = _present(ENVIRON_VALIDATION)
    refusing = frozenset(i for i in validating if not table.listed(name, i))
    index = table.index(version)
    if index is not None:
        pool, certain = frozenset([index]) & validating, True
    elif version is not None:
        if table.parsed[-1] < version:
            pool, certain = frozenset([len(table.versions) - 1]), False  # newer: it may list the name
        elif version < table.parsed[0]:
            pool, certain = frozenset(), False
        else:  # between two listed releases (a pre-release): its neighbours
            before = max(i for i, v in enumerate(table.parsed) if v < version)
            pool, certain = frozenset([before, before + 1]) & validating, False
    else:
        heads = [h for h in (option_head(o) for o in options) if h is not None and _present(h)]
        pool = (_accepting(heads) or frozenset(range(len(table.versions)))) & validating
        certain = True
    bad = pool & refusing
    if not bad:
        return Verdict(None)
    newest = max(bad)
    where = table.read_where(name, newest)
    listed = frozenset(i for i in range(len(table.versions)) if table.listed(name, i))
    if where is not None:
        why = f"vLLM reads it only in {where.split(':', 1)[1]}"
    elif listed:
        why = f"listed in vLLM {_indices_text(listed)}"
    else:
        why = "no vLLM release reads it"
    scope = f"vLLM {table.versions[newest]}" if len(bad) == 1 else f"vLLM {_indices_text(bad)}"
    return Verdict(f"`{name}` is not in envs.environment_variables of {scope} ({why})",
                   certain=certain and bad == pool)


def possible_indices(deployment: Any, engine: str = "vllm") -> frozenset[int]:
    """The table indices of the versions a vLLM deployment can be on: its version (the two neighbours of an
    unlisted pre-release, the newest table for a newer version), else every version that accepts all its
    written options (every version when they conflict)."""
    table = table_of(engine)
    fact = deployment.facts.get("engine.version")
    version = vllm_version(fact.value if fact is not None else None)
    if version is not None:
        index = table.index(version)
        if index is not None:
            return frozenset([index])
        if not table.covers(version):
            return frozenset([len(table.versions) - 1]) if table.parsed[-1] < version else frozenset([0])
        before = max(i for i, v in enumerate(table.parsed) if v < version)
        return frozenset([before, before + 1])
    heads = [h for h in (option_head(w.text) for w in getattr(deployment, _WRITTEN, [])) if h and _present(h, engine)]
    return _accepting(heads, engine) or frozenset(range(len(table.versions)))


def setting_spelling(deployment: Any, alternatives: list[tuple[str, str]], engine: str = "vllm") -> str:
    """How to write a setting on the versions the deployment can be on. ``alternatives``: ``(text, needs)`` in
    order of preference, ``needs`` an option string (``--attention-backend``) or a variable
    (``VLLM_ATTENTION_BACKEND``). The first valid in every one of those versions, else each with the versions it
    is valid in: ``--attention-backend X (vLLM 0.13.0-0.33.0) or VLLM_ATTENTION_BACKEND=X (vLLM 0.7.0-0.12.0)``."""
    indices = possible_indices(deployment, engine)
    parts = []
    for text, needs in alternatives:
        valid = _present(needs, engine) if needs.startswith("-") else env_present(needs, engine)
        if indices <= valid:
            return text
        if indices & valid:
            parts.append(f"{text} ({label(engine)} {_indices_text(indices & valid, engine)})")
    return " or ".join(parts) if parts else alternatives[0][0]


# -- facts for the RL5xx records ------------------------------------------------------------------------------------

_WRITTEN = "_relialint_written_options"


def negative_of(name: str) -> str | None:
    """``disable-prefix-caching`` -> ``enable-prefix-caching`` where the table says it is a negative form."""
    info = vllm_table().option("--" + name, None)
    if info is not None and info.kind == "n" and info.canonical:
        return info.canonical[2:]
    return None


def record_vllm_launch(deployment: Any, form: str, args: list[Any], opts: list[Any], positionals: list[Any],
                       command: Any) -> None:
    """Facts of a vLLM launch that need no version; remembers the options as written for :func:`finish_vllm`."""
    from relialint.core.facts import Fact
    from relialint.engines.common import word_fact

    facts = deployment.facts
    facts.set("launch.form", word_fact(form, "inferred", args[0]) if args else Fact(form, "inferred"))
    written = []
    config_equals = None
    for opt in opts:
        if getattr(opt, "from_config", False) or opt.flag.text is None:
            continue
        written.append(opt.flag)
        if opt.name == "config" and opt.equals and config_equals is None:
            config_equals = opt.flag
    remember_written(deployment, written)
    facts.set("args.config_equals", word_fact(config_equals.text, "flag", config_equals)
              if config_equals is not None else Fact(None, "inferred"))
    if form == "api_server" and positionals and not any(o.name == "model" for o in opts):
        first = positionals[0]
        facts.set("launch.positional_model", word_fact(first.text, "flag", first))
    else:
        facts.set("launch.positional_model", Fact(None, "inferred"))
    if command.image is not None and command.entrypoint is None:
        texts = [w.text for w in args[:2]]
        repeated = texts[:2] == ["vllm", "serve"] or texts[:1] == ["serve"]
        facts.set("launch.serve_repeated", word_fact(repeated, "manifest", args[0]) if repeated
                  else Fact(False, "inferred"))
    else:
        facts.set("launch.serve_repeated", Fact(False, "inferred"))


_WRITTEN_TEXTS = "_relialint_written_texts"


def written_words(deployment: Any) -> list[Any]:
    """The option words of a vLLM launch as written on its command line (located)."""
    return list(getattr(deployment, _WRITTEN, []))


def written_options(deployment: Any) -> list[str]:
    """The options of a vLLM launch as written on its command line (not from a ``--config`` file); built once per
    launch and shared (every per-option finding asks again): callers read it, never change it."""
    words = getattr(deployment, _WRITTEN, [])
    cached = getattr(deployment, _WRITTEN_TEXTS, None)
    if cached is not None and cached[0] is words and len(cached[1]) == len(words):
        return cached[1]  # type: ignore[no-any-return]
    texts = [str(word.text) for word in words]
    setattr(deployment, _WRITTEN_TEXTS, (words, texts))
    return texts


def option_spans(deployment: Any) -> list[tuple[str, Span]]:
    """The options of :func:`written_options`, each with the span of its word."""
    return [(str(word.text), word.span) for word in getattr(deployment, _WRITTEN, [])]


def finish_vllm(deployment: Any) -> None:
    """Option and env-var checks against the final ``engine.version`` (:func:`check_written`), and vLLM's
    ``--fail-on-environ-validation``."""
    texts = check_written(deployment, "vllm")
    version_fact = deployment.facts.get("engine.version")
    _check_environ_validation(deployment.facts, vllm_version(version_fact.value if version_fact is not None else None),
                              texts)


def remember_written(deployment: Any, words: list[Any]) -> None:
    """The option words a launch writes on its command line (located), for the checks and the version worlds."""
    setattr(deployment, _WRITTEN, words)


def check_written(deployment: Any, engine: str) -> list[str]:
    """Option and env-var checks of an engine with option tables against the final ``engine.version`` (after
    command-line facts are applied): one instance of ``args.unknown_option`` per unknown option and of
    ``args.unread_env`` per unread variable of the engine's prefixes, each at its own token
    (``FactSet.instances``). Returns the options as written."""
    from relialint.core.facts import Fact
    from relialint.engines.common import word_fact

    facts = deployment.facts
    version_fact = facts.get("engine.version")
    version = vllm_version(version_fact.value if version_fact is not None else None)
    words = getattr(deployment, _WRITTEN, [])
    texts = [word.text for word in words]
    facts.drop_instances("args.unknown_option")
    facts.drop_instances("args.unread_env")
    # the other options matter only by their distinct heads known to some version: computed once per launch, so a
    # command line of thousands of options stays linear (each check leaves its own head out itself)
    known = [h for h in dict.fromkeys(option_head(str(t)) for t in texts) if h is not None and _present(h, engine)]
    window = options_window(words, engine) if version is None and words else None
    for word in words:
        verdict = check_vllm_option(word.text, version, known, engine)
        if verdict.problem is not None:
            head = option_head(word.text)
            refusing = _refusing(_present(head, engine) if head is not None else frozenset(), engine)
            _add(facts, "args.unknown_option", word_fact(verdict.problem, "flag", word), "args.option_refused",
                 word_fact(True, "flag", word), version, verdict.certain, refusing, word.text,
                 window[0] if window is not None else None, engine)
    if "args.unknown_option" not in facts.instances:
        facts.set("args.unknown_option", Fact(None, "inferred"))
    for name, where in _env_in_order(facts, TABLES[engine][2]):
        verdict = check_vllm_env(name, version, texts, engine)
        if verdict.problem is not None:
            _add(facts, "args.unread_env", Fact(verdict.problem, *where), "args.env_not_read", Fact(True, *where),
                 version, verdict.certain, _refusing(env_present(name, engine), engine), None, None, engine)
    if "args.unread_env" not in facts.instances:
        facts.set("args.unread_env", Fact(None, "inferred"))
    return texts


def _refusing(present: frozenset[int], engine: str = "vllm") -> frozenset[Version]:
    """The tabled versions outside ``present`` (the table indices of those that accept, read or list a name)."""
    table = table_of(engine)
    return frozenset(v for i, v in enumerate(table.parsed) if i not in present)


def _add(facts: Any, key: str, problem: Any, derived: str, true: Any, version: Version | None, certain: bool,
         holds: frozenset[Version], leave_out: str | None, options_range: str | None = None,
         engine: str = "vllm") -> None:
    """One located instance of ``key`` (``problem``: its text, for the message) and its fact ``derived`` per
    version world: with the version known, set here (true where the check is certain, else unknown: a version
    beyond or between the tables); with it unknown, true in the tabled versions ``holds``, decided by the worlds
    (``leave_out``: the written option the instance is about, which does not narrow its own worlds, nor does
    ``options_range``, the version range the options gave)."""
    from relialint.core.facts import ByVersion

    if version is not None:
        facts.add_instance(key, {key: problem, derived: true if certain else None})
        return
    # beyond the tables: what the release at the edge accepts (reads, lists) is assumed kept, as for a known
    # version beyond them (check_vllm_option); what it refuses is unknown there
    table = table_of(engine).parsed
    older = False if table[0] not in holds else None
    newer = False if table[-1] not in holds else None
    facts.add_instance(key, {key: problem}, {derived: ByVersion(holds, leave_out, options_range, older, newer)})


def _vllm_env_in_order(facts: Any) -> list[tuple[str, tuple[Any, ...]]]:
    return _env_in_order(facts, ("VLLM_",))


def _env_in_order(facts: Any, prefixes: tuple[str, ...]) -> list[tuple[str, tuple[Any, ...]]]:
    """Each variable of the prefixes (``VLLM_``) the deployment sets, in file order: its name and where the fact
    says it is (origin, path, line, column, end line, end column), for the facts derived from it."""
    keys = sorted((k for k in facts.facts if k.startswith(tuple("env." + p for p in prefixes))),
                  key=lambda k: (facts.facts[k].line or 0, facts.facts[k].column or 0))
    return [(key[4:], (f.origin, f.path, f.line, f.column, f.end_line, f.end_column))
            for key in keys for f in (facts.facts[key],)]


def _check_environ_validation(facts: Any, version: Version | None, texts: list[str]) -> None:
    """``args.unlisted_env``: one instance per ``VLLM_*`` variable a release that validates the environment
    (``--fail-on-environ-validation`` set, on the command line or in a ``--config`` file) refuses to start on."""
    from relialint.core.facts import Fact

    facts.drop_instances("args.unlisted_env")
    flag = facts.get("flag.vllm." + ENVIRON_VALIDATION[2:])
    if flag is not None and flag.value == "true":
        table = vllm_table()
        validating = _present(ENVIRON_VALIDATION)
        for name, where in _vllm_env_in_order(facts):
            verdict = check_vllm_environ(name, version, texts)
            if verdict.problem is not None:
                # a release without the option is no world of a deployment that sets it (it would refuse the
                # option): only the validating releases that do not list the name can be false
                listed = frozenset(i for i in validating if table.listed(name, i))
                _add(facts, "args.unlisted_env", Fact(verdict.problem, *where), "args.env_not_listed",
                     Fact(True, *where), version, verdict.certain, _refusing(listed), None)
    if "args.unlisted_env" not in facts.instances:
        facts.set("args.unlisted_env", Fact(None, "inferred"))
