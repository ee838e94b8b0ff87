"""Engine models: recognise invocations in a file's commands and map them onto facts."""

from __future__ import annotations

from relialint.deployment import Deployment
from relialint.readers.located import FileResult


def extract(result: FileResult, read_file: FileOpener | None = None) -> list[Deployment]:
    """Every deployment that the commands of one file launch, in file order."""
    from relialint.engines import bench, llamacpp, vllm

    found: list[Deployment] = []
    for module in (vllm, llamacpp, bench):
        found.extend(module.extract(result, read_file))
    found.sort(key=lambda d: (d.span.line, d.span.column, d.engine))
    return found


from relialint.engines.common import FileOpener  # noqa: E402
