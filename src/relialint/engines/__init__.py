"""Engine models: recognise invocations in a file's commands and map them onto facts."""

from __future__ import annotations

from relialint.deployment import Deployment
from relialint.readers.located import FileResult


def extract(result: FileResult, read_file: FileOpener | None = None, limit: int | None = None) -> list[Deployment]:
    """Every deployment that the commands of one file launch, in file order; with ``limit``, each engine stops
    after that many (enough to know that a file has more than its caller lints)."""
    from relialint.engines import bench, vllm
    from relialint.engines.common import may_launch_llama

    found: list[Deployment] = []
    found.extend(vllm.extract(result, read_file, limit))
    if may_launch_llama(result):
        from relialint.engines import llamacpp

        found.extend(llamacpp.extract(result, read_file, limit))
    found.extend(bench.extract(result, read_file, limit))
    found.sort(key=lambda d: (d.span.line, d.span.column, d.engine))
    return found


from relialint.engines.common import FileOpener  # noqa: E402
