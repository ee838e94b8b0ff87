"""SGLang's option tables by release (``data/sglang_flags.json``, the format of ``vllm_flags.json``) as the parser
and the checks read them: whether an option takes a value, the option a unique prefix stands for, the options a
launch writes (they narrow the version worlds)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from relialint.core.deployment import Deployment
from relialint.core.versions import Version
from relialint.engines import flagcheck
from relialint.engines.flagcheck import VllmTable
from relialint.engines.sglang_args import Opt
from relialint.readers.located import Span, Word


@lru_cache(maxsize=1)
def table() -> VllmTable | None:
    """SGLang's option table, or ``None`` where the data file is not there."""
    return flagcheck.table_of("sglang") if flagcheck.has_table("sglang") else None


def newest() -> Version | None:
    found = table()
    return found.parsed[-1] if found is not None else None


def takes_value(option: str) -> bool | None:
    """Whether an option string takes a value in the newest release that has it (``None``: no table says)."""
    found = table()
    info = found.option(option, None) if found is not None else None
    if info is None or info.kind == "?":
        return None
    return info.kind in ("v", "o")


def expand(option: str) -> str | None:
    """The long option a unique prefix stands for in some release (argparse's ``allow_abbrev``); ``None`` when the
    option is one itself or no single option starts with it."""
    found = table()
    if found is None or not option.startswith("--") or option in found.options:
        return None
    matches = [name for name in found.long_options(None) if name.startswith(option)]
    return matches[0] if len(matches) == 1 else None


def record_launch(deployment: Deployment, opts: list[Opt]) -> None:
    """Remembers the options as written, for the checks against the final version and the version worlds."""
    flagcheck.remember_written(deployment, [opt.flag for opt in opts if opt.flag.text is not None])


def written_options(deployment: Deployment) -> list[str]:
    """The options of the launch as written (``--tp-size``, ``--mem-fraction-static=0.8``)."""
    return flagcheck.written_options(deployment)


def option_spans(deployment: Deployment) -> list[tuple[str, Span]]:
    return flagcheck.option_spans(deployment)


def options_range(deployment: Deployment) -> tuple[str, Word, str] | None:
    """The releases the written options allow, as a PEP 440 range with the option that bounds it and why."""
    if table() is None:
        return None
    return flagcheck.options_window(flagcheck.written_words(deployment), "sglang")


def allowed_versions(options: Sequence[str], leave_out: str | None) -> list[Version]:
    """The tabled releases that accept every written option some release accepts, but ``leave_out``; every
    tabled release where those conflict."""
    found = table()
    if found is None:
        return []
    left = flagcheck.option_head(leave_out) if leave_out is not None else None
    real = [o for o in options if flagcheck.versions_accepting("sglang", [o])
            and (left is None or flagcheck.option_head(o) != left)]
    return flagcheck.versions_accepting("sglang", real) or list(found.parsed)


def finish(deployment: Deployment) -> None:
    """The option and variable checks against the final ``engine.version`` (``flagcheck.check_written``: RL550,
    RL551), then the defaults of that release."""
    if table() is not None:
        flagcheck.check_written(deployment, "sglang")
    version_defaults(deployment.facts)


def version_defaults(facts: Any) -> None:
    """SGLang's defaults by release (``sglang_defaults``)."""
    from relialint.engines import sglang_defaults

    sglang_defaults.version_defaults(facts)
