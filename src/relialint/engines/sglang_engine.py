"""SGLang behind the Engine protocol (``engines.protocol``): its launches (``sglang``), its parser and tables by
release (``sglang_args``, ``sglang_checks``). The modules are imported on first use: a file that names no SGLang
launch never loads them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from relialint.core.deployment import Deployment
from relialint.core.versions import Version, VersionError, parse_version
from relialint.core.worlds import NoGpuDefaults
from relialint.readers.located import FileResult, Span

if TYPE_CHECKING:
    from relialint.core.evaluate import FactView
    from relialint.core.facts import FactSet
    from relialint.engines.common import FileOpener
    from relialint.engines.fixedit import FixValue, TextEdit
    from relialint.engines.releases import ReleaseDelta

_VARYING = frozenset({"engine.version", "prefix_caching.enabled", "cuda_graphs.enabled", "torch_compile.enabled",
                      "chunked_prefill.enabled", "spec_decode.enabled", "spec_decode.method", "sglang.dp_attention",
                      "parallel.tensor", "parallel.data", "parallel.expert", "limits.max_num_seqs",
                      "kv_cache.dtype"})
"""The facts a version world may change: the version and the defaults of ``sglang_defaults``."""


class SglangEngine(NoGpuDefaults):
    """SGLang (``python -m sglang.launch_server``, ``sglang serve``, its router with workers, ``lmsysorg/sglang``
    images)."""

    name = "sglang"
    label = "SGLang"
    repository: str | None = "sgl-project/sglang"
    scheme = "pep440"
    takes_version = True
    shares_gpu_memory = True
    default_launch = 'python -m sglang.launch_server --model-path "$MODEL"'
    backends: tuple[str, ...] = ()

    def may_launch(self, result: FileResult) -> bool:
        """Every launch form names SGLang (the module, the program, the image)."""
        return "sglang" in result.text.lower()

    def extract(self, result: FileResult, read_file: FileOpener | None, limit: int | None) -> list[Deployment]:
        from relialint.engines import sglang

        return sglang.extract(result, read_file, limit)

    def parse_version(self, text: str) -> Version:
        version = parse_version(text)
        if version.scheme != "pep440":
            raise VersionError(f"SGLang versions are PEP 440 like 0.4.6.post1, not {text!r}")
        return version

    def own_version(self, version: Version) -> Version | None:
        return version if version.scheme == "pep440" else None

    def finish(self, deployment: Deployment) -> None:
        from relialint.engines import sglang_checks

        sglang_checks.finish(deployment)

    def tabled_versions(self) -> Sequence[Version]:
        from relialint.engines import sglang_checks

        found = sglang_checks.table()
        return found.parsed if found is not None else ()

    def option_env(self, key: str) -> list[str]:
        return []

    def choice_points(self) -> Sequence[Version]:
        return self.tabled_versions()

    def allowed_versions(self, facts: FactView, options: Sequence[str], leave_out: str | None) -> list[Version]:
        """The tabled releases that accept every written option (but ``leave_out``) that some release accepts (a
        release that refuses one would not start)."""
        from relialint.engines import sglang, sglang_checks

        allowed = sglang_checks.allowed_versions(options, leave_out)
        form = facts.get("sglang.launch_form")
        if form is not None and form.value == "serve":  # the `sglang` console script is 0.5.5 and newer
            since = self.parse_version(sglang.SERVE_SINCE)
            allowed = [v for v in allowed if not v < since] or allowed
        return allowed

    def version_class(self, version: Version) -> tuple[object, ...]:
        from relialint.engines.sglang_defaults import version_class

        return version_class(version)

    def version_defaults(self, facts: FactSet) -> None:
        from relialint.engines import sglang_checks

        sglang_checks.version_defaults(facts)

    def varying(self) -> frozenset[str]:
        return _VARYING

    def written_options(self, deployment: Deployment) -> list[str]:
        from relialint.engines import sglang_checks

        return sglang_checks.written_options(deployment)

    def fill_settings(self, message: str, deployment: Deployment) -> str:
        from relialint.engines import fixedit, sglang_fixes

        return fixedit.fill_settings(message, deployment, sglang_fixes.setting_text)

    def fix_edits(self, result: FileResult, deployment: Deployment, fix_set: Mapping[str, FixValue]
                  ) -> list[TextEdit] | None:
        from relialint.engines import sglang_fixes

        return sglang_fixes.fix_edits(result, deployment, fix_set)

    def release_delta(self, old: Version, new: Version) -> ReleaseDelta:
        """What SGLang's tables say changes from ``old`` to ``new`` (``engines.releases``)."""
        from relialint.engines import sglang_releases

        return sglang_releases.release_delta(old, new)

    def releases(self) -> tuple[Version, ...]:
        from relialint.engines import sglang_releases

        return sglang_releases.releases()

    def latest(self) -> Version:
        return self.releases()[-1]

    def option_spans(self, deployment: Deployment) -> list[tuple[str, Span]]:
        from relialint.engines import sglang_checks

        return sglang_checks.option_spans(deployment)

    def option_name(self, written: str) -> str | None:
        from relialint.engines import flagcheck

        return flagcheck.option_head(written)

    def option_flags(self, key: str) -> list[str]:
        from relialint.engines.sglang import OPTION_FACTS

        if key.startswith("flag.sglang."):
            return ["--" + key[len("flag.sglang."):]]
        return [f"--{flag}" for flag, facts in OPTION_FACTS.items() if key in facts]
