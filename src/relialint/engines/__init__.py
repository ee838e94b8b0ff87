"""Engine models: recognise invocations in a file's commands and map them onto facts. Each engine is an object of
the Engine protocol (``engines.protocol``), listed by a ``Registry`` (``engines.registry``)."""

from __future__ import annotations

from relialint.core.deployment import Deployment
from relialint.readers.located import FileResult


def extract(result: FileResult, read_file: FileOpener | None = None, limit: int | None = None) -> list[Deployment]:
    """Every deployment that the commands of one file launch with the engines relialint ships, in file order; with
    ``limit``, each engine stops after that many (``Registry.extract`` of ``default_registry()``)."""
    from relialint.engines.registry import default_registry

    return default_registry().extract(result, read_file, limit)


from relialint.engines.common import FileOpener  # noqa: E402
