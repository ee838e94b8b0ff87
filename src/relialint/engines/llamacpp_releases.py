"""llama.cpp's release delta (:mod:`relialint.engines.releases`) from its per-build option tables
(``llamacpp_flags.table()``): option spellings, their value sets, and the ``LLAMA_ARG_*`` variables each build reads.
The releases listed (:func:`releases`, ``--to latest``) are the builds a table is exactly (``b6327``, not a table
known only within a bracket of builds); a build or release between tables takes each table it can be
(``LlamaTable.build_worlds``). llama-server's defaults do not depend on the build (one defaults class), so no default
changes."""

from __future__ import annotations

from functools import lru_cache

from relialint.core.versions import Version
from relialint.engines import llamacpp_flags
from relialint.engines.releases import (
    ENV_READ,
    ENV_UNREAD,
    OPTION_ACCEPTED,
    OPTION_CHANGED,
    OPTION_REFUSED,
    EnvChange,
    OptionChange,
    ReleaseDelta,
    combine,
    not_checked,
    shape_changed,
)

ENGINE = "llama.cpp"


def _exact() -> dict[int, int]:
    """Build number -> table index, for the tables that are one known build."""
    table = llamacpp_flags.table()
    return {lo: i for i, (lo, hi) in enumerate(table.brackets) if lo == hi}


def releases() -> tuple[Version, ...]:
    versions = llamacpp_flags.table().versions()
    return tuple(versions[i] for i in sorted(_exact().values()))


def _worlds(version: Version) -> list[int] | None:
    """The tables ``version`` can be (``llamacpp_flags.LlamaTable.build_worlds``), or ``None`` where it can also be
    a build older or newer than every table."""
    worlds = llamacpp_flags.table().build_worlds(version)
    return None if worlds.older or worlds.newer else list(worlds.tables)


@lru_cache(maxsize=256)
def release_delta(old: Version, new: Version) -> ReleaseDelta:
    """Options, values and variables that differ between two llama.cpp builds or releases. One that lies between
    tables (a build no table is, a release) can be any of them (:func:`relialint.engines.releases.combine`); one
    outside the tables is not checked."""
    table = llamacpp_flags.table()
    old_worlds, new_worlds = _worlds(old), _worlds(new)
    if old_worlds is None or new_worlds is None:
        missing = [str(v) for v, w in ((old, old_worlds), (new, new_worlds)) if w is None]
        return not_checked(ENGINE, old, new, f"llama.cpp {' and '.join(missing)} "
                           f"{'is' if len(missing) == 1 else 'are'} outside relialint's option tables "
                           f"({table.label(0)}-{table.label(len(table.builds) - 1)})")
    deltas = [ReleaseDelta(ENGINE, old, new, options=_options(i, j), env=_env(i, j))
              for i in old_worlds for j in new_worlds]
    if len(old_worlds) == len(new_worlds) == 1:
        return deltas[0]
    between = [f"{v} can be the table of {table.where(w)}" for v, w in ((old, old_worlds), (new, new_worlds))
               if len(w) > 1]
    return combine(ENGINE, old, new, deltas, f"llama.cpp {'; '.join(between)}: a change in some of them only is "
                                             "possible")


def _values(canonical: str, index: int) -> tuple[str, ...]:
    accepted = llamacpp_flags.table().accepted(canonical, index)
    return tuple(accepted[0]) if accepted is not None else ()


def _options(old: int, new: int) -> tuple[OptionChange, ...]:
    table = llamacpp_flags.table()
    out: list[OptionChange] = []
    for name in sorted(table.options):
        before, after = table.option(name, old), table.option(name, new)
        if before is None and after is None:
            continue
        if after is None:
            out.append(OptionChange(name, OPTION_REFUSED, before[0] if before else None, None,
                                    _values(before[1], old) if before else ()))
        elif before is None:
            out.append(OptionChange(name, OPTION_ACCEPTED, None, after[0], (), _values(after[1], new)))
        else:
            was, now = _values(before[1], old), _values(after[1], new)
            if shape_changed(before[0], after[0]) or was != now:
                out.append(OptionChange(name, OPTION_CHANGED, before[0], after[0], was, now))
    return tuple(out)


def _env(old: int, new: int) -> tuple[EnvChange, ...]:
    table = llamacpp_flags.table()
    out: list[EnvChange] = []
    for name in sorted(table.env):
        before, after = llamacpp_flags.env_read(name, old), llamacpp_flags.env_read(name, new)
        if before is not None and after is None:
            out.append(EnvChange(name, ENV_UNREAD, before[0]))
        elif after is not None and before is None:
            out.append(EnvChange(name, ENV_READ, after[0]))
    return tuple(out)


# -- where upstream (the site's release pages link it) ---------------------------------------------------------------

ARG_FILE = "https://github.com/ggml-org/llama.cpp/blob/{commit}/common/arg.cpp"
"""``common/arg.cpp`` at a commit: the file that declares llama-server's options and their ``LLAMA_ARG_*``
variables."""


def _commit(version: Version) -> str | None:
    """The commit the table of that build was read at."""
    table = llamacpp_flags.table()
    for i, build in enumerate(table.builds):
        if table.label(i) == str(version):
            commit = build.get("commit")
            return str(commit) if commit else None
    return None


def option_source(version: Version) -> str | None:
    commit = _commit(version)
    return ARG_FILE.format(commit=commit) if commit else None


def env_source(name: str, version: Version) -> str | None:
    """Every variable a build reads is declared beside its option in ``common/arg.cpp``."""
    del name
    return option_source(version)
