"""The engines relialint knows, by name: the one place that lists them.

Everything outside ``engines/`` asks a :class:`Registry` (``default_registry()``, or one a caller or a test builds
with an engine of its own) instead of naming an engine."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import TYPE_CHECKING

from relialint.core.deployment import Deployment
from relialint.readers.located import FileResult

if TYPE_CHECKING:
    from relialint.engines.common import FileOpener
    from relialint.engines.protocol import Engine


class Registry:
    """Engines by name, in the order they are tried (which also orders deployments found at the same place)."""

    def __init__(self, engines: Iterable[Engine]) -> None:
        self._engines: tuple[Engine, ...] = tuple(engines)
        self._by_name = {engine.name: engine for engine in self._engines}
        if len(self._by_name) != len(self._engines):
            raise ValueError("two engines of one registry share a name")

    def __iter__(self) -> Iterator[Engine]:
        return iter(self._engines)

    def get(self, name: str) -> Engine | None:
        """The engine of that name (``engine.name``), or ``None``."""
        return self._by_name.get(name)

    def names(self) -> tuple[str, ...]:
        return tuple(engine.name for engine in self._engines)

    def versioned(self) -> tuple[Engine, ...]:
        """The engines whose deployments have versions (a record's ``engines:`` names one of these)."""
        return tuple(engine for engine in self._engines if engine.takes_version)

    def label(self, name: str) -> str:
        """The engine's name in prose (``vLLM``); an unknown name as it is."""
        engine = self._by_name.get(name)
        return engine.label if engine is not None else name

    def repository(self, name: str) -> str | None:
        """The engine's GitHub repository (``owner/name``), or ``None`` (an unknown engine, a tool with none)."""
        engine = self._by_name.get(name)
        return engine.repository if engine is not None else None

    def with_engine(self, engine: Engine) -> Registry:
        """This registry and one more engine (tried last)."""
        return Registry((*self._engines, engine))

    def extract(self, result: FileResult, read_file: FileOpener | None = None, limit: int | None = None
                ) -> list[Deployment]:
        """Every deployment that the commands of one file launch, in file order; with ``limit``, each engine stops
        after that many (enough to know that a file has more than its caller lints)."""
        found: list[Deployment] = []
        for engine in self._engines:
            if engine.may_launch(result):
                found.extend(engine.extract(result, read_file, limit))
        found.sort(key=lambda d: (d.span.line, d.span.column, d.engine))
        return found


@lru_cache(maxsize=1)
def default_registry() -> Registry:
    """The engines relialint ships: vLLM, llama.cpp, SGLang and the benchmark tools (built once, never changed)."""
    from relialint.engines.bench_engine import BenchEngine
    from relialint.engines.llamacpp_engine import LlamaCppEngine
    from relialint.engines.sglang_engine import SglangEngine
    from relialint.engines.vllm_engine import VllmEngine

    return Registry((VllmEngine(), LlamaCppEngine(), SglangEngine(), BenchEngine()))
