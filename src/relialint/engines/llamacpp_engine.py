"""llama.cpp behind the Engine protocol (``engines/protocol.py``): its launches, its versions (builds ``bNNNN`` and
releases ``vX.Y.Z``), its defaults, and its build worlds.

**Build worlds.** One world per option table (``data/llamacpp_flags.json``: 16 builds from b4579, January 2025, to
b11312), labelled by its build text (``b4579``, ``@4227c9be4`` for a table known only within a bracket of builds),
narrowed by the options the deployment writes (a build that refuses one would not start: :meth:`LlamaTable.narrow`)
and by a stated build or release (:meth:`LlamaTable.build_worlds`); beside them the builds older than the first
table and newer than the last, where what the tables decide is unknown. The facts derived per build world are
whether the build refuses a word of the command line (``llama.option_refused``, ``llama.value_refused``,
``llama.stray_word_refused``), one per located instance (``llama.unknown_option``, ``llama.bad_value``,
``llama.stray_word``): :func:`relialint.engines.llamacpp.check_options` publishes them, and ``worlds.judge`` decides
definite / possible and writes the "holds on llama.cpp b4579-b9874" note.

``engine.version`` is not among the keys a build world changes (:meth:`LlamaCppEngine.varying`): three tables are
known only within a bracket of build numbers (b6111-b8501 ...), so a record's build thresholds (RL506's b8502)
cannot be compared with every world's build; those records decide from the stated build, and from
``llama.flash_attn_takes_value``, which the option tables of every build the version allows decide.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from relialint.deployment import Deployment
from relialint.engines import llamacpp, llamacpp_flags
from relialint.engines.common import FileOpener, may_launch_llama
from relialint.facts import FactSet
from relialint.readers.located import FileResult
from relialint.versions import Version, llamacpp_release, parse_engine_version


class LlamaCppEngine:
    """llama.cpp (llama-server and its siblings) as an Engine."""

    name = "llama.cpp"
    label = "llama.cpp"
    scheme = "build"
    takes_version = True

    def may_launch(self, result: FileResult) -> bool:
        return may_launch_llama(result)

    def extract(self, result: FileResult, read_file: FileOpener | None, limit: int | None) -> list[Deployment]:
        return llamacpp.extract(result, read_file, limit)

    def parse_version(self, text: str) -> Version:
        """A build (``b6327``) or a release (``v0.3.0``, ``0.3.0``); ``VersionError`` for anything else."""
        return parse_engine_version(self.name, text)

    def own_version(self, version: Version) -> Version | None:
        """A build or a release as it is; a version parsed without an engine (``0.3.0``, PEP 440 until a llama.cpp
        deployment takes it) as a release; ``None`` for anything else."""
        if version.scheme in ("build", "release"):
            return version
        return llamacpp_release(version.text)

    def finish(self, deployment: Deployment) -> None:
        llamacpp.apply_defaults(deployment)

    # -- build worlds -------------------------------------------------------------------------------------------

    def tabled_versions(self) -> Sequence[Version]:
        return llamacpp_flags.table().versions()

    def allowed_versions(self, facts: object, options: Sequence[str], leave_out: str | None) -> list[Version]:
        """The tables that accept the written ``options`` (but ``leave_out``); ``facts`` narrows nothing more
        (no llama.cpp value is only accepted from some build on in a way the tables do not already say)."""
        del facts
        t = llamacpp_flags.table()
        versions = t.versions()
        return [versions[i] for i in t.narrow(list(options), leave_out)]

    def version_class(self, version: Version) -> tuple[object, ...]:
        """One class: llama.cpp's defaults do not depend on the build (:func:`llamacpp.version_defaults`)."""
        del version
        return ()

    def version_defaults(self, facts: FactSet) -> None:
        llamacpp.version_defaults(facts)

    def varying(self) -> frozenset[str]:
        """No fact but the derived ones (added by the worlds) changes between build worlds (module docstring)."""
        return frozenset()

    def written_options(self, deployment: Deployment) -> list[str]:
        return llamacpp.written_options(deployment)


@lru_cache(maxsize=1)
def engine() -> LlamaCppEngine:
    return LlamaCppEngine()
