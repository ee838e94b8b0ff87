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

import difflib
import itertools
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from relialint.versions import Version, parse_engine_version

DATA = Path(__file__).resolve().parent.parent / "data"

# -- loading --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OptionInfo:
    """One option string in one version: its kind (v value, o optional value, f flag, n negative, ? unknown)."""

    kind: str
    canonical: str | None = None


class VllmTable:
    def __init__(self, data: dict[str, Any]) -> None:
        self.versions: list[str] = data["versions"]
        self.parsed: list[Version] = [parse_engine_version("vllm", v) for v in self.versions]
        self.options: dict[str, list[list[Any]]] = data["options"]
        self.env: dict[str, list[list[int]]] = data["env"]
        self.incomplete: set[str] = set(data.get("incomplete") or [])
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
        return _span_text(self.env.get(name) or [], self.versions)

    def has_env(self, name: str, index: int) -> bool:
        return any(lo <= index <= hi for lo, hi, *_ in self.env.get(name) or [])

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


@lru_cache(maxsize=1)
def vllm_table() -> VllmTable:
    text = (DATA / "vllm_flags.json").read_text(encoding="utf-8")
    return VllmTable(json.loads(text))


# -- vLLM options ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """The check of one written option: ``problem`` is the text for the finding, ``certain`` its certainty."""

    problem: str | None
    certain: bool = True


def _suggest(name: str, candidates: list[str]) -> str:
    return _suggest_cached(name, tuple(candidates))


@lru_cache(maxsize=4096)
def _suggest_cached(name: str, candidates: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.75)
    return f" (did you mean `{close[0]}`?)" if close else ""


def vllm_version(value: object) -> Version | None:
    if isinstance(value, Version) and value.scheme == "pep440":
        return value
    return None


def resolve_long(name: str, index: int | None) -> tuple[str | None, list[str]]:
    """Argparse's lookup of a ``--`` name: exact, else the unique prefix; returns (match, ambiguous candidates)."""
    table = vllm_table()
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


def check_vllm_option(written: str, version: Version | None) -> Verdict:
    """``written``: an option as the parser sees it (``--gpu_memory_utilization`` already dashed is fine)."""
    table = vllm_table()
    head = written.split("=", 1)[0]
    if head.startswith("--"):
        head = "--" + head[2:].split(".", 1)[0].replace("_", "-")
    elif head.startswith("-O"):
        return Verdict(None)  # -O<n>, -O.x, -O: rewritten by the parser itself
    else:
        head = head.split(".", 1)[0]
    index = table.index(version)
    if index is not None:
        if head.startswith("--"):
            match, ambiguous = resolve_long(head, index)
            if match is not None:
                return Verdict(None)
            if len(ambiguous) > 1:
                return Verdict(f"`{head}` is ambiguous in vLLM {table.versions[index]} "
                               f"(could be {', '.join(f'`{a}`' for a in sorted(ambiguous)[:4])})")
        elif table.has_option(head, index) or _attached_short(head, index):
            return Verdict(None)
        pool = table.long_options(index) if head.startswith("--") else [
            n for n in table.options if not n.startswith("--") and table.has_option(n, index)]
        where = table.option_span(head)
        history = f"; it exists in {where}" if where else ""
        return Verdict(f"`{head}` is not an option of vLLM {table.versions[index]}{history}{_suggest(head, pool)}")
    # version unknown, or not one the table lists
    if head.startswith("--"):
        match, ambiguous = resolve_long(head, None)
        known_somewhere = match is not None or bool(ambiguous)
    else:
        known_somewhere = head in table.options or _attached_short(head, None)
    pool = table.long_options(None) if head.startswith("--") else [n for n in table.options if not n.startswith("--")]
    newest = table.versions[-1]
    if not known_somewhere:
        beyond = version is not None and not table.covers(version)
        return Verdict(f"`{head}` is not an option of any vLLM version from {table.versions[0]} to {newest}"
                       f"{_suggest(head, pool)}", certain=not beyond)
    if version is not None and table.covers(version):
        # between two listed releases: trust the neighbours when both agree
        before = max(i for i, v in enumerate(table.parsed) if v < version)
        after = before + 1
        name = match if head.startswith("--") and match else head
        if not table.has_option(name, before) and not table.has_option(name, after):
            return Verdict(f"`{head}` is in neither vLLM {table.versions[before]} nor {table.versions[after]} "
                           f"(it exists in {table.option_span(name)})", certain=False)
        return Verdict(None)
    if version is not None:
        return Verdict(None)  # newer than the table: a known option is assumed kept
    name = match if head.startswith("--") and match else head
    ranges = table.options.get(name) or []
    if ranges and ranges[0][0] == 0 and ranges[-1][1] == len(table.versions) - 1 and all(
            a[1] + 1 == b[0] for a, b in itertools.pairwise(ranges)):
        return Verdict(None)  # in every listed version
    return Verdict(f"`{head}` exists only in vLLM {table.option_span(name)}", certain=False)


def _attached_short(head: str, index: int | None) -> bool:
    """``-qfp8``: a one-letter short option with its value attached."""
    if len(head) <= 2 or head.startswith("--"):
        return False
    short = head[:2]
    info = vllm_table().option(short, index)
    return info is not None and info.kind in ("v", "o", "?")


def takes_value(name: str, version: Version | None) -> bool | None:
    """Whether the long option ``--name`` takes a value, per the table (``None``: the table does not say)."""
    table = vllm_table()
    index = table.index(version)
    info = table.option("--" + name, index)
    if info is None and index is not None:
        info = table.option("--" + name, None)
    if info is None or info.kind == "?":
        return None
    return info.kind in ("v", "o")


def check_vllm_env(name: str, version: Version | None) -> Verdict:
    """A ``VLLM_*`` variable: does the version read it?"""
    table = vllm_table()
    index = table.index(version)
    if index is not None:
        if table.has_env(name, index):
            return Verdict(None)
        where = table.env_span(name)
        history = f" (read in {where})" if where else _suggest(name, table.env_names(index))
        return Verdict(f"vLLM {table.versions[index]} does not read `{name}`{history}")
    where = table.env_span(name)
    if where is None:
        return Verdict(f"no vLLM version from {table.versions[0]} to {table.versions[-1]} reads `{name}`"
                       f"{_suggest(name, table.env_names(None))}",
                       certain=version is None or table.covers(version))
    if version is not None:
        if not table.covers(version):
            return Verdict(None)
        before = max(i for i, v in enumerate(table.parsed) if v < version)
        if not table.has_env(name, before) and not table.has_env(name, before + 1):
            return Verdict(f"`{name}` is read only by vLLM {where}", certain=False)
        return Verdict(None)
    ranges = table.env[name]
    if ranges[0][0] == 0 and ranges[-1][1] == len(table.versions) - 1 and len(ranges) == 1:
        return Verdict(None)
    return Verdict(f"`{name}` is read only by vLLM {where}", certain=False)


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
    from relialint.engines.common import word_fact
    from relialint.facts import Fact

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
    setattr(deployment, _WRITTEN, written)
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


def written_options(deployment: Any) -> list[str]:
    """The options of a vLLM launch as written on its command line (not from a ``--config`` file)."""
    return [str(word.text) for word in getattr(deployment, _WRITTEN, [])]


def finish_vllm(deployment: Any) -> None:
    """Option and env-var checks against the final ``engine.version`` (after command-line facts are applied)."""
    from relialint.engines.common import word_fact
    from relialint.facts import Fact

    facts = deployment.facts
    version_fact = facts.get("engine.version")
    version = vllm_version(version_fact.value if version_fact is not None else None)
    found = False
    for word in getattr(deployment, _WRITTEN, []):
        verdict = check_vllm_option(word.text, version)
        if verdict.problem is not None:
            facts.set("args.unknown_option", word_fact(verdict.problem, "flag", word))
            facts.set("args.unknown_option_certain", word_fact(verdict.certain, "flag", word))
            if not verdict.certain:
                facts.unknown("args.unknown_option_certain")  # the version decides it
            found = True
            break
    if not found:
        facts.set("args.unknown_option", Fact(None, "inferred"))
        facts.set("args.unknown_option_certain", Fact(True, "inferred"))
    found = False
    for key in sorted(facts.facts, key=lambda k: (facts.facts[k].line or 0, facts.facts[k].column or 0)):
        if not key.startswith("env.VLLM_"):
            continue
        fact = facts.facts[key]
        verdict = check_vllm_env(key[4:], version)
        if verdict.problem is not None:
            facts.set("args.unread_env", Fact(verdict.problem, fact.origin, fact.path, fact.line, fact.column,
                                              fact.end_line, fact.end_column))
            facts.set("args.unread_env_certain", Fact(verdict.certain, fact.origin, fact.path, fact.line,
                                                      fact.column, fact.end_line, fact.end_column))
            if not verdict.certain:
                facts.unknown("args.unread_env_certain")  # the version decides it
            found = True
            break
    if not found:
        facts.set("args.unread_env", Fact(None, "inferred"))
        facts.set("args.unread_env_certain", Fact(True, "inferred"))
