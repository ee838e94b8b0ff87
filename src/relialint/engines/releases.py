"""What changes between two releases of one engine, by its tables alone (no deployment): the release delta.

An engine whose tables describe its releases (vLLM's ``vllm_flags.json`` and defaults rows, llama.cpp's per-build
option tables) implements :class:`ReleaseTables`; :func:`release_delta` asks it for the delta between two of its
versions. Every item comes from the committed tables: an option the target refuses is one the old release's table
has and the target's does not, a default that changes is one the defaults rows give two different values.

A version between two tables (a vLLM pre-release, a llama.cpp build no table is) can be either: the deltas from
and to each table it can be are combined (:func:`combine`), and an item found in some of them only is not
``certain``. A version outside the tables (older than the first, newer than the newest) is **not checked**:
:attr:`ReleaseDelta.checked` is false and :attr:`ReleaseDelta.unchecked` says why; the lists are then empty because
nothing is known, never because nothing changes. Callers must say so.

The records whose affected ranges a version enters or leaves are not here (the records sit above the engines):
``relialint.run.upgrade.record_changes`` computes them; the deployment-level delta (what one deployment uses,
located in its file, definite or possible) is ``relialint.run.upgrade``.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from relialint.base.plain import Fields, Frozen, replace
from relialint.core.deployment import Deployment
from relialint.core.facts import Value
from relialint.core.results import Finding
from relialint.core.versions import Version
from relialint.readers.located import ReadError, Span

OPTION_REFUSED = "refused"
"""The old release accepts the option, the target does not: a deployment that writes it will not start."""
OPTION_ACCEPTED = "accepted"
"""The target accepts an option the old release refused."""
OPTION_CHANGED = "changed"
"""Both accept the option, but its kind (takes a value, a flag, a negative flag) or its set of values differs."""
ENV_UNREAD = "unread"
"""The old release reads the variable, the target does not: setting it does nothing any more."""
ENV_READ = "read"
"""The target reads a variable the old release did not."""


class OptionChange(Frozen):
    """One option string whose acceptance changes. ``old_kind`` / ``new_kind``: the table's kind of the option in
    each release (``v`` takes a value, ``o`` an optional value, ``f`` a flag, ``n`` a negative flag, ``?`` not
    known; ``None`` where the release refuses it). ``old_values`` / ``new_values``: the values the release accepts,
    where its table lists them (llama.cpp's enumerations), else empty. ``replacement``: the engine's own
    replacement for a refused option, where its tables name one (``--foo``), else ``None``. ``certain``: false where
    a side is a version between two tables and the change holds for one of them only (:func:`combine`)."""

    name: str
    change: str
    old_kind: str | None
    new_kind: str | None
    old_values: tuple[str, ...]
    new_values: tuple[str, ...]
    replacement: str | None
    certain: bool
    _fields = ("name", "change", "old_kind", "new_kind", "old_values", "new_values", "replacement", "certain")

    def __init__(self, name: str, change: str, old_kind: str | None, new_kind: str | None,
                 old_values: tuple[str, ...] = (), new_values: tuple[str, ...] = (),
                 replacement: str | None = None, certain: bool = True) -> None:
        self.certain = certain
        self.name = name
        self.change = change
        self.old_kind = old_kind
        self.new_kind = new_kind
        self.old_values = old_values
        self.new_values = new_values
        self.replacement = replacement


class EnvChange(Frozen):
    """One environment variable the target stops (``unread``) or starts (``read``) reading. ``option``: the
    command-line option the variable stands for, where the engine's tables say (llama.cpp's ``LLAMA_ARG_*``);
    ``replacement``: the engine's replacement for a variable no longer read, where its tables name one."""

    name: str
    change: str
    option: str | None
    replacement: str | None
    certain: bool
    _fields = ("name", "change", "option", "replacement", "certain")

    def __init__(self, name: str, change: str, option: str | None = None, replacement: str | None = None,
                 certain: bool = True) -> None:
        self.certain = certain
        self.name = name
        self.change = change
        self.option = option
        self.replacement = replacement


class ValueChange(Frozen):
    """A value of an option that one release accepts and the other refuses (``change``: ``refused`` by the target or
    ``accepted`` by it): ``option`` as the tables spell it, ``value`` as the deployment's fact ``fact`` holds it
    (``--speculative-config``'s ``method`` ``mtp``, fact ``args.spec_method``), ``since``: the first release that
    accepts it."""

    option: str
    value: str
    fact: str
    change: str
    since: str
    certain: bool
    _fields = ("option", "value", "fact", "change", "since", "certain")

    def __init__(self, option: str, value: str, fact: str, change: str, since: str, certain: bool = True) -> None:
        self.option = option
        self.value = value
        self.fact = fact
        self.change = change
        self.since = since
        self.certain = certain


class DefaultChange(Frozen):
    """A fact the engine sets itself when the config says nothing, whose value differs between the releases (for a
    complete command line and environment that set nothing). ``old`` / ``new``: the value in each release;
    ``*_known`` false: the defaults give no value there (the release decides it by something the tables do not
    know, e.g. the GPU or the model's architecture, or the setting is not in that release). ``pins``: the options
    and environment variables of the target release that set the fact, i.e. what to write to keep the old value
    (``--gpu-memory-utilization``), as far as the tables know."""

    fact: str
    old: Value | None
    new: Value | None
    old_known: bool
    new_known: bool
    pins: tuple[str, ...]
    note: str | None
    certain: bool
    _fields = ("fact", "old", "new", "old_known", "new_known", "pins", "note", "certain")

    def __init__(self, fact: str, old: Value | None, new: Value | None, old_known: bool = True,
                 new_known: bool = True, pins: tuple[str, ...] = (), note: str | None = None,
                 certain: bool = True) -> None:
        self.certain = certain
        self.fact = fact
        self.old = old
        self.new = new
        self.old_known = old_known
        self.new_known = new_known
        self.pins = pins
        self.note = note


class ReleaseDelta(Frozen):
    """Everything the engine's tables say changes from ``old`` to ``new`` (either direction: a downgrade is the
    mirror image). ``checked``: the tables decide both versions; when false, ``unchecked`` says which they do not
    and the lists are empty (not checked, never "no change"). ``worlds``: where a side lies between two tables (a
    pre-release, a build no table is), which tables it can be; an item then holds in each (``certain``) or in some
    (possible)."""

    engine: str
    old: Version
    new: Version
    checked: bool
    unchecked: str | None
    options: tuple[OptionChange, ...]
    env: tuple[EnvChange, ...]
    defaults: tuple[DefaultChange, ...]
    worlds: str | None
    values: tuple[ValueChange, ...]
    _fields = ("engine", "old", "new", "checked", "unchecked", "options", "env", "defaults", "worlds", "values")

    def __init__(self, engine: str, old: Version, new: Version, checked: bool = True, unchecked: str | None = None,
                 options: tuple[OptionChange, ...] = (), env: tuple[EnvChange, ...] = (),
                 defaults: tuple[DefaultChange, ...] = (), worlds: str | None = None,
                 values: tuple[ValueChange, ...] = ()) -> None:
        self.worlds = worlds
        self.values = values
        self._by_option: tuple[tuple[OptionChange, ...], dict[str, OptionChange]] | None = None
        self._by_variable: tuple[tuple[EnvChange, ...], dict[str, EnvChange]] | None = None
        """Indexes of ``options`` and ``env`` by name, built on first lookup for the tuple they index (not fields: a
        value's equality and hash stay its fields')."""
        self.engine = engine
        self.old = old
        self.new = new
        self.checked = checked
        self.unchecked = unchecked
        self.options = options
        self.env = env
        self.defaults = defaults

    def option(self, name: str) -> OptionChange | None:
        """The change of one option string (as the tables spell it), or ``None``."""
        if self._by_option is None or self._by_option[0] is not self.options:
            self._by_option = (self.options, {o.name: o for o in self.options})
        return self._by_option[1].get(name)

    def variable(self, name: str) -> EnvChange | None:
        """The change of one environment variable, or ``None``."""
        if self._by_variable is None or self._by_variable[0] is not self.env:
            self._by_variable = (self.env, {e.name: e for e in self.env})
        return self._by_variable[1].get(name)


def not_checked(engine: str, old: Version, new: Version, why: str) -> ReleaseDelta:
    """A delta the tables cannot give (a version they do not list): nothing claimed, ``why`` said."""
    return ReleaseDelta(engine, old, new, checked=False, unchecked=why)


@runtime_checkable
class ReleaseTables(Protocol):
    """An engine whose tables describe its releases (``relialint.engines.protocol.Engine`` objects may implement
    it; one that does not has no release delta: every upgrade of it is not checked)."""

    def release_delta(self, old: Version, new: Version) -> ReleaseDelta:
        """The delta between two of its versions (parsed in its scheme), from its tables."""

    def latest(self) -> Version:
        """The newest release its tables describe exactly (what ``--to latest`` means)."""

    def releases(self) -> tuple[Version, ...]:
        """Every release its tables describe exactly, oldest first (what the site lists a page for)."""

    def option_name(self, written: str) -> str | None:
        """The option string its tables list for an option as a command line writes it (``--max_model_len=8192``
        -> ``--max-model-len``), or ``None`` for a form the tables do not list."""

    def option_spans(self, deployment: Deployment) -> list[tuple[str, Span]]:
        """Each option the deployment's command line writes, as written, with where it is written (file order)."""


@runtime_checkable
class ReleaseSources(Protocol):
    """An engine with release tables that also knows where its upstream releases declare their options and read
    their environment variables (the site's release pages link them). Optional: an engine without it gets release
    pages with no upstream links."""

    def option_source(self, version: Version) -> str | None:
        """The upstream file (a URL) that declares the options of ``version``, where the tables know the release's
        tag or commit."""

    def env_source(self, name: str, version: Version) -> str | None:
        """The upstream file (a URL) in which ``version`` reads the environment variable ``name``, where the tables
        know it."""


def option_source(engine: object, version: Version) -> str | None:
    """Where ``engine``'s release ``version`` declares its options (:class:`ReleaseSources`), else ``None``."""
    return engine.option_source(version) if isinstance(engine, ReleaseSources) else None


def env_source(engine: object, name: str, version: Version) -> str | None:
    """Where ``engine``'s release ``version`` reads ``name`` (:class:`ReleaseSources`), else ``None``."""
    return engine.env_source(name, version) if isinstance(engine, ReleaseSources) else None


def release_delta(engine: object, old: Version, new: Version) -> ReleaseDelta | None:
    """The delta from ``old`` to ``new`` by ``engine``'s tables; ``None`` when the engine has no release tables."""
    if not isinstance(engine, ReleaseTables):
        return None
    return engine.release_delta(old, new)


def latest(engine: object) -> Version | None:
    """The newest release ``engine``'s tables describe exactly, or ``None`` for an engine without release
    tables."""
    return engine.latest() if isinstance(engine, ReleaseTables) else None


def releases(engine: object) -> tuple[Version, ...]:
    """Every release ``engine``'s tables describe exactly, oldest first (empty without release tables)."""
    return engine.releases() if isinstance(engine, ReleaseTables) else ()


# -- the delta for one deployment (computed by relialint.run.upgrade, printed by relialint.report) -------------------

RECORD = "record"
OPTION = "option"
ENV = "env"
DEFAULT = "default"
ITEM_KINDS = (RECORD, OPTION, ENV, DEFAULT)
"""The kinds of :class:`UpgradeItem`, in the order a report lists them."""
ENTERED = "entered"
"""A record that applies on the target and not today."""
LEFT = "left"
"""A record that applies today and not on the target."""
KEPT = "kept"
"""A record that applies today and on the target."""
CHANGED = "changed"
"""A default whose value differs (``DEFAULT`` items)."""
CHANGE_ORDER = (ENTERED, LEFT, KEPT, OPTION_REFUSED, OPTION_CHANGED, OPTION_ACCEPTED, ENV_UNREAD, ENV_READ, CHANGED)
"""The order of the changes within one kind: what the upgrade brings before what it takes away or keeps."""


class VersionSide(Frozen):
    """The version a deployment runs on one side of an upgrade: ``version`` (``None``: unknown), ``origin`` (``file``:
    written in the file; ``--from`` / ``--to``: given on the command line; ``None``: unknown), and where the file
    writes it (the image tag, the pinned package, the build), else ``None``."""

    version: Version | None
    origin: str | None
    path: str | None
    line: int | None
    column: int | None
    _fields = ("version", "origin", "path", "line", "column")

    def __init__(self, version: Version | None, origin: str | None, path: str | None = None,
                 line: int | None = None, column: int | None = None) -> None:
        self.version = version
        self.origin = origin
        self.path = path
        self.line = line
        self.column = column

    def text(self) -> str:
        return str(self.version) if self.version is not None else "unknown"


class UpgradeItem(Frozen):
    """One thing that changes for one deployment, located in its file.

    ``kind`` (:data:`ITEM_KINDS`) and ``change``: a record ``entered`` / ``left`` / ``kept``; an option ``refused``
    / ``accepted`` / ``changed``; a variable ``unread`` / ``read``; a default ``changed``. ``subject``: the record id,
    the option as written, the variable, the fact. ``certainty``: ``definite`` or ``possible`` under the same worlds
    as ``check`` (``missing_facts``: what decides a possible one). ``severity``: the record's (a record item), or the
    severity the change has of itself (an option the target refuses: ``blocker``, it will not start), else ``None``.
    ``finding``: the finding of a record item (the target's for ``entered`` / ``kept``, today's for ``left``).
    ``introduces``: the item is a finding the upgrade introduces (what the exit code counts); ``failing``: it is at
    or above the fail level of its file (configuration ``fail-on``, ``--fail-on``, ``--strict``). ``shown``: listed
    by the default text view (definite, or possible with a condition the deployment states)."""

    kind: str
    change: str
    subject: str
    certainty: str
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    message: str
    severity: str | None
    missing_facts: tuple[str, ...]
    finding: Finding | None
    introduces: bool
    failing: bool
    shown: bool
    _fields = ("kind", "change", "subject", "certainty", "path", "line", "column", "end_line", "end_column", "message",
               "severity", "missing_facts", "finding", "introduces", "failing", "shown")

    def __init__(self, kind: str, change: str, subject: str, certainty: str, path: str, line: int, column: int,
                 end_line: int, end_column: int, message: str, severity: str | None = None,
                 missing_facts: tuple[str, ...] = (), finding: Finding | None = None, introduces: bool = False,
                 failing: bool = False, shown: bool = True) -> None:
        self.kind = kind
        self.change = change
        self.subject = subject
        self.certainty = certainty
        self.path = path
        self.line = line
        self.column = column
        self.end_line = end_line
        self.end_column = end_column
        self.message = message
        self.severity = severity
        self.missing_facts = missing_facts
        self.finding = finding
        self.introduces = introduces
        self.failing = failing
        self.shown = shown

    def sort_key(self) -> tuple[int, int, str, int, int, str]:
        """Kind, then change (what the upgrade brings first), then place in the file."""
        return (ITEM_KINDS.index(self.kind), CHANGE_ORDER.index(self.change) if self.change in CHANGE_ORDER else 99,
                self.path, self.line, self.column, self.subject)


class DeploymentUpgrade(Fields):
    """One deployment's upgrade: where it is launched, its engine, the version today (``old``) and the target
    (``new``), the release delta of its engine between them (``None``: the engine has no release tables, or a side
    is unknown), the items, and ``notes`` (why something is not checked)."""

    path: str
    line: int
    column: int
    engine: str
    label: str
    service: str | None
    old: VersionSide
    new: VersionSide
    release: ReleaseDelta | None
    items: list[UpgradeItem]
    notes: list[str]
    _fields = ("path", "line", "column", "engine", "label", "service", "old", "new", "release", "items", "notes")

    def __init__(self, path: str, line: int, column: int, engine: str, label: str, service: str | None,
                 old: VersionSide, new: VersionSide, release: ReleaseDelta | None = None,
                 items: list[UpgradeItem] | None = None, notes: list[str] | None = None) -> None:
        self.path = path
        self.line = line
        self.column = column
        self.engine = engine
        self.label = label
        self.service = service
        self.old = old
        self.new = new
        self.release = release
        self.items = [] if items is None else items
        self.notes = [] if notes is None else notes


class UpgradeRun(Fields):
    """An upgrade over files: each deployment's upgrade in file order, the read errors and warnings (exit 2 for
    an error), the run's notes, the files read, and ``failing``: the items that introduce a finding at or above
    the fail level (exit 1)."""

    deployments: list[DeploymentUpgrade]
    errors: list[ReadError]
    warnings: list[ReadError]
    notes: list[str]
    files: int
    failing: int
    show_possible: bool
    _fields = ("deployments", "errors", "warnings", "notes", "files", "failing", "show_possible")

    def __init__(self, deployments: list[DeploymentUpgrade] | None = None, errors: list[ReadError] | None = None,
                 warnings: list[ReadError] | None = None, notes: list[str] | None = None, files: int = 0,
                 failing: int = 0, show_possible: bool = False) -> None:
        self.deployments = [] if deployments is None else deployments
        self.errors = [] if errors is None else errors
        self.warnings = [] if warnings is None else warnings
        self.notes = [] if notes is None else notes
        self.files = files
        self.failing = failing
        self.show_possible = show_possible


def option_name(engine: object, written: str) -> str | None:
    """The option string ``engine``'s tables list for ``written`` (``None``: no release tables, or no such form)."""
    return engine.option_name(written) if isinstance(engine, ReleaseTables) else None


def option_spans(engine: object, deployment: Deployment) -> list[tuple[str, Span]]:
    """The options ``deployment`` writes with their places, by ``engine`` (empty without release tables)."""
    return engine.option_spans(deployment) if isinstance(engine, ReleaseTables) else []


VALUE_SHAPES = {"v": "value", "o": "optional", "f": "flag", "n": "flag"}
"""What a command line writes after an option of each kind: a flag and a negative flag both take nothing, so a
change between them is none a deployment can see."""


def shape_changed(old_kind: str | None, new_kind: str | None) -> bool:
    """Whether what the option takes (a value, an optional value, nothing) differs; an unknown kind (``?``) never
    counts as a change."""
    old, new = VALUE_SHAPES.get(old_kind or ""), VALUE_SHAPES.get(new_kind or "")
    return old is not None and new is not None and old != new


def combine(engine: str, old: Version, new: Version, deltas: list[ReleaseDelta], worlds: str) -> ReleaseDelta:
    """The deltas between the tables each side can be (a version between two tables is one of them), as one: an
    option or variable change found in every one is certain, in some only possible (the first found is kept); a
    default is certain where every delta gives it the same values."""
    if len(deltas) == 1:
        only = deltas[0]
        return ReleaseDelta(engine, old, new, options=only.options, env=only.env, defaults=only.defaults,
                            worlds=worlds, values=only.values)
    options: dict[tuple[str, str], tuple[OptionChange, int]] = {}
    env: dict[tuple[str, str], tuple[EnvChange, int]] = {}
    defaults: dict[str, tuple[DefaultChange, int]] = {}
    values: dict[tuple[str, str, str], tuple[ValueChange, int]] = {}
    for delta in deltas:
        for v in delta.values:
            kept_v = values.get((v.option, v.value, v.change))
            values[(v.option, v.value, v.change)] = (kept_v[0] if kept_v else v, (kept_v[1] if kept_v else 0) + 1)
        for o in delta.options:
            kept_o = options.get((o.name, o.change))
            options[(o.name, o.change)] = (kept_o[0] if kept_o else o, (kept_o[1] if kept_o else 0) + 1)
        for e in delta.env:
            kept_e = env.get((e.name, e.change))
            env[(e.name, e.change)] = (kept_e[0] if kept_e else e, (kept_e[1] if kept_e else 0) + 1)
        for d in delta.defaults:
            kept_d = defaults.get(d.fact)
            same = kept_d is None or (kept_d[0].old, kept_d[0].new) == (d.old, d.new)
            defaults[d.fact] = (kept_d[0] if kept_d else d, (kept_d[1] if kept_d else 0) + (1 if same else 0))
    total = len(deltas)
    return ReleaseDelta(
        engine, old, new,
        options=tuple(replace(o, certain=o.certain and n == total) for o, n in options.values()),
        env=tuple(replace(e, certain=e.certain and n == total) for e, n in env.values()),
        defaults=tuple(replace(d, certain=d.certain and n == total) for d, n in defaults.values()),
        worlds=worlds, values=tuple(replace(v, certain=v.certain and n == total) for v, n in values.values()))
