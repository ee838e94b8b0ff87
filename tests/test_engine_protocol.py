"""A third engine in a few dozen lines: the Engine protocol and a Registry are all it takes to get version worlds,
option findings and defaults by version (no other module knows ``toyserve``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pytest

from relialint.core.deployment import Deployment
from relialint.core.facts import ByVersion, Fact, FactSet
from relialint.core.results import RunResult, Target
from relialint.core.versions import Version, VersionError, parse_version
from relialint.core.worlds import NoGpuDefaults
from relialint.engines.common import FileOpener
from relialint.engines.protocol import Engine
from relialint.engines.registry import Registry, default_registry
from relialint.readers import shell
from relialint.readers.located import FileResult
from relialint.readers.opener import MemoryOpener
from relialint.run.lint import Options, lint_file_result
from relialint.run.targets import target_facts

if TYPE_CHECKING:
    from relialint.core.evaluate import FactView

V1, V2 = parse_version("1.0"), parse_version("2.0")
OPTIONS = {"--model": (V1, V2), "--turbo": (V2,)}  # --turbo is new in 2.0
ENV_READ = {"TOY_LEGACY": (V1,)}  # read until 1.0


class ToyServe(NoGpuDefaults):
    """A made-up engine: two versions, one option added in 2.0, prefix caching on by default from 2.0, one
    variable read only by 1.0."""

    name, label, scheme, takes_version, shares_gpu_memory = "toyserve", "ToyServe", "pep440", True, False
    default_launch, backends = "toyserve", ()

    def may_launch(self, result: FileResult) -> bool:
        return "toyserve" in result.text

    def extract(self, result: FileResult, read_file: FileOpener | None, limit: int | None) -> list[Deployment]:
        out = []
        for command in result.commands:
            if not command.argv or command.argv[0].text != "toyserve":
                continue
            d = Deployment(self.name, result.kind, command.span)
            d.facts.set("engine.name", Fact(self.name, "inferred"))
            d.facts.closed.add("flag.toyserve.")
            d.written = [w for w in command.argv[1:] if (w.text or "").startswith("--")]  # type: ignore[attr-defined]
            d.env = [v for v in command.env if v.name.startswith("TOY_")]  # type: ignore[attr-defined]
            out.append(d)
        return out

    def parse_version(self, text: str) -> Version:
        version = parse_version(text)
        if version.scheme != "pep440":
            raise VersionError(text)
        return version

    def own_version(self, version: Version) -> Version | None:
        return version if version.scheme == "pep440" else None

    def finish(self, deployment: Deployment) -> None:
        facts = deployment.facts
        fact = facts.get("engine.version")
        version = fact.value if fact is not None and isinstance(fact.value, Version) else None
        for word in deployment.written:  # type: ignore[attr-defined]
            refusing = frozenset(v for v in (V1, V2) if v not in OPTIONS.get(word.text, ()))
            if refusing:
                self._add(facts, "args.unknown_option", "args.option_refused", f"`{word.text}` is not an option",
                          word.span, version, refusing, word.text)
        for var in deployment.env:  # type: ignore[attr-defined]
            unread = frozenset(v for v in (V1, V2) if v not in ENV_READ.get(var.name, ()))
            if unread:
                self._add(facts, "args.unread_env", "args.env_not_read", f"`{var.name}` is not read", var.span,
                          version, unread, None)
        self.version_defaults(facts)

    @staticmethod
    def _add(facts: FactSet, key: str, derived: str, text: str, span: Any, version: Version | None,
             holds: frozenset[Version], leave_out: str | None) -> None:
        where = (span.path, span.line, span.column, span.end_line, span.end_column)
        if version is not None:
            facts.add_instance(key, {key: Fact(text, "flag", *where), derived: Fact(version in holds, "flag", *where)})
        else:  # decided by the worlds; an option 2.0 has is kept in newer releases
            facts.add_instance(key, {key: Fact(text, "flag", *where)},
                               {derived: ByVersion(holds, leave_out, newer=False if V2 not in holds else None)})

    def tabled_versions(self) -> Sequence[Version]:
        return (V1, V2)

    def option_env(self, key: str) -> list[str]:
        return []

    def choice_points(self) -> Sequence[Version]:
        return (V1, V2)

    def allowed_versions(self, facts: FactView, options: Sequence[str], leave_out: str | None) -> list[Version]:
        return [v for v in (V1, V2) if all(v in OPTIONS.get(o, (v,)) for o in options if o != leave_out)]

    def version_class(self, version: Version) -> tuple[object, ...]:
        return (version < V2,)

    def version_defaults(self, facts: FactSet) -> None:
        fact = facts.get("engine.version")
        if fact is not None and isinstance(fact.value, Version) and not facts.settled("prefix_caching.enabled"):
            facts.set("prefix_caching.enabled", Fact(not fact.value < V2, "default"))

    def varying(self) -> frozenset[str]:
        return frozenset({"engine.version", "prefix_caching.enabled"})

    def written_options(self, deployment: Deployment) -> list[str]:
        return [w.text for w in deployment.written]  # type: ignore[attr-defined]

    def fill_settings(self, message: str, deployment: Deployment) -> str:
        return message

    def fix_edits(self, result: FileResult, deployment: Deployment, fix_set: Mapping[str, Any]) -> None:
        return None

    def option_flags(self, key: str) -> list[str]:
        return []


def _record(code: str, when: list[dict[str, Any]], locate: list[str], message: str) -> dict[str, Any]:
    return {"id": code, "slug": code.lower(), "title": code, "severity": "major", "fix": "fix it", "status": "active",
            "trigger": {"when": {"all": [{"fact": "engine.name", "eq": "toyserve"}, *when]}, "locate": locate,
                        "message": message}}


RECORDS = [
    _record("RL990", [{"fact": "args.unknown_option", "present": True}, {"fact": "args.option_refused", "eq": True}],
            ["args.unknown_option"], "{fact:args.unknown_option}"),
    _record("RL991", [{"fact": "prefix_caching.enabled", "eq": True}], [], "prefix caching is on"),
    _record("RL992", [{"fact": "args.unread_env", "present": True}, {"fact": "args.env_not_read", "eq": True}],
            ["args.unread_env"], "{fact:args.unread_env}"),
]


def _lint(text: str, version: str | None) -> list[tuple[str, str, int, int, str]]:
    registry = default_registry().with_engine(ToyServe())
    run = RunResult()
    given = target_facts(Target(engine_version=version))
    lint_file_result(shell.read(text, "toy.sh", MemoryOpener({})), given, RECORDS, Options(), run, registry)
    return [(f.code, f.certainty, f.line, f.column, f.message) for f in run.findings]


def test_the_toy_satisfies_the_protocol() -> None:
    engine: Engine = ToyServe()  # mypy checks the structure; the registry finds it by name
    assert Registry([engine]).get("toyserve") is engine
    assert default_registry().get("toyserve") is None


TEXT = "TOY_LEGACY=1 toyserve --model m --turbo\n"


def test_version_unknown_the_worlds_decide_and_say_where() -> None:
    assert _lint(TEXT, None) == [
        ("RL990", "possible", 1, 33, "`--turbo` is not an option (possible: depends on engine.version: holds on "
                                     "ToyServe 1.0; unknown on older than 1.0; set --engine-version V)"),
        # a default is unknown in a release beyond the tables, as for every engine
        ("RL991", "possible", 1, 14, "prefix caching is on (possible: depends on engine.version, "
                                     "prefix_caching.enabled: holds on ToyServe 2.0; unknown on newer than 2.0; set "
                                     "--engine-version V or --fact prefix_caching.enabled=...)"),
        ("RL992", "possible", 1, 1, "`TOY_LEGACY` is not read (possible: depends on engine.version: holds on "
                                    "ToyServe 2.0; unknown on newer than 2.0; set --engine-version V)"),
    ]


@pytest.mark.parametrize(("version", "expected"), [
    ("1.0", [("RL990", "definite", 1, 33, "`--turbo` is not an option")]),
    ("2.0", [("RL991", "definite", 1, 14, "prefix caching is on"),
             ("RL992", "definite", 1, 1, "`TOY_LEGACY` is not read")]),
])
def test_version_pinned_is_definite(version: str, expected: list[tuple[str, str, int, int, str]]) -> None:
    assert _lint(TEXT, version) == expected


class OneDefaultsClass(ToyServe):
    """The same engine whose versions all share one defaults class (no default reads the version here)."""

    name = "toyserve"

    def version_class(self, version: Version) -> tuple[object, ...]:
        return ()

    def version_defaults(self, facts: FactSet) -> None:
        return None


def test_versions_of_one_defaults_class_are_not_merged_when_a_derived_fact_differs() -> None:
    registry = Registry([OneDefaultsClass()])
    run = RunResult()
    lint_file_result(shell.read("toyserve --turbo\n", "toy.sh", MemoryOpener({})), {}, RECORDS[:1], Options(), run,
                     registry)
    assert [(f.code, f.certainty, f.column, f.message) for f in run.findings] == [
        ("RL990", "possible", 10, "`--turbo` is not an option (possible: depends on engine.version: holds on ToyServe "
                                  "1.0; unknown on older than 1.0; set --engine-version V)")]
