"""llama.cpp behind the Engine protocol (``engines.protocol``): its launches, its versions (builds ``b6327`` and
releases ``v0.3.0``), its defaults, and its build worlds. The modules that hold them (``llamacpp``,
``llamacpp_flags``) are imported on first use: a file without a llama.cpp launch never loads the option tables.

**Build worlds.** One world per option table (``data/llamacpp_flags.json``: 16 builds from b4579, January 2025, to
b11312), labelled by its build text (``b4579``; ``@4227c9be4`` for a table known only within a bracket of builds),
narrowed by the options the deployment writes (a build that refuses one would not start;
:meth:`~relialint.engines.llamacpp_flags.LlamaTable.narrow`, leaving out the option an instance is about) and by a
stated build or release (:meth:`~relialint.engines.llamacpp_flags.LlamaTable.build_worlds`); beside them the
worlds adds the builds older than the first table and newer than the last, where what the tables decide is
unknown. The facts derived per build world are whether the build refuses a word (``llama.option_refused``,
``llama.value_refused``, ``llama.stray_word_refused``), one per located instance (``llama.unknown_option``,
``llama.bad_value``, ``llama.stray_word``; :func:`relialint.engines.llamacpp.check_options`), so that
``worlds.judge`` decides definite / possible and writes the "holds on llama.cpp b4579-b9874" note.

``engine.version`` is not among the keys a build world changes (:meth:`LlamaCppEngine.varying`): three tables are
known only within a bracket of build numbers (``@4227c9be4``: b6111-b8501), which a record's build threshold
(RL506's b8502, RL320's) cannot be compared with; those records decide from the stated build and from
``llama.flash_attn_takes_value``, which the option tables of every build the version allows decide. A model
family that sets a floor (``model_families``) makes an unstated ``engine.version`` "newer than" the build before
it (``llamacpp.model_floor``), which the records' ranges compare with. llama.cpp's defaults do not depend on the
build: one defaults class.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from relialint.core.deployment import Deployment
from relialint.core.versions import Version, VersionError, llamacpp_release, parse_version
from relialint.core.worlds import NoGpuDefaults
from relialint.readers.located import FileResult, Span

if TYPE_CHECKING:
    from relialint.core.evaluate import FactView
    from relialint.core.facts import FactSet
    from relialint.engines.common import FileOpener
    from relialint.engines.fixedit import FixValue, TextEdit
    from relialint.engines.releases import ReleaseDelta


class LlamaCppEngine(NoGpuDefaults):
    """llama.cpp's ``llama-server`` (its program, images and ``LLAMA_ARG_*`` variables)."""

    name = "llama.cpp"
    label = "llama.cpp"
    repository: str | None = "ggml-org/llama.cpp"
    scheme = "build"
    takes_version = True
    shares_gpu_memory = False
    default_launch = 'llama-server -m "$MODEL"'
    # the GGML backends a build is made with (docs/build.md upstream: GGML_CUDA, GGML_HIP, GGML_VULKAN, GGML_METAL,
    # GGML_SYCL; none of them: the CPU build)
    backends: tuple[str, ...] = ("cuda", "hip", "vulkan", "metal", "sycl", "cpu")

    def may_launch(self, result: FileResult) -> bool:
        from relialint.engines.common import may_launch_llama

        return may_launch_llama(result)

    def extract(self, result: FileResult, read_file: FileOpener | None, limit: int | None) -> list[Deployment]:
        from relialint.engines import llamacpp

        return llamacpp.extract(result, read_file, limit)

    def parse_version(self, text: str) -> Version:
        """A build (``b6327``) or a release (``v0.3.0``, ``0.3.0``); ``VersionError`` for anything else."""
        release = llamacpp_release(text)
        if release is not None:
            return release
        version = parse_version(text)
        if version.scheme != "build":
            raise VersionError(f"llama.cpp versions are builds like b6327 or releases like v0.3.0, not {text!r}")
        return version

    def own_version(self, version: Version) -> Version | None:
        """A build or a release as it is; a version parsed without an engine (``0.3.0``, PEP 440 until a llama.cpp
        deployment takes it) as a release; ``None`` for anything else."""
        if version.scheme in ("build", "release"):
            return version
        return llamacpp_release(version.text)

    def finish(self, deployment: Deployment) -> None:
        from relialint.engines import llamacpp

        llamacpp.apply_defaults(deployment)

    # -- build worlds ---------------------------------------------------------------------------------------------

    def tabled_versions(self) -> Sequence[Version]:
        """Each option table as a version, oldest first, labelled by its build text."""
        from relialint.engines import llamacpp_flags

        return llamacpp_flags.table().versions()

    def option_env(self, key: str) -> list[str]:
        return []  # its variables are read as options (``LLAMA_ARG_*``), not tabled per fact

    def choice_points(self) -> Sequence[Version]:
        from relialint.engines import llamacpp_flags

        return [parse_version(f"b{int(b['build'][0])}") for b in llamacpp_flags.table().builds
                if b["build"][0] == b["build"][1]]

    def allowed_versions(self, facts: FactView, options: Sequence[str], leave_out: str | None) -> list[Version]:
        """The tables that accept every written option (but ``leave_out``) that some table has, and that can run the
        model: a table whose build is certainly older than the first that can have the model's architecture
        (``model_families.engine_floor``, a family identified with certainty) is no world, and a table known
        only within a bracket of builds stays one unless the whole bracket is older. A build that accepts one
        option accepts those introduced before it: each table is one build, so the tables that accept every
        written option are the intersection, and a bracket straddling the floor is kept. The option values the
        tables check are findings of their own (RL521)."""
        from relialint.engines import llamacpp_flags, model_families

        table = llamacpp_flags.table()
        versions = table.versions()
        indices = table.narrow(list(options), leave_out)
        model_floor = model_families.engine_floor(facts, self.name)
        if model_floor is not None:
            low = int(model_floor.lstrip("b"))
            indices = [i for i in indices if table.brackets[i][1] >= low] or indices
        return [versions[i] for i in indices]

    def version_class(self, version: Version) -> tuple[object, ...]:
        """One class: llama-server's defaults are the same in every tabled build."""
        del version
        return ()

    def version_defaults(self, facts: FactSet) -> None:
        from relialint.engines import llamacpp

        llamacpp.version_defaults(facts)

    def varying(self) -> frozenset[str]:
        """Only the facts derived per build world (the worlds add them) differ between build worlds (module
        docstring: why not ``engine.version``)."""
        return frozenset()

    def written_options(self, deployment: Deployment) -> list[str]:
        from relialint.engines import llamacpp

        return llamacpp.written_options(deployment)

    def fill_settings(self, message: str, deployment: Deployment) -> str:
        from relialint.engines import fixedit

        return fixedit.fill_settings(message, deployment)

    def fix_edits(self, result: FileResult, deployment: Deployment, fix_set: Mapping[str, FixValue]
                  ) -> list[TextEdit] | None:
        return None  # no quick fix spells llama.cpp's settings yet

    def release_delta(self, old: Version, new: Version) -> ReleaseDelta:
        """What llama.cpp's build tables say changes from ``old`` to ``new`` (``engines.releases``)."""
        from relialint.engines import llamacpp_releases

        return llamacpp_releases.release_delta(old, new)

    def releases(self) -> tuple[Version, ...]:
        """The builds a table is exactly (a table known only within a bracket of builds is none)."""
        from relialint.engines import llamacpp_releases

        return llamacpp_releases.releases()

    def latest(self) -> Version:
        return self.releases()[-1]

    def option_source(self, version: Version) -> str | None:
        """Where upstream the release declares its options (``engines.releases.ReleaseSources``)."""
        from relialint.engines import llamacpp_releases

        return llamacpp_releases.option_source(version)

    def env_source(self, name: str, version: Version) -> str | None:
        from relialint.engines import llamacpp_releases

        return llamacpp_releases.env_source(name, version)

    def option_spans(self, deployment: Deployment) -> list[tuple[str, Span]]:
        """The written options with the place of their word on llama-server's command line."""
        from relialint.engines import llamacpp

        return llamacpp.option_spans(deployment)

    def option_name(self, written: str) -> str | None:
        from relialint.engines import llamacpp_flags

        return llamacpp_flags.spelling(written)

    def option_flags(self, key: str) -> list[str]:
        from relialint.engines.llamacpp import FACTS

        if key.startswith("flag.llama.cpp."):
            return [key[len("flag.llama.cpp."):]]
        return [f"--{flag}" for flag, (fact, _kind) in FACTS.items() if fact == key]
