"""vLLM's release delta (:mod:`relialint.engines.releases`) from its tables: the option strings and ``VLLM_*``
variables of each release (``flagcheck.vllm_table()``) and the defaults rows (``vllm_defaults.ROWS``)."""

from __future__ import annotations

from functools import lru_cache

from relialint.core.facts import Fact, FactSet
from relialint.core.versions import Version, parse_in_family
from relialint.engines import flagcheck, vllm_defaults
from relialint.engines.releases import (
    ENV_READ,
    ENV_UNREAD,
    OPTION_ACCEPTED,
    OPTION_CHANGED,
    OPTION_REFUSED,
    DefaultChange,
    EnvChange,
    OptionChange,
    ReleaseDelta,
    ValueChange,
    combine,
    not_checked,
    shape_changed,
)

ENGINE = "vllm"


def releases() -> tuple[Version, ...]:
    return tuple(flagcheck.vllm_table().parsed)


@lru_cache(maxsize=256)
def release_delta(old: Version, new: Version) -> ReleaseDelta:
    """Options, variables and defaults that differ between two vLLM versions. A version between two tabled releases
    (a pre-release) can be either for its options (:func:`relialint.engines.releases.combine`); one outside the
    option table is not checked. Defaults come from the rows, which read any version."""
    table = flagcheck.vllm_table()
    old_worlds, new_worlds = table_worlds(old), table_worlds(new)
    if old_worlds is None or new_worlds is None:
        missing = [str(v) for v, w in ((old, old_worlds), (new, new_worlds)) if w is None]
        return not_checked(ENGINE, old, new, f"vLLM {' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} "
                           f"outside relialint's option tables ({table.versions[0]}-{table.versions[-1]})")
    defaults = _defaults(old, new, new_worlds[-1])
    values = _values(old, new)
    deltas = [ReleaseDelta(ENGINE, old, new, options=option_changes(i, j), env=_env(i, j), defaults=defaults,
                           values=values) for i in old_worlds for j in new_worlds]
    if len(old_worlds) == len(new_worlds) == 1:
        return deltas[0]
    between = [f"{v} lies between the tabled {table.versions[w[0]]} and {table.versions[w[1]]}"
               for v, w in ((old, old_worlds), (new, new_worlds)) if len(w) > 1]
    return combine(ENGINE, old, new, deltas, f"vLLM {'; '.join(between)}: a change in one of them only is possible")


def table_worlds(version: Version, table: flagcheck.VllmTable | None = None) -> list[int] | None:
    """The option tables ``version`` can be: its own, the two it lies between, or ``None`` outside the tables."""
    table = table or flagcheck.vllm_table()
    index = table.index(version)
    if index is not None:
        return [index]
    if not table.covers(version):
        return None
    before = max(i for i, v in enumerate(table.parsed) if v < version)
    return [before, before + 1]


def option_changes(old: int, new: int, table: flagcheck.VllmTable | None = None) -> tuple[OptionChange, ...]:
    table = table or flagcheck.vllm_table()
    out: list[OptionChange] = []
    for name in sorted(table.options):
        before, after = table.option(name, old), table.option(name, new)
        if before is None and after is None:
            continue
        if after is None:
            out.append(OptionChange(name, OPTION_REFUSED, before.kind if before else None, None,
                                    replacement=_replacement(name, new, table)))
        elif before is None:
            out.append(OptionChange(name, OPTION_ACCEPTED, None, after.kind))
        elif shape_changed(before.kind, after.kind):
            out.append(OptionChange(name, OPTION_CHANGED, before.kind, after.kind))
    return tuple(out)


def _values(old: Version, new: Version) -> tuple[ValueChange, ...]:
    """The values one release accepts and the other refuses, by ``flagcheck.VALUE_SINCE`` (the first release that
    accepts each, from the released wheels)."""
    out: list[ValueChange] = []
    for fact, firsts in flagcheck.VALUE_SINCE.items():
        option = flagcheck.VALUE_OPTION[fact]
        for value, first in firsts.items():
            since = parse_in_family(False, first)
            before, after = not old < since, not new < since
            if before != after:
                out.append(ValueChange(option, value, fact, OPTION_ACCEPTED if after else OPTION_REFUSED, first))
    return tuple(out)


def _replacement(name: str, index: int, table: flagcheck.VllmTable | None = None) -> str | None:
    """The engine's own replacement (``renames`` in the table), where the release at ``index`` has it."""
    table = table or flagcheck.vllm_table()
    entry = table.renames.get(name)
    if entry is None:
        return None
    shown, needs = entry
    valid = table.has_option(needs, index) if needs.startswith("-") else table.has_env(needs, index)
    return shown if valid else None


def _env(old: int, new: int, table: flagcheck.VllmTable | None = None, prefixes: tuple[str, ...] = ()
         ) -> tuple[EnvChange, ...]:
    """The variables one release reads and the other does not (with ``prefixes``, only names that start so)."""
    table = table or flagcheck.vllm_table()
    out: list[EnvChange] = []
    for name in sorted(table.env):
        if prefixes and not name.startswith(prefixes):
            continue
        before, after = table.has_env(name, old), table.has_env(name, new)
        if before and not after:
            out.append(EnvChange(name, ENV_UNREAD, replacement=_replacement(name, new, table)))
        elif after and not before:
            out.append(EnvChange(name, ENV_READ))
    return tuple(out)


def _pins(fact: str, index: int) -> tuple[str, ...]:
    """The options and variables of the release at table ``index`` that set ``fact`` (what keeps the old value)."""
    from relialint.engines.vllm import OPTION_FACTS

    flags = [f"--{flag}" for flag, facts in OPTION_FACTS.items() if fact in facts and flag != "model"]
    env: list[str] = []
    for row in vllm_defaults.ROWS:
        if row.fact == fact and isinstance(row.value, vllm_defaults.FromEnv):
            env.append(row.value.key.removeprefix("env."))
    table = flagcheck.vllm_table()
    valid = [p for p in dict.fromkeys([*flags, *env]) if (
        table.has_option(p, index) if p.startswith("-") else table.has_env(p, index))]
    return tuple(valid)


def defaults_of(version: Version) -> FactSet:
    """The defaults of one release for a complete command line and environment that set nothing."""
    facts = FactSet({"engine.name": Fact(ENGINE, "inferred"), "engine.version": Fact(version, "inferred")},
                    closed={"flag.vllm.", "env."})
    vllm_defaults.version_defaults(facts)
    return facts


def _defaults(old: Version, new: Version, index: int) -> tuple[DefaultChange, ...]:
    before, after = defaults_of(old), defaults_of(new)
    out: list[DefaultChange] = []
    for fact, _rows in vllm_defaults.BY_FACT:
        was, now = before.facts.get(fact), after.facts.get(fact)
        old_known, new_known = was is not None, now is not None
        if (not old_known and not new_known) or (was is not None and now is not None and was.value == now.value):
            continue
        shown = now if now is not None else was
        out.append(DefaultChange(fact, was.value if was else None, now.value if now else None, old_known,
                                 new_known, _pins(fact, index), shown.note if shown is not None else None))
    return tuple(out)


# -- where upstream (the site's release pages link it) ---------------------------------------------------------------

REPOSITORY = "https://github.com/vllm-project/vllm/blob/v{version}/{path}"
"""A file of a vLLM release at its release tag."""


def option_source(version: Version) -> str:
    """The file that declares a release's options (the one its table was read from)."""
    return REPOSITORY.format(version=version, path="vllm/engine/arg_utils.py")


def env_source(name: str, version: Version) -> str | None:
    """The file in which a release reads ``name``: ``vllm/envs.py``, or the module that reads it outside
    ``envs.environment_variables``; ``None`` where the table does not have it for that release, or the reader is
    compiled code."""
    table = flagcheck.vllm_table()
    index = table.index(version)
    if index is None or not table.has_env(name, index):
        return None
    where = table.read_where(name, index)
    if where is None:
        return REPOSITORY.format(version=version, path="vllm/envs.py")
    return REPOSITORY.format(version=version, path=where[3:]) if where.startswith("py:") else None
