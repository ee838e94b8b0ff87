"""The catalogue's "upgrade from X to Y on GPU G" view, beside "my setup": what changes for a default launch.

The view (``docs/upgrade.md``, filled by ``docs/javascripts/upgrade.js``) takes an engine, two tabled releases and a
GPU, and lists:

* the records that start, stop or keep applying to a launch that says nothing but the engine, its version and the
  GPU: the verdicts of "my setup" (``docs/data/setup.json``, :mod:`relialint.site.setup`, the linter's own
  evaluation), read on each side;
* the defaults that change, the options the target removes, adds or reads differently, the environment variables it
  stops or starts reading: the shared release delta (:func:`relialint.engines.releases.release_delta`).

A release delta for every pair of releases would be hundreds of thousands of items, so the data file
(``docs/data/upgrade.json``) holds each item that ever changes once, with its state in every tabled release as runs
of release indices, built from the deltas between neighbouring releases: an option's kind, values and shape where
the release accepts it (refused elsewhere), the option a variable stands for where it is read (not read elsewhere),
the releases that accept a value of an option (``--speculative-config`` method ``mtp``), a default's value (and,
where the tables leave it to the GPU, its value on each GPU of "my setup", decided by the engine's ``gpu_defaults``
as ``check`` decides it), and the engine's replacement for a refused option or an unread variable where the target
names one. The script compares the two states: refused where the old release has a state and the target none,
accepted the other way round, changed where both have one and their shapes (both known) or values differ.
``tests/test_site_release.py`` reads the file the same way and checks every pair of releases against
:func:`~relialint.engines.releases.release_delta` itself.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from relialint.core.facts import Value, render
from relialint.core.versions import Version

if TYPE_CHECKING:
    from relialint.engines.protocol import Engine
    from relialint.engines.releases import ReleaseDelta

UPGRADE_PAGE = "upgrade.md"
UPGRADE_DATA = "data/upgrade.json"

State = list[Any] | None
"""An item's state in one release (``None``: refused, not read; a default's state is never ``None``)."""


def _runs(states: Sequence[State]) -> list[list[Any]]:
    """``[first, last, *state]`` for each run of equal non-``None`` states, by release index."""
    out: list[list[Any]] = []
    for i, state in enumerate(states):
        if state is None:
            continue
        if out and out[-1][1] == i - 1 and out[-1][2:] == state:
            out[-1][1] = i
        else:
            out.append([i, i, *state])
    return out


def _timeline(count: int, changes: Mapping[int, tuple[State, State]]) -> list[State]:
    """An item's state in each of ``count`` releases from its changes between neighbours (``changes[i]``: the state
    in release ``i`` and in ``i + 1``): constant between changes, and before the first change its old state."""
    first = min(changes)
    state: State = changes[first][0]
    out: list[State] = []
    for i in range(count):
        if i - 1 in changes:
            state = changes[i - 1][1]
        out.append(state)
    return out


def _kind(kind: str | None, values: tuple[str, ...]) -> State:
    """An option's state: its kind, its values, and what a command line writes after it (the shared delta's
    ``VALUE_SHAPES``: a flag and a negative flag alike; ``None``: not known, which never counts as a change)."""
    from relialint.engines.releases import VALUE_SHAPES

    return None if kind is None else [kind, list(values), VALUE_SHAPES.get(kind)]


def _default(value: Value | None, known: bool) -> list[Any]:
    return [render(value) if value is not None else None, known]


class _Deltas:
    """The shared release delta of one engine, asked once per pair of releases."""

    def __init__(self, engine: Engine, versions: Sequence[Version]) -> None:
        self.engine = engine
        self.versions = versions
        self._memo: dict[tuple[int, int], ReleaseDelta] = {}

    def __call__(self, old: int, new: int) -> ReleaseDelta:
        from relialint.engines.releases import release_delta

        key = (old, new)
        if key not in self._memo:
            delta = release_delta(self.engine, self.versions[old], self.versions[new])
            if delta is None:
                raise ValueError(f"{self.engine.name} has no release tables")
            self._memo[key] = delta
        return self._memo[key]


def _cover(timelines: Sequence[Sequence[State]]) -> list[int]:
    """Releases such that every item with a state somewhere has one in at least one of them (greedy, most items
    first): the sources the replacements are asked from."""
    left = {n for n, states in enumerate(timelines) if any(s is not None for s in states)}
    count = len(timelines[0]) if timelines else 0
    chosen: list[int] = []
    while left:
        best = max(range(count), key=lambda i: (sum(1 for n in left if timelines[n][i] is not None), -i))
        chosen.append(best)
        left -= {n for n in left if timelines[n][best] is not None}
    return chosen


def _replacements(timelines: Sequence[Sequence[State]], deltas: _Deltas,
                  replaced: Callable[[ReleaseDelta, int], str | None]) -> list[list[list[Any]]]:
    """Per item, the engine's replacement in each release that has no state for it, as runs: asked of the delta
    from a release that has the item to the target (the replacement depends only on the target; ``replaced(delta,
    n)``: item ``n``'s replacement in that delta)."""
    sources = _cover(timelines)
    out: list[list[list[Any]]] = []
    for n, states in enumerate(timelines):
        row: list[State] = []
        for j, state in enumerate(states):
            source = next((i for i in sources if states[i] is not None), None)
            if state is not None or source is None:
                row.append(None)
                continue
            text = replaced(deltas(source, j), n)
            row.append([text] if text else None)
        out.append(_runs(row))
    return out


def _option_replacement(names: Sequence[str]) -> Callable[[ReleaseDelta, int], str | None]:
    def replaced(delta: ReleaseDelta, n: int) -> str | None:
        change = delta.option(names[n])
        return change.replacement if change is not None else None

    return replaced


def _env_replacement(names: Sequence[str]) -> Callable[[ReleaseDelta, int], str | None]:
    def replaced(delta: ReleaseDelta, n: int) -> str | None:
        change = delta.variable(names[n])
        return change.replacement if change is not None else None

    return replaced


def _by_gpu(engine: Engine, versions: Sequence[Version], fact: str, states: Sequence[State]) -> list[list[Any]]:
    """Where the tables leave a default to the GPU (the engine's ``gpu_defaults``, as ``check`` decides it in each
    GPU world, the GPU's facts given as ``--gpu NAME`` gives them): per release whose state is unknown,
    ``[release, [[GPU choices], value, known], ...]``, the GPU choices numbered as in "my setup"
    (``data/setup.json``: 0 is "not sure", which stays unknown)."""
    from relialint.core.facts import Fact, FactSet
    from relialint.core.results import Target
    from relialint.core.worlds import Overlay
    from relialint.run.targets import target_facts
    from relialint.site.setup import gpu_choices

    if fact not in engine.gpu_dependent:
        return []
    out: list[list[Any]] = []
    gpus = gpu_choices()
    for i, state in enumerate(states):
        if state is None or state[1]:
            continue
        base = FactSet({"engine.name": Fact(engine.name, "inferred"),
                        "engine.version": Fact(versions[i], "inferred")},
                       closed={f"flag.{engine.name}.", "env."})
        engine.version_defaults(base)
        groups: dict[tuple[Any, ...], list[int]] = {}
        for g, gpu in enumerate(gpus):
            if gpu is None:
                continue
            decided = engine.gpu_defaults(Overlay(base, target_facts(Target(gpu=gpu.name))))
            found = decided.get(fact)
            if found is not None:
                groups.setdefault(tuple(_default(found.value, True)), []).append(g)
        if groups:
            out.append([i, *([members, *key] for key, members in groups.items())])
    return out


def engine_data(engine: Engine) -> dict[str, Any]:
    """One engine's releases and every option, variable and default that changes between two of them."""
    from relialint.engines.releases import releases
    from relialint.site.releases import page_path

    versions = releases(engine)
    deltas = _Deltas(engine, versions)
    options: dict[str, dict[int, tuple[State, State]]] = {}
    env: dict[str, dict[int, tuple[State, State]]] = {}
    defaults: dict[str, dict[int, tuple[State, State]]] = {}
    pins: dict[str, list[str]] = {}
    notes: dict[str, dict[int, str]] = {}
    values: dict[tuple[str, str], dict[int, tuple[State, State]]] = {}
    for i in range(len(versions) - 1):
        delta = deltas(i, i + 1)
        for v in delta.values:
            accepted_before = v.change != "accepted"
            values.setdefault((v.option, v.value), {})[i] = ([v.fact] if accepted_before else None,
                                                             None if accepted_before else [v.fact])
        for o in delta.options:
            options.setdefault(o.name, {})[i] = (_kind(o.old_kind, o.old_values), _kind(o.new_kind, o.new_values))
        for e in delta.env:
            read_before = e.change != "read"
            env.setdefault(e.name, {})[i] = ([e.option] if read_before else None,
                                            None if read_before else [e.option])
        for d in delta.defaults:
            defaults.setdefault(d.fact, {})[i] = (_default(d.old, d.old_known), _default(d.new, d.new_known))
            pins[d.fact] = list(d.pins)
            if d.note:
                notes.setdefault(d.fact, {})[i + 1] = d.note
    items: list[list[Any]] = []
    for kind, changes, replaced in (("option", options, _option_replacement),
                                    ("env", env, _env_replacement)):
        names = sorted(changes)
        timelines = [_timeline(len(versions), changes[name]) for name in names]
        instead = _replacements(timelines, deltas, replaced(names))
        items += [[kind, name, _runs(states), runs]
                  for name, states, runs in zip(names, timelines, instead, strict=True)]
    for (option, value), steps in sorted(values.items()):
        items.append(["value", option, _runs(_timeline(len(versions), steps)), value])
    for fact in sorted(defaults):
        states = _timeline(len(versions), defaults[fact])
        items.append(["default", fact, _runs(states), pins.get(fact, []),
                      sorted([i, note] for i, note in notes.get(fact, {}).items()),
                      _by_gpu(engine, versions, fact, states)])
    return {"id": engine.name, "label": engine.label,
            "versions": [{"value": str(v), "page": page_path(engine.name, v)[:-3] + "/"} for v in versions],
            "items": items}


def upgrade_data() -> dict[str, Any]:
    """The view's data file: per engine with release tables, its releases and its items."""
    from relialint.site.releases import release_engines

    return {"generator": "python -m relialint.site", "setup": "data/setup.json",
            "engines": [engine_data(engine) for engine in release_engines()]}


def upgrade_json(records: Sequence[Mapping[str, Any]]) -> str:
    """``docs/data/upgrade.json`` (``records``: unused; the records' verdicts are in ``data/setup.json``)."""
    del records
    return _upgrade_text()


@lru_cache(maxsize=1)
def _upgrade_text() -> str:
    """The data file's text, made once per process: it depends only on the engines' committed tables (a thousand
    release deltas, seconds of work, that every regeneration of the site would repeat)."""
    return json.dumps(upgrade_data(), indent=None, separators=(",", ":"), ensure_ascii=False) + "\n"


def upgrade_page(banner: str) -> str:
    """``docs/upgrade.md``: the form and the place the results go; ``docs/javascripts/upgrade.js`` fills them."""
    def select(name: str, label: str) -> str:
        return (f'<div class="rl-field"><label for="rl-upgrade-{name}">{html.escape(label)}</label>'
                f'<select id="rl-upgrade-{name}" name="{name}"></select></div>')

    return "\n".join([
        "---",
        "title: Upgrade",
        "description: Choose an engine, the release you run, the one you move to and your GPU, and see what "
        "silently changes.",
        "---",
        "",
        banner,
        "",
        "# Upgrade from one release to another",
        "",
        "Choose the engine, the release you run today, the release you move to and the GPU you serve on. The view "
        "lists what changes for a launch that sets nothing else: the records that start or stop applying (as "
        "[my setup](setup.md) decides them for each side), the defaults that change (on the chosen GPU where the "
        "engine leaves them to the GPU) and what pins the old value, "
        "and, for a launch that writes them, the options the target removes, adds or reads differently and the "
        "environment variables it stops or starts reading. Everything comes from relialint's tables and records, "
        "computed when the site was built; a release outside the tables is not checked. Each release also has a "
        "page: [releases](releases/index.md). To check a deployment file, run "
        "`relialint upgrade FILE --to VERSION`.",
        "",
        f'<form id="rl-upgrade" class="rl-setup rl-upgrade" data-src="../{UPGRADE_DATA}" role="search" '
        'aria-label="Choose an upgrade">',
        select("engine", "Engine"),
        select("from", "From"),
        select("to", "To"),
        select("gpu", "GPU"),
        "</form>",
        "",
        '<p id="rl-upgrade-notice" class="rl-setup-notice" role="status" hidden></p>',
        '<p id="rl-upgrade-summary" class="rl-setup-summary" aria-live="polite"></p>',
        '<div id="rl-upgrade-results" class="rl-setup-results rl-upgrade-results"></div>',
        "",
        "<noscript>This view needs JavaScript. Each release's changes are on its page under "
        '<a href="../releases/">releases</a>, and the data is in '
        f'<a href="../{UPGRADE_DATA}">{UPGRADE_DATA}</a>.</noscript>',
        "",
    ])
