"""llama.cpp's build worlds (issue 24): one world per option table, narrowed by the options written and the stated
build, and the builds outside the tables, where the tables decide nothing. Whether a build refuses a word is a fact
derived per build world; the worlds decide definite / possible and write the build note (exact code, certainty,
line, column and note)."""

from __future__ import annotations

from relialint.engines import llamacpp_flags
from relialint.engines.llamacpp_engine import LlamaCppEngine
from relialint.lint import Finding, Options, Target, lint_text
from relialint.versions import parse_engine_version

ENGINE = LlamaCppEngine()
EVERY = "older than b4579"
NEWEST = "newer than b11312"


def _lint(text: str, version: str | None = None, kind: str = "shell", name: str = "serve.sh") -> list[Finding]:
    options = Options(target=Target(engine_version=version))
    return [f for f in lint_text(text, name, kind, options).findings if f.code in ("RL520", "RL521", "RL522")]


def _rows(findings: list[Finding]) -> list[tuple[str, str, int, int]]:
    return [(f.code, f.certainty, f.line, f.column) for f in findings]


def _note(finding: Finding) -> str:
    """The worlds' part of a possible finding's message: what follows ``depends on engine.version: ``."""
    head = "(possible: depends on engine.version: "
    assert head in finding.message, finding.message
    return finding.message.split(head, 1)[1].rsplit("; set --engine-version V)", 1)[0]


# -- the worlds -------------------------------------------------------------------------------------------------------


def test_tables_are_worlds_labelled_by_their_build_text() -> None:
    labels = [v.text for v in ENGINE.tabled_versions()]
    assert labels == ["b4579", "b4875", "b5308", "b5763", "b5833", "b5904", "@4227c9be4", "@49bfddeca",
                      "@c0159f9c1", "b8942", "b9102", "b9518", "b9665", "b9874", "b10454", "b11312"]
    # a table known only within a bracket of builds is no build number: a stated b6111 is not @4227c9be4
    assert parse_engine_version("llama.cpp", "b6111") not in ENGINE.tabled_versions()
    assert parse_engine_version("llama.cpp", "b4579") == ENGINE.tabled_versions()[0]


def test_written_options_narrow_the_tables_leaving_one_out() -> None:
    allowed = ENGINE.allowed_versions(None, ["-m", "--load-mode"], None)
    assert [v.text for v in allowed] == ["b10454", "b11312"]
    assert len(ENGINE.allowed_versions(None, ["-m", "--load-mode"], "--load-mode")) == 16
    # an option no table has narrows nothing; options no table accepts together narrow nothing either
    assert len(ENGINE.allowed_versions(None, ["--n_ctx"], None)) == 16
    assert len(ENGINE.allowed_versions(None, ["--ctx-size-draft", "--load-mode"], None)) == 16


def test_a_stated_build_or_release_gives_its_worlds() -> None:
    table = llamacpp_flags.table()

    def worlds(text: str | None) -> tuple[list[str], bool, bool, str | None]:
        found = table.build_worlds(parse_engine_version("llama.cpp", text) if text else None)
        return [table.label(i) for i in found.tables], found.older, found.newer, found.own

    assert worlds(None) == ([table.label(i) for i in range(16)], True, True, None)
    assert worlds("b4579") == (["b4579"], False, False, None)
    assert worlds("b3000") == (["b4579"], True, False, None)
    assert worlds("b20000") == (["b11312"], False, True, None)
    assert worlds("b9000") == (["b8942", "b9102"], False, False, "b9000")
    assert worlds("v0.3.0") == (["b10454", "b11312"], False, False, "v0.3.0")
    assert worlds("v0.6.0") == (["b11312"], False, True, None)
