"""vLLM behind the Engine protocol (``engines.protocol``): its extract, version scheme, defaults by version and
option tables, from the modules that hold them (``vllm``, ``vllm_defaults``, ``flagcheck``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from relialint.core.deployment import Deployment
from relialint.core.results import VERSION_DEFAULTED
from relialint.core.versions import Version, VersionError, parse_version
from relialint.readers.located import FileResult, Span

if TYPE_CHECKING:
    from relialint.core.evaluate import FactView
    from relialint.core.facts import Fact, FactSet
    from relialint.engines.common import FileOpener
    from relialint.engines.fixedit import FixValue, TextEdit
    from relialint.engines.releases import ReleaseDelta

_VARYING = VERSION_DEFAULTED | {"engine.version"}


class VllmEngine:
    """vLLM (``vllm serve``, its OpenAI api_server module, its images)."""

    name = "vllm"
    label = "vLLM"
    repository: str | None = "vllm-project/vllm"
    scheme = "pep440"
    takes_version = True
    shares_gpu_memory = True
    default_launch = 'vllm serve "$MODEL"'
    backends: tuple[str, ...] = ()
    gpu_conditions: tuple[Mapping[str, Any], ...] = ()  # set in __init__ from vllm_defaults
    gpu_bounds: tuple[Version, ...] = ()
    gpu_dependent: frozenset[str] = frozenset()
    gpu_reads: tuple[str, ...] = ()

    def __init__(self) -> None:
        from relialint.engines import vllm_defaults

        self.gpu_conditions = vllm_defaults.GPU_CONDITIONS
        self.gpu_bounds = vllm_defaults.GPU_BOUNDS
        self.gpu_dependent = vllm_defaults.GPU_DEPENDENT
        self.gpu_reads = vllm_defaults.GPU_READS

    def gpu_defaults(self, facts: FactView) -> Mapping[str, Fact | None]:
        from relialint.engines.vllm_defaults import gpu_defaults

        return gpu_defaults(facts)

    def may_launch(self, result: FileResult) -> bool:
        return True  # an image, an entrypoint, a config file: no cheap test rules vLLM out

    def extract(self, result: FileResult, read_file: FileOpener | None, limit: int | None) -> list[Deployment]:
        from relialint.engines import vllm

        return vllm.extract(result, read_file, limit)

    def parse_version(self, text: str) -> Version:
        version = parse_version(text)
        if version.scheme != "pep440":
            raise VersionError(f"vLLM versions are PEP 440 like 0.30.0, not {text!r}")
        return version

    def own_version(self, version: Version) -> Version | None:
        return version if version.scheme == "pep440" else None

    def finish(self, deployment: Deployment) -> None:
        from relialint.engines import vllm

        vllm.apply_defaults(deployment)

    def tabled_versions(self) -> Sequence[Version]:
        from relialint.engines import flagcheck

        return flagcheck.vllm_table().parsed

    def option_env(self, key: str) -> list[str]:
        from relialint.engines.vllm_defaults import ROWS, FromEnv

        return list(dict.fromkeys(row.value.key.removeprefix("env.") for row in ROWS
                                  if row.fact == key and isinstance(row.value, FromEnv)))

    def choice_points(self) -> Sequence[Version]:
        return self.tabled_versions()

    def allowed_versions(self, facts: FactView, options: Sequence[str], leave_out: str | None) -> list[Version]:
        """The tabled releases that accept every written option some release accepts (but ``leave_out``, by the
        option string the parser looks up) and every value written (``flagcheck.VALUE_SINCE``), and that can run
        the model (``model_families.engine_floor`` / ``engine_ceiling``: a family or drafter identified with
        certainty needs a release from the first that registers its architecture, and up to the last when a later
        one removed it; the reason is in the ``model.family`` / ``spec_decode.method`` facts' notes). Constraints
        that no tabled release meets together narrow nothing."""
        from relialint.engines import flagcheck, model_families

        left = flagcheck.option_head(leave_out) if leave_out is not None else None
        real = [o for o in options if flagcheck.versions_accepting(self.name, [o])
                and (left is None or flagcheck.option_head(o) != left)]
        allowed = flagcheck.versions_accepting(self.name, real) or list(flagcheck.vllm_table().parsed)
        floor = flagcheck.value_floor(facts, left)
        if floor is not None:  # a value only later releases accept (an MTP speculative method from 0.11.0)
            allowed = [v for v in allowed if not v < floor] or allowed
        model_floor = model_families.engine_floor(facts, self.name)
        if model_floor is not None:  # gpt-oss from 0.10.1: older releases do not know GptOssForCausalLM
            since = self.parse_version(model_floor)
            allowed = [v for v in allowed if not v < since] or allowed
        model_ceiling = model_families.engine_ceiling(facts, self.name)
        if model_ceiling is not None:  # MiniMax-M1 until 0.23.0: later releases no longer register it
            until = self.parse_version(model_ceiling)
            allowed = [v for v in allowed if not until < v] or allowed
        return allowed

    def version_class(self, version: Version) -> tuple[object, ...]:
        from relialint.engines.vllm_defaults import version_class

        return version_class(version)

    def version_defaults(self, facts: FactSet) -> None:
        from relialint.engines.vllm_defaults import version_defaults

        version_defaults(facts)

    def varying(self) -> frozenset[str]:
        return _VARYING

    def written_options(self, deployment: Deployment) -> list[str]:
        from relialint.engines import flagcheck

        return flagcheck.written_options(deployment)

    def fill_settings(self, message: str, deployment: Deployment) -> str:
        from relialint.engines import fixedit, vllm

        return fixedit.fill_settings(message, deployment, vllm.setting_text)

    def fix_edits(self, result: FileResult, deployment: Deployment, fix_set: Mapping[str, FixValue]
                  ) -> list[TextEdit] | None:
        from relialint.engines import vllm

        return vllm.fix_edits(result, deployment, fix_set)

    def release_delta(self, old: Version, new: Version) -> ReleaseDelta:
        """What vLLM's tables say changes from ``old`` to ``new`` (``engines.releases``)."""
        from relialint.engines import vllm_releases

        return vllm_releases.release_delta(old, new)

    def releases(self) -> tuple[Version, ...]:
        from relialint.engines import vllm_releases

        return vllm_releases.releases()

    def latest(self) -> Version:
        return self.releases()[-1]

    def option_source(self, version: Version) -> str | None:
        """Where upstream the release declares its options (``engines.releases.ReleaseSources``)."""
        from relialint.engines import vllm_releases

        return vllm_releases.option_source(version)

    def env_source(self, name: str, version: Version) -> str | None:
        from relialint.engines import vllm_releases

        return vllm_releases.env_source(name, version)

    def option_spans(self, deployment: Deployment) -> list[tuple[str, Span]]:
        """The written options with the place of their word on the command line."""
        from relialint.engines import flagcheck

        return flagcheck.option_spans(deployment)

    def option_name(self, written: str) -> str | None:
        from relialint.engines import flagcheck

        return flagcheck.option_head(written)

    def option_flags(self, key: str) -> list[str]:
        from relialint.engines.vllm import OPTION_FACTS

        if key.startswith("flag.vllm."):
            return ["--" + key[len("flag.vllm."):]]
        return [f"--{flag}" for flag, facts in OPTION_FACTS.items() if key in facts and flag != "model"]
