"""The Engine protocol: everything the linter knows about one serving engine, behind one object.

An engine (vLLM, llama.cpp, a benchmark tool, a test's toy) is an object with the attributes and methods below; the
rest of relialint asks a :class:`~relialint.engines.registry.Registry` for it by name (the ``engine.name`` fact
value, the ``engines:`` entry of a record) and never names an engine itself. The core (facts, versions, evaluate,
worlds, findings) does not import ``engines/``: it receives the engine object and types it by the smaller
protocols it declares (:class:`relialint.core.worlds.WorldsEngine`,
:class:`relialint.core.findings.FindingsEngine`), which this one extends.

**Version worlds.** An engine that tables its versions supplies them through

* ``tabled_versions()``: every released version its option tables describe, oldest first (empty: the engine has
  no version worlds, e.g. a benchmark tool); each world's label is the version's text;
* ``allowed_versions(facts, options, leave_out)``: the tabled versions a deployment can run, given the options it
  writes (a version that refuses one would not start) and any value only later versions accept; ``leave_out`` is
  the option an instance of a finding is about, which must not narrow its own worlds (leave-one-out);
* ``version_class(version)``: versions of one class get the same defaults (the class key must change wherever a
  default changes, or two versions with different defaults would share one world);
* ``version_defaults(facts)``: applies the defaults of the version ``facts["engine.version"]`` to a fact set (the
  worlds call it once per class, on the facts the deployment writes);
* ``varying()``: every fact key a version world may change (the version, the defaults; the derived facts below are
  added by the worlds themselves).

The worlds add one world older and one newer than the tables where the options and the stated range allow them;
there, every version-derived fact is unknown.

**Facts derived per version world.** A fact that holds in some versions and not in others, for one located
instance (option ``--foo`` is refused, variable ``VLLM_X`` is not read), is not decided by the engine: the engine
publishes the located instance fact (``args.unknown_option``, value = the text of the problem, located at its
word) and, beside it, a per-world boolean declared in the vocabulary as ``per_version`` (``args.option_refused``),
with :meth:`relialint.core.facts.FactSet.add_instance`'s ``by_version``: a
:class:`relialint.core.facts.ByVersion` listing
the tabled versions in which the boolean holds (it is false in the other tabled versions and unknown in the worlds
beyond the tables) and the written option to leave out of the narrowing. When the version is known the engine sets
the boolean directly (true for a tabled version; unknown for one outside the tables). The worlds then decide
definite / possible and write the "holds on vLLM 0.6.6-0.8.2" note like for every other record.

**Release delta.** An engine whose tables describe its releases also implements
:class:`relialint.engines.releases.ReleaseTables` (what changes between two of its versions: options, variables,
defaults; ``relialint upgrade``); it is a protocol of its own, so an engine without release tables (a benchmark
tool, a test's toy) still satisfies this one, and its upgrades are "not checked" beyond the records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from relialint.core.deployment import Deployment
from relialint.core.findings import FindingsEngine
from relialint.core.versions import Version
from relialint.engines.common import FileOpener
from relialint.engines.fixedit import FixValue, TextEdit
from relialint.readers.located import FileResult


class Engine(FindingsEngine, Protocol):
    """One serving engine (or benchmark tool). The version-world methods come from
    :class:`relialint.core.worlds.WorldsEngine` (``name``, ``label``, ``tabled_versions``, ``allowed_versions``,
    ``version_class``, ``version_defaults``, ``varying``) and ``fill_settings`` from
    :class:`relialint.core.findings.FindingsEngine`."""

    repository: str | None
    """Its source repository on GitHub as ``owner/name`` (``vllm-project/vllm``), where issue and PR numbers in
    records about it point; ``None`` for a tool with none."""
    scheme: str
    """How its versions are written: ``pep440`` (vLLM), ``build`` (llama.cpp bNNNN), ``none`` (no versions)."""
    takes_version: bool
    """Whether ``--engine-version`` and version-bound records apply to its deployments (a benchmark tool: no)."""
    shares_gpu_memory: bool
    """Whether its deployments take a fraction of the GPUs' memory (``memory.gpu_utilization``) that adds up with
    the others' on the same GPUs (``memory.gpu_utilization_shared_total``)."""
    default_launch: str
    """The smallest launch a user writes, as one shell command line with the model as ``"$MODEL"`` (``vllm serve
    "$MODEL"``): what the site's "my setup" view lints for a setup, so that its verdicts are the linter's on that
    line. Empty for a tool that serves nothing (a benchmark)."""
    backends: tuple[str, ...]
    """The ``engine.backend`` values a user chooses between when building or installing it (llama.cpp: CUDA, HIP,
    Vulkan, ...); empty where the GPU decides it (vLLM on an NVIDIA or AMD GPU)."""

    def may_launch(self, result: FileResult) -> bool:
        """A cheap prefilter: whether the file can hold one of its launches at all (no parsing)."""

    def extract(self, result: FileResult, read_file: FileOpener | None, limit: int | None) -> list[Deployment]:
        """Every deployment of this engine the file's commands launch, in file order (at most ``limit``)."""

    def parse_version(self, text: str) -> Version:
        """A version written for this engine, in its scheme; ``VersionError`` for anything else."""

    def own_version(self, version: Version) -> Version | None:
        """``version`` (parsed without an engine) read in this engine's scheme, or ``None`` when it is not one."""

    def finish(self, deployment: Deployment) -> None:
        """The facts that need the final ``engine.version``: option checks and defaults."""

    def written_options(self, deployment: Deployment) -> list[str]:
        """The options the deployment writes on its command line, as written (they narrow the version worlds)."""

    def option_flags(self, key: str) -> list[str]:
        """The options that set a fact key (``--max-model-len`` for ``serve.max_model_len``), for the site."""

    def option_env(self, key: str) -> list[str]:
        """The environment variables that set a fact key (``VLLM_ATTENTION_BACKEND`` for ``attention.backend``), for
        the site; empty where the engine's tables map none to it."""

    def choice_points(self) -> Sequence[Version]:
        """The versions a user may pick from on the site (the tabled ones), oldest first."""

    def fix_edits(self, result: FileResult, deployment: Deployment, fix_set: Mapping[str, FixValue]
                  ) -> list[TextEdit] | None:
        """The edits of ``result``'s text that make a record's ``fix_edit`` settings true for this deployment (the
        language server's quick fix, the site's before/after), or ``None`` where the engine cannot make them
        safely."""
