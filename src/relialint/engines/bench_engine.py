"""The benchmark tools (``vllm bench serve``, ``llama-bench``, ``guidellm``, ...) behind the Engine protocol: they
have ``bench.*`` facts but no versions, defaults or option tables of their own."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from relialint.core.deployment import Deployment
from relialint.core.versions import Version, VersionError
from relialint.core.worlds import NoGpuDefaults
from relialint.readers.located import FileResult

if TYPE_CHECKING:
    from relialint.core.evaluate import FactView
    from relialint.core.facts import FactSet
    from relialint.engines.common import FileOpener
    from relialint.engines.fixedit import FixValue, TextEdit


class BenchEngine(NoGpuDefaults):
    """Benchmark runs, as deployments with ``bench.*`` facts (``engine.name`` ``bench``)."""

    name = "bench"
    label = "a benchmark"
    repository: str | None = None
    scheme = "none"
    takes_version = False
    shares_gpu_memory = False
    default_launch = ""  # a benchmark serves nothing
    backends: tuple[str, ...] = ()

    def may_launch(self, result: FileResult) -> bool:
        return True

    def extract(self, result: FileResult, read_file: FileOpener | None, limit: int | None) -> list[Deployment]:
        from relialint.engines import bench

        return bench.extract(result, read_file, limit)

    def parse_version(self, text: str) -> Version:
        raise VersionError(f"benchmark runs have no engine version: {text!r}")

    def own_version(self, version: Version) -> Version | None:
        return None

    def finish(self, deployment: Deployment) -> None:
        return None

    def tabled_versions(self) -> Sequence[Version]:
        return ()

    def option_env(self, key: str) -> list[str]:
        return []

    def choice_points(self) -> Sequence[Version]:
        return ()

    def allowed_versions(self, facts: FactView, options: Sequence[str], leave_out: str | None) -> list[Version]:
        return []

    def version_class(self, version: Version) -> tuple[object, ...]:
        return (version,)

    def version_defaults(self, facts: FactSet) -> None:
        return None

    def varying(self) -> frozenset[str]:
        return frozenset({"engine.version"})

    def written_options(self, deployment: Deployment) -> list[str]:
        return []

    def fill_settings(self, message: str, deployment: Deployment) -> str:
        from relialint.engines import fixedit

        return fixedit.fill_settings(message, deployment)

    def fix_edits(self, result: FileResult, deployment: Deployment, fix_set: Mapping[str, FixValue]
                  ) -> list[TextEdit] | None:
        return None  # a benchmark tool's command is not fixed by records

    def option_flags(self, key: str) -> list[str]:
        return []
