"""SGLang's release delta (:mod:`relialint.engines.releases`) from its tables: the option strings and ``SGLANG_*`` /
``SGL_*`` variables of each release (``sglang_flags.json``) and the defaults rows (``sglang_defaults.ROWS``), read
with vLLM's table code (``vllm_releases``: the tables have one format)."""

from __future__ import annotations

from functools import lru_cache

from relialint.core.facts import Fact, FactSet
from relialint.core.versions import Version
from relialint.engines import sglang_checks, sglang_defaults, vllm_releases
from relialint.engines.releases import (
    ENV_READ,
    ENV_UNREAD,
    DefaultChange,
    EnvChange,
    ReleaseDelta,
    combine,
    not_checked,
)

ENGINE = "sglang"
PREFIXES = ("SGLANG_", "SGL_")
"""Only SGLang's own variables: the table also lists other libraries' names where SGLang's code reads them."""


def releases() -> tuple[Version, ...]:
    table = sglang_checks.table()
    return tuple(table.parsed) if table is not None else ()


@lru_cache(maxsize=256)
def release_delta(old: Version, new: Version) -> ReleaseDelta:
    """Options, variables and defaults that differ between two SGLang releases; a version between two tabled
    releases can be either, one outside the tables is not checked."""
    table = sglang_checks.table()
    if table is None:
        return not_checked(ENGINE, old, new, "SGLang's option tables are not shipped")
    old_worlds, new_worlds = vllm_releases.table_worlds(old, table), vllm_releases.table_worlds(new, table)
    if old_worlds is None or new_worlds is None:
        missing = [str(v) for v, w in ((old, old_worlds), (new, new_worlds)) if w is None]
        return not_checked(ENGINE, old, new, f"SGLang {' and '.join(missing)} "
                           f"{'is' if len(missing) == 1 else 'are'} outside relialint's option tables "
                           f"({table.versions[0]}-{table.versions[-1]})")
    defaults = _defaults(old, new, new_worlds[-1])
    deltas = [ReleaseDelta(ENGINE, old, new, options=vllm_releases.option_changes(i, j, table),
                           env=_env(i, j), defaults=defaults)
              for i in old_worlds for j in new_worlds]
    if len(old_worlds) == len(new_worlds) == 1:
        return deltas[0]
    between = [f"{v} lies between the tabled {table.versions[w[0]]} and {table.versions[w[1]]}"
               for v, w in ((old, old_worlds), (new, new_worlds)) if len(w) > 1]
    return combine(ENGINE, old, new, deltas, f"SGLang {'; '.join(between)}: a change in one of them only is possible")


def _env(old: int, new: int) -> tuple[EnvChange, ...]:
    """SGLang's own variables one release reads and the other does not; an ``SGL_X`` counts as read where the
    release copies it to ``SGLANG_X`` (``flagcheck``'s reading of the table's prefix rewrites)."""
    from relialint.engines.flagcheck import env_present

    table = sglang_checks.table()
    out: list[EnvChange] = []
    for name in sorted(table.env if table is not None else ()):
        if not name.startswith(PREFIXES):
            continue
        present = env_present(name, ENGINE)
        before, after = old in present, new in present
        if before and not after:
            out.append(EnvChange(name, ENV_UNREAD))
        elif after and not before:
            out.append(EnvChange(name, ENV_READ))
    return tuple(out)


def defaults_of(version: Version) -> FactSet:
    """The defaults of one release for a complete command line and environment that set nothing."""
    facts = FactSet({"engine.name": Fact(ENGINE, "inferred"), "engine.version": Fact(version, "inferred")},
                    closed={"flag.sglang.", "env."})
    sglang_defaults.version_defaults(facts)
    return facts


def _pins(fact: str, index: int) -> tuple[str, ...]:
    """The options of the release at table ``index`` that set ``fact`` (what keeps the old value)."""
    from relialint.engines.sglang import OPTION_FACTS

    table = sglang_checks.table()
    flags = [f"--{flag}" for flag, facts in OPTION_FACTS.items() if fact in facts]
    return tuple(f for f in flags if table is not None and table.has_option(f, index))


def _defaults(old: Version, new: Version, index: int) -> tuple[DefaultChange, ...]:
    before, after = defaults_of(old), defaults_of(new)
    out: list[DefaultChange] = []
    for fact in dict.fromkeys(row.fact for row in sglang_defaults.ROWS):
        was, now = before.facts.get(fact), after.facts.get(fact)
        if (was is None and now is None) or (was is not None and now is not None and was.value == now.value):
            continue
        shown = now if now is not None else was
        out.append(DefaultChange(fact, was.value if was else None, now.value if now else None, was is not None,
                                 now is not None, _pins(fact, index), shown.note if shown is not None else None))
    return tuple(out)
