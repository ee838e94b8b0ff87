"""llama-server's option tables by build and the checks on them (RL520-RL522, RL506), through the whole linter:
exact code, certainty, line and column; llama.cpp versions in both schemes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from relialint.core.versions import Version, VersionError
from relialint.engines import llamacpp_flags
from relialint.engines.versioning import parse_engine_version
from relialint.run.lint import Finding, Options, Target, lint_text

ROOT = Path(__file__).resolve().parent.parent


PARSER_RECORDS = ("RL505", "RL506", "RL520", "RL521", "RL522")
"""The records about how llama-server parses its command line; the others (RL523...) are about what it does."""


def _lint(text: str, version: str | None = None, kind: str = "shell", name: str = "serve.sh") -> list[Finding]:
    options = Options(target=Target(engine_version=version))
    return [f for f in lint_text(text, name, kind, options).findings if f.code in PARSER_RECORDS]


def _rows(findings: list[Finding]) -> list[tuple[str, str, int, int]]:
    return [(f.code, f.certainty, f.line, f.column) for f in findings]


MIXED = "llama-server -m /m.gguf --n_ctx 8192 --mlock --ctx-sise 4096 -sm tensor -ctk fp8 -ngl all true\n"


# -- the table --------------------------------------------------------------------------------------------------------


def test_table_covers_builds_from_early_2025_to_the_newest_with_their_commits() -> None:
    table = llamacpp_flags.table()
    builds = table.builds
    assert len(builds) == 16
    assert (builds[0]["label"], builds[0]["build"], builds[0]["commit"][:9]) == ("b4579", [4579, 4579], "794fe23f2")
    assert (builds[-1]["label"], builds[-1]["build"], builds[-1]["commit"][:9]) == ("b11312", [11312, 11312],
                                                                                   "0c1e57098")
    # the build of each table: the extraction's header, narrowed by tools/llamacpp-builds.tsv (the sdists' own clones)
    assert [b["label"] for b in builds if b["build"][0] == b["build"][1]] == [
        "b4579", "b4875", "b5308", "b5763", "b5833", "b5904", "b8942", "b9102", "b9518", "b9665", "b9874", "b10454",
        "b11312"]
    assert [(b["label"], b["build"]) for b in builds if b["build"][0] != b["build"][1]] == [
        ("@4227c9be4", [6111, 8501]), ("@49bfddeca", [6112, 8502]), ("@c0159f9c1", [8504, 8642])]
    assert all(b["source"].startswith("llama-cpp-python 0.3.") and b["build_source"] for b in builds)
    assert [b.get("dev") for b in builds if b.get("dev")] == ["0.1.0", "0.5.0"]


def test_table_records_kinds_negatives_env_and_values_per_build() -> None:
    table = llamacpp_flags.table()
    first, fa_value, last = 0, 7, len(table.builds) - 1
    assert table.option("-fa", first) == ("f", "--flash-attn")
    assert table.option("-fa", fa_value) == ("v", "--flash-attn")
    assert table.option("--mlock", last - 1) == ("f", "--mlock")
    assert table.option("--mlock", last) is None
    assert table.option("--no-mmap", first) == ("f", "--no-mmap")
    assert table.option("--no-mmap", last - 1) == ("n", "--mmap")
    assert table.option("-lm", last) == ("v", "--load-mode")
    assert table.option("-ngl", first) == ("v", "--gpu-layers")
    assert table.accepted("--gpu-layers", first) == ([], True)
    assert table.accepted("--gpu-layers", last) == (["auto", "all"], True)
    assert table.accepted("--split-mode", first) == (["none", "layer", "row"], False)
    assert table.accepted("--split-mode", last) == (["none", "layer", "row", "tensor"], False)
    assert table.accepted("--flash-attn", last) == (
        ["on", "enabled", "true", "1", "off", "disabled", "false", "0", "auto", "-1"], False)
    assert table.accepted("--cache-type-k", last) == (
        ["f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"], False)
    # -ngl's handler took an int until auto/all arrived (a string from @49bfddeca): its variable is read throughout
    assert table.env["LLAMA_ARG_N_GPU_LAYERS"] == [[0, 6, "--gpu-layers", "int"], [7, last, "--gpu-layers", "string"]]
    # a boolean's LLAMA_ARG_NO_* form: the old switch --no-mmap, then read as --mmap's negative (get_value_from_env)
    assert table.env["LLAMA_ARG_NO_MMAP"] == [[0, 6, "--no-mmap", "void"], [7, last - 1, "--mmap", "neg"]]
    assert table.env["LLAMA_ARG_KV_UNIFIED"] == [[fa_value, last, "--kv-unified", "bool"]]
    assert table.env["LLAMA_ARG_KV_SPLIT"] == [[6, 6, "--kv-unified", "void"]]
    assert table.builds[first]["env_switch"] == ["1", "true"] and table.builds[first]["env_bool"] == []
    assert table.builds[last]["env_switch"] == ["on", "enabled", "true", "1"]
    assert table.builds[last]["env_bool"] == ["on", "enabled", "true", "1", "off", "disabled", "false", "0"]
    assert table.option("-p", last) is None  # --prompt is excluded from llama-server


def test_extraction_round_trips_through_the_text_files(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    import gen_llamacpp_tables as gen

    text = (ROOT / "tools/llamacpp-extract/options-b11312.txt").read_text(encoding="utf-8")
    header, options = gen.parse_extract(text)
    assert header["commit"] == "0c1e57098bba43ac29e6e3b677cdceebdd22334f"
    assert gen.render_extract(options, header) == text
    out = tmp_path / "t.json"
    subprocess.run([sys.executable, str(ROOT / "tools/gen_llamacpp_tables.py"), "build", "--out", str(out)],
                   check=True)
    assert json.loads(out.read_text(encoding="utf-8"))["format"] == 3


def test_extractor_reads_a_handler_signature_and_its_words() -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    import gen_llamacpp_tables as gen

    source = """
bool common_arg_utils::is_truthy(const std::string & value) { return value == "on" || value == "1"; }
common_params_context common_params_parser_init(common_params & params, llama_example ex) {
    add_opt(common_arg(
        {"-sm", "--split-mode"}, "{none,layer}",
        "how to split, one of: none, layer", // a comment, with a comma
        [](common_params & params, const std::string & value) {
            if (value == "none") { } else if (value == "layer") { } else { throw std::invalid_argument("x"); }
        }
    ).set_env("LLAMA_ARG_SPLIT_MODE"));
    add_opt(common_arg(
        {"-p", "--prompt"}, "PROMPT", "prompt",
        [](common_params & params, const std::string & value) { params.prompt = value; }
    ).set_excludes({LLAMA_EXAMPLE_SERVER}));
    add_opt(common_arg(
        {"-cb", "--cont-batching"}, {"-nocb", "--no-cont-batching"}, "batching",
        [](common_params & params, bool value) { params.cont_batching = value; }
    ).set_env("LLAMA_ARG_CONT_BATCHING"));
    add_opt(common_arg(
        {"-t"}, "N", "threads",
        [](common_params & params, int value) { params.n = value; }
    ).set_examples({LLAMA_EXAMPLE_BENCH}));
}
"""
    assert gen.extract(source) == [
        {"spellings": ["-sm", "--split-mode"], "neg": [], "kind": "string", "env": "LLAMA_ARG_SPLIT_MODE",
         "values": ["none", "layer"], "int": False},
        {"spellings": ["-cb", "--cont-batching"], "neg": ["-nocb", "--no-cont-batching"], "kind": "bool",
         "env": "LLAMA_ARG_CONT_BATCHING"},
    ]


# -- the checks -------------------------------------------------------------------------------------------------------


def test_every_problem_at_its_own_word_with_the_build_unknown() -> None:
    # every one possible: even what no tabled build accepts may be accepted by a build older than the tables (--mlock
    # rules out the builds newer than b11312, which lacks it)
    assert _rows(_lint(MIXED)) == [
        ("RL520", "possible", 1, 25),  # --n_ctx: in no build
        ("RL520", "possible", 1, 38),  # --mlock: gone in b11312
        ("RL520", "possible", 1, 46),  # --ctx-sise: a typo
        ("RL521", "possible", 1, 66),  # -sm tensor: only from b8942
        ("RL521", "possible", 1, 78),  # -ctk fp8: no build
        ("RL521", "possible", 1, 87),  # -ngl all: integer-only builds
        ("RL522", "possible", 1, 91),  # true: neither option nor value
    ]
    findings = _lint(MIXED)
    assert findings[0].message.startswith(
        "`--n_ctx` is not an option of any llama-server build from b4579 to b11312 (use `--ctx-size`)")
    assert "it exists in b4579-b10454 (use `--load-mode mlock`)" in findings[1].message
    assert "(did you mean `--ctx-size`?)" in findings[2].message
    assert findings[1].missing_facts == ["engine.version"]
    assert "(possible: depends on engine.version: holds on llama.cpp b4579-b10454; unknown on older than b4579; " \
           "set --engine-version V)" in findings[0].message
    assert "(possible: depends on engine.version: holds on llama.cpp b11312; unknown on older than b4579, newer " \
           "than b11312; set --engine-version V)" in findings[1].message


def test_every_problem_definite_on_a_tabled_build() -> None:
    assert _rows(_lint(MIXED, "b11312")) == [
        ("RL520", "definite", 1, 25), ("RL520", "definite", 1, 38), ("RL520", "definite", 1, 46),
        ("RL521", "definite", 1, 78), ("RL522", "definite", 1, 91)]
    assert _rows(_lint(MIXED, "b4579")) == [
        ("RL520", "definite", 1, 25), ("RL520", "definite", 1, 46), ("RL521", "definite", 1, 66),
        ("RL521", "definite", 1, 78), ("RL521", "definite", 1, 87), ("RL522", "definite", 1, 91)]


def test_a_build_between_tables_and_a_release_stay_possible() -> None:
    assert {f.certainty for f in _lint(MIXED, "b6500")} == {"possible"}
    rows = _rows(_lint(MIXED, "v0.3.0"))
    assert rows == [("RL520", "possible", 1, 25), ("RL520", "possible", 1, 38), ("RL520", "possible", 1, 46),
                    ("RL521", "possible", 1, 78), ("RL522", "possible", 1, 91)]


def test_unknown_option_typo_in_compose_on_a_build_image() -> None:
    text = ('services:\n  llm:\n    image: ghcr.io/ggml-org/llama.cpp:server-cuda-b11312\n'
            '    command: ["-m", "/m.gguf", "--ctx-sise", "8192", "--no-mmap"]\n')
    assert _rows(_lint(text, kind="compose", name="compose.yaml")) == [("RL520", "definite", 4, 32),
                                                                       ("RL520", "definite", 4, 54)]


def test_leave_one_out_no_build_accepts_both() -> None:
    # each is refused by every table the other allows; a build beyond the tables on the other's side may have both
    findings = _lint("llama-server -m m.gguf --ctx-size-draft 4096 --load-mode mmap\n")
    assert _rows(findings) == [("RL520", "possible", 1, 24), ("RL520", "possible", 1, 46)]
    assert "holds on llama.cpp b10454-b11312; unknown on newer than b11312;" in findings[0].message
    assert "holds on llama.cpp b4579-b9102; unknown on older than b4579;" in findings[1].message
    assert findings[0].message.startswith("`--ctx-size-draft` is not an option of llama-server b10454-b11312")
    assert "narrowed to the builds that accept the other options here" in findings[0].message


def test_leave_one_out_an_option_every_allowed_build_has_is_fine() -> None:
    # --reasoning-format exists from the second table on, so in every build that has --load-mode (the last two);
    # --load-mode itself is in only some of the builds that have --reasoning-format
    assert _rows(_lint("llama-server -m m.gguf --reasoning-format deepseek --load-mode mmap\n")) == [
        ("RL520", "possible", 1, 52)]
    assert _rows(_lint("llama-server -m m.gguf --reasoning-format deepseek\n")) == [("RL520", "possible", 1, 24)]


def test_stray_word_from_a_variable() -> None:
    assert _rows(_lint("JINJA=true\nllama-server -m /m.gguf --jinja $JINJA -c 8192\n", "b11312")) == [
        ("RL522", "definite", 2, 33)]
    assert _rows(_lint("JINJA=true\nllama-server -m /m.gguf --jinja $JINJA -c 8192\n")) == [
        ("RL522", "possible", 2, 33)]


def test_model_path_without_m_is_a_stray_word() -> None:
    assert _rows(_lint("llama-server /models/qwen.gguf -c 8192\n", "b4579")) == [("RL522", "definite", 1, 14)]
    assert _rows(_lint("llama-server /models/qwen.gguf -c 8192\n")) == [("RL522", "possible", 1, 14)]


def test_unknown_words_and_splices_are_not_stray() -> None:
    assert not _lint("llama-server -m /m.gguf $EXTRA_ARGS -c 8192 --port 8080\n")
    assert not _lint('llama-server -m /m.gguf "$@"\n')


def test_a_clean_launch_passes_on_every_schema() -> None:
    text = "llama-server -m /m.gguf --host 0.0.0.0 --port 8080 -c 8192 -ngl 99 --jinja -np 4 -t 8\n"
    for version in (None, "b4579", "b6500", "b11312", "v0.3.0", "b20000"):
        assert not _lint(text, version), version


def test_llama_cli_and_bench_are_not_checked_against_the_server_table() -> None:
    assert not _lint("llama-bench -m /m.gguf -p 512 -n 128\n")


def test_equals_form_is_rl505_only() -> None:
    # every sdist checked refuses the word (records/witnesses/RL505.json); an unpinned build may be newer
    assert _rows(_lint("llama-server -m /m.gguf --ctx-size=4096\n", "b11312")) == [("RL505", "definite", 1, 25)]
    assert _rows(_lint("llama-server -m /m.gguf --ctx-size=4096\n")) == [("RL505", "possible", 1, 25)]


# -- RL506 and the parser's truthy words ------------------------------------------------------------------------------


@pytest.mark.parametrize("word", ["on", "true", "enabled", "1", "off", "false", "disabled", "0", "auto", "-1"])
def test_fa_with_any_parser_word_passes_on_value_builds(word: str) -> None:
    text = f"llama-server -m /m.gguf -fa {word} -c 4096\n"
    assert not _lint(text, "b8643")
    assert not _lint(text, "b11312")


def test_fa_true_on_an_old_build_is_rl506_only() -> None:
    assert _rows(_lint("llama-server -m /m.gguf -fa true -c 4096\n", "b4579")) == [("RL506", "definite", 1, 25)]


def test_bare_fa_before_an_option_is_rl506_only() -> None:
    assert _rows(_lint("llama-server -m /m.gguf -fa -c 4096\n", "b11312")) == [("RL506", "definite", 1, 25)]


# -- versions ---------------------------------------------------------------------------------------------------------


def test_llamacpp_versions_in_both_schemes() -> None:
    assert parse_engine_version("llama.cpp", "b6500") == Version("build", "b6500", (6500,))
    assert parse_engine_version("llama.cpp", "v0.3.0") == Version("release", "v0.3.0", (0, 3, 0))
    assert parse_engine_version("llama.cpp", "0.3.0") == Version("release", "v0.3.0", (0, 3, 0))
    assert parse_engine_version("llama.cpp", "v0.3.0") < parse_engine_version("llama.cpp", "v0.4.0")
    with pytest.raises(VersionError):
        parse_engine_version("llama.cpp", "v0.3")


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "relialint", *args], capture_output=True, text=True, cwd=cwd,
                          check=False)


@pytest.mark.parametrize("version", ["v0.3.0", "b6500"])
def test_engine_version_on_the_command_line(version: str, tmp_path: Path) -> None:
    script = tmp_path / "serve.sh"
    script.write_text("llama-server -m /m.gguf -c 4096\n", encoding="utf-8")
    result = _cli("facts", str(script), "--engine-version", version, "--format", "json")
    assert result.returncode == 0, result.stderr
    fact = json.loads(result.stdout)["deployments"][0]["facts"]["engine.version"]
    assert fact == {"value": version, "origin": "cli"}


def test_engine_version_in_configuration(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.relialint]\nengine-version = "v0.3.0"\n', encoding="utf-8")
    script = tmp_path / "serve.sh"
    script.write_text("llama-server -m /m.gguf -c 4096\n", encoding="utf-8")
    result = _cli("facts", str(script), "--format", "json")
    fact = json.loads(result.stdout)["deployments"][0]["facts"]["engine.version"]
    assert fact == {"value": "v0.3.0", "origin": "configuration"}


def test_unparsable_version_is_a_usage_error(tmp_path: Path) -> None:
    script = tmp_path / "serve.sh"
    script.write_text("llama-server -m /m.gguf -c 4096\n", encoding="utf-8")
    result = _cli("check", str(script), "--engine-version", "v0.3.x")
    assert result.returncode == 2
    assert "relialint: error: engine.version: not a vLLM (PEP 440) version, llama.cpp build (bNNNN) or llama.cpp " \
           "release (vX.Y.Z): 'v0.3.x'" in result.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.relialint]\nengine-version = "bogus"\n', encoding="utf-8")
    result = _cli("check", str(script))
    assert result.returncode == 2
    assert "pyproject.toml:2:1: error: invalid configuration: engine-version" in result.stdout + result.stderr


# -- the real parser --------------------------------------------------------------------------------------------------

PARSER = ROOT / "tests/fixtures/llamacpp-parser"
KINDS = {"void": "f", "bool": "f", "string": "v", "int": "v", "str_str": "2"}


def _parser_dump(label: str) -> tuple[dict[str, tuple[str, str | None]], dict[str, set[str]]]:
    """The option strings llama-server's own parser registers (tools/llamacpp-real-parser/run.sh): spelling ->
    (kind, LLAMA_ARG_* variable), and the probed words each checked option's handler accepts."""
    options: dict[str, tuple[str, str | None]] = {}
    values: dict[str, set[str]] = {}
    for line in (PARSER / f"server-options-{label}.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("values "):
            name, _, words = line[len("values "):].partition(":")
            values[name] = set(words.split())
            continue
        parts = [p.strip() for p in line.split("|")]
        spellings, kind, env = parts[0].split(), parts[-1], None if parts[-2] == "-" else parts[-2]
        negatives = parts[1].removeprefix("neg:").split() if len(parts) == 4 else []
        for spelling in spellings:
            options[spelling] = (KINDS[kind], env)
        for spelling in negatives:
            options[spelling] = ("n", env)
    return options, values


PROBES = {"none", "layer", "row", "tensor", "graph", "f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0",
          "q5_1", "fp8", "q8", "on", "off", "auto", "true", "false", "enabled", "disabled", "yes", "1", "0", "-1",
          "99", "all", "foo"}


@pytest.mark.parametrize("label", ["b4579", "b8942", "b11312"])
def test_table_is_the_real_parsers_option_list(label: str) -> None:
    table = llamacpp_flags.table()
    index = next(i for i, b in enumerate(table.builds) if b["label"] == label)
    parser, accepted = _parser_dump(label)
    tabled = {s for s in table.options if table.option(s, index) is not None}
    assert sorted(set(parser) - tabled) == []  # missing from the table
    assert sorted(tabled - set(parser)) == []  # extra in the table
    def entry(spelling: str) -> tuple[str, str]:
        found = table.option(spelling, index)
        assert found is not None, spelling
        return found

    assert {s: entry(s)[0] for s in parser} == {s: k for s, (k, _) in parser.items()}
    envs = {env: entry(s)[1] for s, (k, env) in parser.items() if env and k != "n"}
    assert {env: [r[2] for r in table.env[env] if r[0] <= index <= r[1]] for env in envs} == {
        env: [canonical] for env, canonical in envs.items()}
    for name, words in accepted.items():
        canonical = entry(name)[1]
        checked = table.accepted(canonical, index)
        if checked is None:
            assert words == set(), name  # a switch: no value handler
            continue
        assert {w for w in PROBES if llamacpp_flags.fits(w, *checked)} == words, name


def test_releases_are_placed_by_the_version_the_tables_set() -> None:
    table = llamacpp_flags.table()
    last = len(table.builds) - 1
    release = {v: parse_engine_version("llama.cpp", v) for v in ("v0.1.0", "v0.3.0", "v0.5.0", "v0.6.0")}
    # the table vendored in llama-cpp-python 0.3.35 sets 0.1.0, b11312 sets 0.5.0, and the older ones set no version
    # (their CMakeLists.txt predates PR #26839): a release comes after every one of them
    assert table.worlds(release["v0.1.0"]) == ([last - 2, last - 1], False)
    assert table.worlds(release["v0.3.0"]) == ([last - 1, last], False)
    assert table.worlds(release["v0.5.0"]) == ([last - 1, last], False)
    assert table.worlds(release["v0.6.0"]) == ([last], False)
    assert table.worlds(parse_engine_version("llama.cpp", "b11312")) == ([last], True)
    assert table.worlds(parse_engine_version("llama.cpp", "b20000")) == ([last], False)


def test_a_build_between_tables_meets_only_the_tables_that_can_neighbour_it() -> None:
    """A build number no table has lies between its nearest older and newer table: only the tables that can be one
    of those two are its worlds. Three tables are known only within a bracket (llama-cpp-python 0.3.16, 0.3.17,
    0.3.19: b6111-b8501, b6112-b8502, b8504-b8642); the others exactly."""
    table = llamacpp_flags.table()
    label = {i: b["label"] for i, b in enumerate(table.builds)}

    def worlds(build: str) -> list[str]:
        indices, exact = table.worlds(parse_engine_version("llama.cpp", build))
        assert not exact
        return [label[i] for i in indices]

    assert worlds("b3000") == ["b4579"]
    assert worlds("b5000") == ["b4875", "b5308"]
    assert worlds("b9000") == ["b8942", "b9102"]
    assert worlds("b10400") == ["b9874", "b10454"]
    assert worlds("b12000") == ["b11312"]
    # b6000 is below every bracketed table: only @4227c9be4 (b6111 at least) can come next after b5904
    assert worlds("b6000") == ["b5904", "@4227c9be4"]
    # b8000 may lie anywhere among the bracketed tables; b8942 comes after @c0159f9c1 (b8642 at most)
    assert worlds("b8000") == ["b5904", "@4227c9be4", "@49bfddeca", "@c0159f9c1"]
    assert worlds("b8520") == ["@49bfddeca", "@c0159f9c1", "b8942"]
    # a table's own bracket, narrowed by commit order: @49bfddeca is at least one build after @4227c9be4
    assert table.brackets[6:9] == [(6111, 8501), (6112, 8502), (8504, 8642)]


@pytest.mark.parametrize(("text", "version"), [
    ("llama-server -m /m.gguf --mlock\n", "b10400"),  # --mlock: every table up to b10454, gone in b11312
    ("llama-server -m /m.gguf --api-prefix /v1\n", "b6000"),  # --api-prefix: from b5904 on
    ("llama-server -m /m.gguf --mlock\n", "b9000"),
])
def test_no_finding_from_a_table_the_build_number_rules_out(text: str, version: str) -> None:
    assert _rows(_lint(text, version)) == []


def test_a_table_the_build_can_neighbour_still_makes_it_possible() -> None:
    findings = _lint("llama-server -m /m.gguf --mlock\n", "b11000")
    assert _rows(findings) == [("RL520", "possible", 1, 25)]
    assert findings[0].message.startswith("`--mlock` is not an option of llama-server b11312;")
    # --cpu-moe exists from @4227c9be4 on: b6000 lies between b5904 (without it) and that table
    findings = _lint("llama-server -m /m.gguf --cpu-moe\n", "b6000")
    assert _rows(findings) == [("RL520", "possible", 1, 25)]
    assert findings[0].message.startswith("`--cpu-moe` is not an option of llama-server b5904;")
    findings = _lint("llama-server -m /m.gguf --api-prefix /v1\n", "b5600")
    assert _rows(findings) == [("RL520", "possible", 1, 25)]
    assert findings[0].message.startswith("`--api-prefix` is not an option of llama-server b5308-b5763;")


@pytest.mark.parametrize(("tag", "version"), [("server-cuda-v0.4.1", "v0.4.1"), ("server-v0.5.0", "v0.5.0"),
                                              ("server-cuda-b6123", "b6123")])
def test_image_tag_gives_the_build_or_the_release(tag: str, version: str) -> None:
    text = (f"services:\n  llm:\n    image: ghcr.io/ggml-org/llama.cpp:{tag}\n"
            '    command: ["-m", "/m.gguf", "--mlock"]\n')
    result = lint_text(text, "compose.yaml", "compose", Options(target=Target()))
    (deployment,) = result.deployments
    fact = deployment.facts.get("engine.version")
    assert fact is not None and str(fact.value) == version and fact.origin == "image"
    rl520 = [(f.certainty, f.line, f.column) for f in result.findings if f.code == "RL520"]
    assert rl520 == ([] if version == "b6123" else [("possible", 4, 32)])


def test_bare_fa_on_a_release_is_definite_from_the_tables() -> None:
    # v0.3.0 does not compare with b6327, but every build it can be takes a value for -fa
    assert _rows(_lint("llama-server -m /m.gguf -fa -c 4096\n", "v0.3.0")) == [("RL506", "definite", 1, 25)]
    assert not _lint("llama-server -m /m.gguf -fa on -c 4096\n", "v0.3.0")
    # v0.1.0 lies after the last table without a version and up to the one vendored in llama-cpp-python 0.3.35:
    # both take a value for -fa
    assert _rows(_lint("llama-server -m /m.gguf -fa -c 4096\n", "v0.1.0")) == [("RL506", "definite", 1, 25)]


def test_bare_fa_on_an_image_pinning_a_release() -> None:
    # the image tag's release reaches the parser itself: the option tables decide what -fa takes (a build threshold
    # compared with a release was an internal error)
    script = "docker run ghcr.io/ggml-org/llama.cpp:server-v0.4.1 -m /m.gguf -fa -c 4096\n"
    result = lint_text(script, "serve.sh", "shell", Options())
    assert (result.errors, _rows([f for f in result.findings if f.code == "RL506"])) == (
        [], [("RL506", "definite", 1, 64)])


def test_fa_with_a_word_the_parser_lacks_is_reported_once() -> None:
    assert _rows(_lint("llama-server -m /m.gguf -fa yes\n", "b11312")) == [("RL506", "definite", 1, 25)]
    assert _rows(_lint("llama-server -m /m.gguf -fa yes\n", "b4579")) == [("RL522", "definite", 1, 29)]


def test_llama_arg_values_the_build_rejects_are_rl521_at_the_variable() -> None:
    text = ("export LLAMA_ARG_SPLIT_MODE=tensor\nexport LLAMA_ARG_CACHE_TYPE_K=fp8\nexport LLAMA_ARG_N_GPU_LAYERS=all\n"
            "export LLAMA_ARG_FLASH_ATTN=on\nllama-server -m /m.gguf -ngl 99\n")
    assert _rows(_lint(text)) == [("RL521", "possible", 1, 8), ("RL521", "possible", 2, 8),
                                  ("RL521", "possible", 3, 8)]
    assert _rows(_lint(text, "b4579")) == [("RL521", "definite", 1, 8), ("RL521", "definite", 2, 8),
                                           ("RL521", "definite", 3, 8)]
    assert _rows(_lint(text, "b11312")) == [("RL521", "definite", 2, 8)]
    assert _lint(text, "b11312")[0].message.startswith(
        "`LLAMA_ARG_CACHE_TYPE_K=fp8` is not a value of `--cache-type-k` on llama-server b11312: it takes f32, f16")


def test_llama_arg_values_in_an_env_file() -> None:
    findings = _lint("LLAMA_ARG_CACHE_TYPE_V=q8\nLLAMA_ARG_CTX_SIZE=8192\n", kind="env", name="llama.env")
    assert _rows(findings) == [("RL521", "possible", 1, 1)]
    findings = _lint("LLAMA_ARG_CACHE_TYPE_V=q8\nLLAMA_ARG_CTX_SIZE=8192\n", "b9102", kind="env", name="llama.env")
    assert _rows(findings) == [("RL521", "definite", 1, 1)]
