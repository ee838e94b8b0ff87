"""llama.cpp's release delta (:mod:`relialint.engines.releases`) from its per-build option tables
(``llamacpp_flags.table()``): option spellings, their value sets, and the ``LLAMA_ARG_*`` variables each build reads.
Only a build a table is exactly (``b6327``, not a table known within a bracket of builds) is checked; llama-server's
defaults do not depend on the build (one defaults class), so no default changes."""

from __future__ import annotations

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
    not_checked,
)

ENGINE = "llama.cpp"


def _exact() -> dict[int, int]:
    """Build number -> table index, for the tables that are one known build."""
    table = llamacpp_flags.table()
    return {lo: i for i, (lo, hi) in enumerate(table.brackets) if lo == hi}


def releases() -> tuple[Version, ...]:
    versions = llamacpp_flags.table().versions()
    return tuple(versions[i] for i in sorted(_exact().values()))


def _index(version: Version) -> int | None:
    if version.scheme != "build":
        return None
    return _exact().get(int(str(version.key[0])))


def release_delta(old: Version, new: Version) -> ReleaseDelta:
    """Options, values and variables that differ between two tabled llama.cpp builds; not checked for a build or
    release no table is exactly."""
    old_index, new_index = _index(old), _index(new)
    if old_index is None or new_index is None:
        missing = [str(v) for v, i in ((old, old_index), (new, new_index)) if i is None]
        listed = ", ".join(str(v) for v in releases())
        return not_checked(ENGINE, old, new, f"llama.cpp {' and '.join(missing)} "
                           f"{'is' if len(missing) == 1 else 'are'} not a build relialint's option tables describe "
                           f"exactly ({listed})")
    return ReleaseDelta(ENGINE, old, new, options=_options(old_index, new_index), env=_env(old_index, new_index))


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
            if before[0] != after[0] or was != now:
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
