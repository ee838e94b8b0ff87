"""vLLM's release delta (:mod:`relialint.engines.releases`) from its tables: the option strings and ``VLLM_*``
variables of each release (``flagcheck.vllm_table()``) and the defaults rows (``vllm_defaults.ROWS``)."""

from __future__ import annotations

from relialint.core.facts import Fact, FactSet
from relialint.core.versions import Version
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
    not_checked,
)

ENGINE = "vllm"


def releases() -> tuple[Version, ...]:
    return tuple(flagcheck.vllm_table().parsed)


def release_delta(old: Version, new: Version) -> ReleaseDelta:
    """Options, variables and defaults that differ between two tabled vLLM releases; not checked for a version the
    option table does not list."""
    table = flagcheck.vllm_table()
    old_index, new_index = table.index(old), table.index(new)
    missing = [str(v) for v, i in ((old, old_index), (new, new_index)) if i is None]
    if old_index is None or new_index is None:
        return not_checked(ENGINE, old, new, f"vLLM {' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} "
                           f"not in relialint's option tables ({table.versions[0]}-{table.versions[-1]}, releases "
                           "only)")
    return ReleaseDelta(ENGINE, old, new, options=_options(old_index, new_index), env=_env(old_index, new_index),
                        defaults=_defaults(old, new))


def _options(old: int, new: int) -> tuple[OptionChange, ...]:
    table = flagcheck.vllm_table()
    out: list[OptionChange] = []
    for name in sorted(table.options):
        before, after = table.option(name, old), table.option(name, new)
        if before is None and after is None:
            continue
        if after is None:
            out.append(OptionChange(name, OPTION_REFUSED, before.kind if before else None, None,
                                    replacement=_replacement(name, new)))
        elif before is None:
            out.append(OptionChange(name, OPTION_ACCEPTED, None, after.kind))
        elif before.kind != after.kind and "?" not in (before.kind, after.kind):
            out.append(OptionChange(name, OPTION_CHANGED, before.kind, after.kind))
    return tuple(out)


def _replacement(name: str, index: int) -> str | None:
    """The engine's own replacement (``renames`` in the table), where the release at ``index`` has it."""
    table = flagcheck.vllm_table()
    entry = table.renames.get(name)
    if entry is None:
        return None
    shown, needs = entry
    valid = table.has_option(needs, index) if needs.startswith("-") else table.has_env(needs, index)
    return shown if valid else None


def _env(old: int, new: int) -> tuple[EnvChange, ...]:
    table = flagcheck.vllm_table()
    out: list[EnvChange] = []
    for name in sorted(table.env):
        before, after = table.has_env(name, old), table.has_env(name, new)
        if before and not after:
            out.append(EnvChange(name, ENV_UNREAD, replacement=_replacement(name, new)))
        elif after and not before:
            out.append(EnvChange(name, ENV_READ))
    return tuple(out)


def known(facts: FactSet, fact: str) -> bool:
    """Whether the defaults decided ``fact`` (a value or none): not one left to the GPU (a default the GPU decides
    makes every default that follows it unknown too)."""
    if fact in facts.blocked:
        return False
    return not (fact in vllm_defaults.GPU_DEPENDENT and any(k in facts.blocked for k in vllm_defaults.GPU_DEPENDENT))


def _pins(fact: str, new: Version) -> tuple[str, ...]:
    """The options and variables of release ``new`` that set ``fact`` (what keeps the old value when written)."""
    from relialint.engines.vllm import OPTION_FACTS

    flags = [f"--{flag}" for flag, facts in OPTION_FACTS.items() if fact in facts and flag != "model"]
    env: list[str] = []
    for row in vllm_defaults.ROWS:
        if row.fact == fact and isinstance(row.value, vllm_defaults.FromEnv):
            env.append(row.value.key.removeprefix("env."))
    table = flagcheck.vllm_table()
    index = table.index(new)
    valid = [p for p in dict.fromkeys([*flags, *env]) if index is not None and (
        table.has_option(p, index) if p.startswith("-") else table.has_env(p, index))]
    return tuple(valid)


def defaults_of(version: Version) -> FactSet:
    """The defaults of one release for a complete command line and environment that set nothing."""
    facts = FactSet({"engine.name": Fact(ENGINE, "inferred"), "engine.version": Fact(version, "inferred")},
                    closed={"flag.vllm.", "env."})
    vllm_defaults.version_defaults(facts)
    return facts


def _defaults(old: Version, new: Version) -> tuple[DefaultChange, ...]:
    before, after = defaults_of(old), defaults_of(new)
    out: list[DefaultChange] = []
    for fact, _rows in vllm_defaults.BY_FACT:
        was, now = before.facts.get(fact), after.facts.get(fact)
        old_known, new_known = known(before, fact), known(after, fact)
        if (was.value if was else None) == (now.value if now else None) and old_known and new_known:
            continue
        shown = now if now is not None else was
        out.append(DefaultChange(fact, was.value if was else None, now.value if now else None, old_known,
                                 new_known, _pins(fact, new), shown.note if shown is not None else None))
    return tuple(out)
