"""llama.cpp behind the Engine protocol (``engines.protocol``): its extract, version scheme (builds ``b6327`` and
releases ``v0.3.0``) and defaults. No version worlds yet: its build uncertainty is the ``llama.*_certain`` facts
of ``llamacpp_flags`` until its builds become worlds (the engine-llama branch replaces this module)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from relialint.deployment import Deployment
from relialint.readers.located import FileResult
from relialint.versions import Version, VersionError, llamacpp_release, parse_version

if TYPE_CHECKING:
    from relialint.engines.common import FileOpener
    from relialint.evaluate import FactView
    from relialint.facts import FactSet


class LlamaCppEngine:
    """llama.cpp's ``llama-server`` (its program, images and ``LLAMA_ARG_*`` variables)."""

    name = "llama.cpp"
    label = "llama.cpp"
    scheme = "build"
    takes_version = True
    shares_gpu_memory = False

    def may_launch(self, result: FileResult) -> bool:
        from relialint.engines.common import may_launch_llama

        return may_launch_llama(result)

    def extract(self, result: FileResult, read_file: FileOpener | None, limit: int | None) -> list[Deployment]:
        from relialint.engines import llamacpp

        return llamacpp.extract(result, read_file, limit)

    def parse_version(self, text: str) -> Version:
        release = llamacpp_release(text)
        if release is not None:
            return release
        version = parse_version(text)
        if version.scheme != "build":
            raise VersionError(f"llama.cpp versions are builds like b6327 or releases like v0.3.0, not {text!r}")
        return version

    def own_version(self, version: Version) -> Version | None:
        if version.scheme in ("build", "release"):
            return version
        return llamacpp_release(version.text)

    def finish(self, deployment: Deployment) -> None:
        from relialint.engines import llamacpp

        llamacpp.apply_defaults(deployment)

    def tabled_versions(self) -> Sequence[Version]:
        return ()  # no build worlds yet

    def choice_points(self) -> Sequence[Version]:
        from relialint.engines import llamacpp_flags

        return [parse_version(f"b{int(b['build'][0])}") for b in llamacpp_flags.table().builds
                if b["build"][0] == b["build"][1]]

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

    def option_flags(self, key: str) -> list[str]:
        from relialint.engines.llamacpp import FACTS

        if key.startswith("flag.llama.cpp."):
            return [key[len("flag.llama.cpp."):]]
        return [f"--{flag}" for flag, (fact, _kind) in FACTS.items() if fact == key]
