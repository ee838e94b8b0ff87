"""llama.cpp's build worlds (issue 24): one world per option table, narrowed by the options written and the stated
build, and the builds outside the tables, where the tables decide nothing. Whether a build refuses a word is a fact
derived per build world; the worlds decide definite / possible and write the build note (exact code, certainty,
line, column and note)."""

from __future__ import annotations

from relialint.core.facts import FactSet
from relialint.engines import llamacpp_flags
from relialint.engines.llamacpp_engine import LlamaCppEngine
from relialint.engines.versioning import parse_engine_version
from relialint.run.lint import Finding, Options, Target, lint_text

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
    allowed = ENGINE.allowed_versions(FactSet(), ["-m", "--load-mode"], None)
    assert [v.text for v in allowed] == ["b10454", "b11312"]
    assert len(ENGINE.allowed_versions(FactSet(), ["-m", "--load-mode"], "--load-mode")) == 16
    # an option no table has narrows nothing; options no table accepts together narrow nothing either
    assert len(ENGINE.allowed_versions(FactSet(), ["--n_ctx"], None)) == 16
    assert len(ENGINE.allowed_versions(FactSet(), ["--ctx-size-draft", "--load-mode"], None)) == 16


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


# -- findings: certainty and the build note from the worlds ------------------------------------------------------------

LOAD_MODE = "llama-server -m /m.gguf --load-mode mmap\n"
"""``--load-mode`` exists only in the two newest tables (b10454, b11312)."""
N_CTX = "llama-server -m /m.gguf --n_ctx 8192\n"
"""``--n_ctx`` is llama-cpp-python's spelling: no tabled build has it."""


def test_an_option_only_newer_tables_have_with_the_build_unknown_is_possible_naming_the_builds() -> None:
    (finding,) = _lint(LOAD_MODE)
    assert _rows([finding]) == [("RL520", "possible", 1, 25)]
    assert finding.missing_facts == ["engine.version"]
    assert finding.message == (
        "`--load-mode` is not an option of llama-server b4579-b9874; it exists in b10454-b11312: llama-server refuses "
        "to start (\"invalid argument\") (possible: depends on engine.version: holds on llama.cpp b4579-b9874; "
        "unknown on older than b4579, newer than b11312; set --engine-version V)")


def test_an_option_only_newer_tables_have_pinned_to_an_old_build_is_definite() -> None:
    (finding,) = _lint(LOAD_MODE, "b4579")
    assert _rows([finding]) == [("RL520", "definite", 1, 25)]
    assert finding.message == ("`--load-mode` is not an option of llama-server b4579; it exists in b10454-b11312: "
                               "llama-server refuses to start (\"invalid argument\")")


def test_an_option_only_newer_tables_have_pinned_to_a_new_build_gives_nothing() -> None:
    assert _lint(LOAD_MODE, "b11312") == []
    assert _lint(LOAD_MODE, "b10454") == []


def test_an_option_no_table_has_is_possible_with_the_build_unknown() -> None:
    """The closed-world error of issue 24: the builds older and newer than the tables may accept it."""
    (finding,) = _lint(N_CTX)
    assert _rows([finding]) == [("RL520", "possible", 1, 25)]
    assert finding.message == (
        "`--n_ctx` is not an option of any llama-server build from b4579 to b11312 (use `--ctx-size`): llama-server "
        "refuses to start (\"invalid argument\") (possible: depends on engine.version: holds on llama.cpp "
        "b4579-b11312; unknown on older than b4579, newer than b11312; set --engine-version V)")


def test_an_option_no_table_has_pinned_to_a_tabled_build_is_definite_and_to_an_untabled_one_possible() -> None:
    assert _rows(_lint(N_CTX, "b11312")) == [("RL520", "definite", 1, 25)]
    assert _rows(_lint(N_CTX, "b4579")) == [("RL520", "definite", 1, 25)]
    # a build between two tables, beyond the tables, or a release: the tables only neighbour it
    for version in ("b9000", "b3000", "b20000", "v0.3.0"):
        assert _rows(_lint(N_CTX, version)) == [("RL520", "possible", 1, 25)], version


def test_the_other_options_narrow_an_options_worlds() -> None:
    """--mlock is in every table but b11312: the builds newer than b11312 are no world of --n_ctx then."""
    (n_ctx, _) = _lint("llama-server -m /m.gguf --n_ctx 8192 --mlock\n")
    assert _rows([n_ctx]) == [("RL520", "possible", 1, 25)]
    assert "(possible: depends on engine.version: holds on llama.cpp b4579-b10454; unknown on older than b4579; " \
           "set --engine-version V)" in n_ctx.message


def test_a_llama_arg_value_no_build_takes_and_one_only_new_builds_take() -> None:
    env = "LLAMA_ARG_SPLIT_MODE=tensor LLAMA_ARG_CACHE_TYPE_K=fp8 llama-server -m /m.gguf\n"
    tensor, fp8 = _lint(env)
    assert _rows([tensor, fp8]) == [("RL521", "possible", 1, 1), ("RL521", "possible", 1, 29)]
    assert "(possible: depends on engine.version: holds on llama.cpp b4579-@c0159f9c1; unknown on older than " \
           "b4579, newer than b11312; set --engine-version V)" in tensor.message
    assert "(possible: depends on engine.version: holds on llama.cpp b4579-b11312; unknown on older than b4579, " \
           "newer than b11312; set --engine-version V)" in fp8.message
    assert _rows(_lint(env, "b4579")) == [("RL521", "definite", 1, 1), ("RL521", "definite", 1, 29)]
    assert _rows(_lint(env, "b11312")) == [("RL521", "definite", 1, 29)]


def test_a_stray_word() -> None:
    text = "llama-server -m /m.gguf --jinja true\n"
    (finding,) = _lint(text)
    assert _rows([finding]) == [("RL522", "possible", 1, 33)]
    assert finding.message == (
        "`true` after `--jinja` is neither an option nor an option's value on llama-server b4579-b11312: the parser "
        "stops with \"invalid argument: true\" (possible: depends on engine.version: holds on llama.cpp b4579-b11312; "
        "unknown on older than b4579, newer than b11312; set --engine-version V)")
    assert _rows(_lint(text, "b4579")) == [("RL522", "definite", 1, 33)]
    assert _rows(_lint(text, "b9000")) == [("RL522", "possible", 1, 33)]


def test_no_certain_fact_and_the_refusal_derived_per_build() -> None:
    """``relialint facts`` shows the located instance and no ``*_certain`` fact; the refusal is unknown with the
    build unknown (the worlds decide it) and true on a tabled build."""
    from relialint.core.facts import VOCABULARY

    assert not [k for k in VOCABULARY if k.startswith("llama.") and k.endswith("_certain")]
    unknown = lint_text(N_CTX, "serve.sh", "shell", Options()).deployments[0].facts
    assert unknown.get("llama.unknown_option") is not None and unknown.get("llama.option_refused") is None
    (view,) = unknown.instance_views("llama.unknown_option")
    derived = view.by_version["llama.option_refused"]
    # refused by every table; no table has it, so it narrows nothing and there is nothing to leave out
    assert (derived.holds, derived.leave_out) == (frozenset(ENGINE.tabled_versions()), None)
    (view,) = lint_text(LOAD_MODE, "serve.sh", "shell", Options()).deployments[0].facts.instance_views(
        "llama.unknown_option")
    derived = view.by_version["llama.option_refused"]
    assert (sorted(v.text for v in derived.holds), derived.leave_out) == (
        sorted(v.text for v in ENGINE.tabled_versions()[:14]), "--load-mode")
    pinned = lint_text(N_CTX, "serve.sh", "shell", Options(target=Target(engine_version="b11312"))).deployments[0]
    refused = pinned.facts.get("llama.option_refused")
    assert refused is not None and (refused.value, refused.line, refused.column) == (True, 1, 25)


def test_the_model_family_bounds_the_build_for_the_records_ranges() -> None:
    # RL523 (--keep ignored) is witnessed b3183-b5308, fixed b5763; gpt-oss runs from b5905 (model_support.json),
    # so its GGUF rules the record out, while a model with no family leaves the build open.
    def rl523(model: str) -> list[tuple[str, str, int, int]]:
        text = f"llama-server -m /models/{model} --keep 256 -ngl 99\n"
        found = lint_text(text, "serve.sh", "shell", Options(show_possible=True)).findings
        return [(f.code, f.certainty, f.line, f.column) for f in found if f.code == "RL523"]

    assert rl523("gpt-oss-20b-mxfp4.gguf") == []
    assert rl523("my-finetune-Q4_K_M.gguf") == [("RL523", "possible", 1, 49)]
    facts = lint_text("llama-server -m /models/gpt-oss-20b-mxfp4.gguf\n", "serve.sh", "shell", Options()).deployments
    version = facts[0].facts.get("engine.version")
    assert version is not None and str(version.value) == "newer than b5904" and version.origin == "inferred"
    assert version.note is not None and "gpt-oss needs llama.cpp b5905 or newer" in version.note
