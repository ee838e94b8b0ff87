"""SGLang's option tables by release (``data/sglang_flags.json``, the format of ``vllm_flags.json``) as the parser
and the checks read them: whether an option takes a value, the option a unique prefix stands for, the options a
launch writes (they narrow the version worlds)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from relialint.core.deployment import Deployment
from relialint.core.versions import Version
from relialint.engines.flagcheck import DATA, VllmTable
from relialint.engines.sglang_args import Opt
from relialint.readers.located import Span, Word

_WRITTEN = "_relialint_sglang_written"


@lru_cache(maxsize=1)
def table() -> VllmTable | None:
    """SGLang's option table, or ``None`` where the data file is not there."""
    import json

    path = DATA / "sglang_flags.json"
    if not path.is_file():
        return None
    return VllmTable(json.loads(path.read_text(encoding="utf-8")))


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


def record_launch(deployment: Deployment, form: str, opts: list[Opt]) -> None:
    """Remembers the options as written, for the checks against the final version."""
    del form
    setattr(deployment, _WRITTEN, [opt.flag for opt in opts if opt.flag.text is not None])


def written_words(deployment: Deployment) -> list[Word]:
    return list(getattr(deployment, _WRITTEN, []))


def written_options(deployment: Deployment) -> list[str]:
    """The options of the launch as written (``--tp-size``, ``--mem-fraction-static=0.8``)."""
    return [str(word.text) for word in written_words(deployment)]


def option_spans(deployment: Deployment) -> list[tuple[str, Span]]:
    return [(str(word.text), word.span) for word in written_words(deployment)]


def finish(deployment: Deployment) -> None:
    """The checks and defaults that need the final ``engine.version``."""
    version_defaults(deployment.facts)


def version_defaults(facts: Any) -> None:
    """SGLang's defaults (none yet tabled by release)."""
    del facts
