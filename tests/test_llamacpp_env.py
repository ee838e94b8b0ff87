"""llama-server's LLAMA_ARG_* variables, build by build (issue 25): which option each sets in each tabled build and
how the build reads its value (data/llamacpp_flags.json, from each vendored common/arg.cpp), the facts a variable
sets with its provenance, RL527 for a variable the build does nothing with, RL521 for a value its handler throws
on. Exact code, certainty, line and column."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from relialint.engines import llamacpp_flags
from relialint.run.lint import Finding, Options, Target, lint_text
from tests.test_launch_shapes import facts

ROOT = Path(__file__).resolve().parent.parent
ENV_RECORDS = ("RL521", "RL527")


def _lint(text: str, version: str | None = None, kind: str = "env", name: str = "llama.env") -> list[Finding]:
    options = Options(target=Target(engine_version=version))
    return [f for f in lint_text(text, name, kind, options).findings if f.code in ENV_RECORDS]


def _rows(findings: list[Finding]) -> list[tuple[str, str, int, int]]:
    return [(f.code, f.certainty, f.line, f.column) for f in findings]


# -- the tables -------------------------------------------------------------------------------------------------------


def test_extractor_reads_how_each_build_reads_a_variable() -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    import gen_llamacpp_tables as gen

    early = """
    // handle environment variables
    for (auto & opt : ctx_arg.options) {
        if (opt.get_value_from_env(value)) {
            if (opt.handler_void && (value == "1" || value == "true")) {
                opt.handler_void(params);
            }
        }
    }
    // handle command line arguments
"""
    late = """
bool common_arg_utils::is_truthy(const std::string & value) { return value == "on" || value == "1"; }
bool common_arg_utils::is_falsey(const std::string & value) { return value == "off" || value == "0"; }
bool common_arg::get_value_from_env(std::string & output) const {
    std::string neg_env = env;
    string_replace_all(neg_env, "LLAMA_ARG_", "LLAMA_ARG_NO_");
}
    // handle environment variables
            if (opt.handler_void && is_truthy(value)) { opt.handler_void(params); }
            if (opt.handler_bool) { opt.handler_bool(params, parse_bool_value(value)); }
    // handle command line arguments
"""
    assert gen.env_rules(early) == {"env_switch": "1 true", "env_bool": "-", "env_negative": "-"}
    assert gen.env_rules(late) == {"env_switch": "on 1", "env_bool": "on 1 off 0", "env_negative": "LLAMA_ARG_NO_"}


def test_each_variable_maps_to_its_option_per_build() -> None:
    table = llamacpp_flags.table()
    last = len(table.builds) - 1
    assert llamacpp_flags.env_readers("LLAMA_ARG_KV_UNIFIED") == list(range(7, last + 1))
    assert llamacpp_flags.env_readers("LLAMA_ARG_KV_SPLIT") == [6]
    assert llamacpp_flags.env_read("LLAMA_LOG_FILE", 10) == ("--log-file", "string")
    assert llamacpp_flags.env_read("LLAMA_LOG_FILE", 11) is None
    assert llamacpp_flags.env_read("LLAMA_ARG_LOG_FILE", 11) == ("--log-file", "string")
    assert llamacpp_flags.env_read("LLAMA_ARG_DRAFT_MAX", 6) == ("--draft-max", "int")
    assert llamacpp_flags.env_read("LLAMA_ARG_DRAFT_MAX", 7) == ("--draft", "int")


def test_how_a_build_reads_a_value() -> None:
    effect = llamacpp_flags.env_effect
    assert effect("LLAMA_ARG_FLASH_ATTN", "on", 0).kind == "ignored"  # -fa a switch: only 1 or true apply it
    assert (effect("LLAMA_ARG_FLASH_ATTN", "true", 0).kind, effect("LLAMA_ARG_FLASH_ATTN", "true", 0).value) == (
        "set", "true")
    assert effect("LLAMA_ARG_FLASH_ATTN", "on", 7).value == "on"
    assert effect("LLAMA_ARG_KV_UNIFIED", "yes", 15).kind == "refused"  # parse_bool_value throws
    assert effect("LLAMA_ARG_KV_UNIFIED", "off", 15).value == "false"
    assert effect("LLAMA_ARG_NO_KV_UNIFIED", "0", 15).value == "false"  # any value of the NO_ form means false
    assert effect("LLAMA_ARG_THREADS", "auto", 0).kind == "refused"  # std::stoi
    assert effect("LLAMA_ARG_THREADS", "8", 0).value == "8"
    assert effect("LLAMA_ARG_CTX", "8192", 15).kind == "unread"


# -- facts and their provenance ---------------------------------------------------------------------------------------


def test_a_variable_sets_its_option_only_where_every_allowed_build_reads_it(tmp_path: Path) -> None:
    text = "LLAMA_ARG_MODEL=/m.gguf\nLLAMA_ARG_N_PARALLEL=4\nLLAMA_ARG_KV_UNIFIED=1\n"
    (unknown,) = facts(tmp_path, "llama.env", text)
    assert unknown["flag.llama.cpp.parallel"] == ("4", "env", 2, 1)
    assert unknown["@notes"][0]["flag.llama.cpp.parallel"] == (
        "LLAMA_ARG_N_PARALLEL sets --parallel (llama-server b4579-b11312)")
    assert "flag.llama.cpp.kv-unified" not in unknown  # b4579-@4227c9be4 do not read it: unknown
    (late,) = facts(tmp_path, "llama.env", text, "--engine-version", "b11312")
    assert late["flag.llama.cpp.kv-unified"] == ("true", "env", 3, 1)
    assert late["@notes"][0]["flag.llama.cpp.kv-unified"] == (
        "LLAMA_ARG_KV_UNIFIED sets --kv-unified (llama-server b11312; read by @49bfddeca-b11312)")


def test_a_pinned_old_build_leaves_an_unread_option_unset(tmp_path: Path) -> None:
    compose = ("services:\n  llm:\n    image: ghcr.io/ggml-org/llama.cpp:server-cuda-b5763\n    environment:\n"
               "      - LLAMA_ARG_KV_UNIFIED=1\n      - LLAMA_ARG_FLASH_ATTN=1\n")
    (d,) = facts(tmp_path, "compose.yaml", compose)
    assert "flag.llama.cpp.kv-unified" not in d  # b5763 reads no such variable: the option is not set
    assert d["llama.flash_attn"] == ("on", "env", 6, 9)
    (new,) = facts(tmp_path, "compose.yaml", compose.replace("b5763", "b11312"))
    assert new["flag.llama.cpp.kv-unified"] == ("true", "env", 5, 9)  # b11312 reads it
    # the same on b11312, which reads it: RL320 (slots split the context) does not fire from b8502 with it
    later = compose.replace("b5763", "b11312") + "      - LLAMA_ARG_N_PARALLEL=4\n"
    assert [f.code for f in lint_text(later, "compose.yaml", "compose", Options()).findings if f.code == "RL320"] == []
    assert [f.code for f in lint_text(compose + "      - LLAMA_ARG_N_PARALLEL=4\n", "compose.yaml", "compose",
                                      Options()).findings if f.code == "RL320"] == ["RL320"]


def test_a_switch_value_some_builds_ignore_keeps_the_value_the_others_apply(tmp_path: Path) -> None:
    (d,) = facts(tmp_path, "llama.env", "LLAMA_ARG_MODEL=/m.gguf\nLLAMA_ARG_FLASH_ATTN=auto\n")
    assert "flag.llama.cpp.flash-attn" not in d  # ignored by b4579-@4227c9be4: unknown as written
    assert d["llama.flash_attn"] == ("auto", "env", 2, 1)
    assert d["@notes"][0]["llama.flash_attn"] == (
        "LLAMA_ARG_FLASH_ATTN sets --flash-attn (llama-server @49bfddeca-b11312; read by b4579-b11312)")
    # the build stated afterwards (--engine-version): judged again over that build alone, which ignores it
    (old,) = facts(tmp_path, "llama.env", "LLAMA_ARG_MODEL=/m.gguf\nLLAMA_ARG_FLASH_ATTN=auto\n",
                   "--engine-version", "b4579")
    assert "llama.flash_attn" not in old


# -- RL527: a variable the build does nothing with --------------------------------------------------------------------


def test_a_misspelt_name_is_definite_whatever_the_build_with_the_name_to_use() -> None:
    text = "LLAMA_ARG_MODEL=/m.gguf\nLLAMA_ARG_CTX=8192\nLLAMA_ARG_N_GPU_LAYER=99\nLLAMA_CACHE=/c\n"
    found = _lint(text)
    assert _rows(found) == [("RL527", "definite", 2, 1), ("RL527", "definite", 3, 1)]
    assert found[0].message.startswith("`LLAMA_ARG_CTX` is read by no llama-server build from b4579 to b11312: it "
                                       "does nothing (did you mean `LLAMA_ARG_CTX_SIZE`?)")
    assert "(did you mean `LLAMA_ARG_N_GPU_LAYERS`?)" in found[1].message


def test_a_misspelt_name_whose_value_is_unknown() -> None:
    compose = ("services:\n  llm:\n    image: ghcr.io/ggml-org/llama.cpp:server-cuda-b11312\n    environment:\n"
               "      - LLAMA_ARG_CTX=${CTX}\n      - LLAMA_ARG_N_PARALLEL=${NP}\n")
    assert _rows(_lint(compose, kind="compose", name="compose.yaml")) == [("RL527", "definite", 5, 9)]


def test_a_variable_of_newer_builds_per_build() -> None:
    text = "LLAMA_ARG_MODEL=/m.gguf\nLLAMA_ARG_KV_UNIFIED=1\n"
    assert _rows(_lint(text)) == [("RL527", "possible", 2, 1)]
    assert _rows(_lint(text, "b5763")) == [("RL527", "definite", 2, 1)]
    assert _rows(_lint(text, "b11312")) == []
    assert "(for that option @4227c9be4 reads `LLAMA_ARG_KV_SPLIT`)" in _lint(text)[0].message


def test_a_renamed_variable_names_the_new_one() -> None:
    (finding,) = _lint("LLAMA_ARG_MODEL=/m.gguf\nLLAMA_LOG_FILE=/var/log/l.log\n", "b9874")
    assert _rows([finding]) == [("RL527", "definite", 2, 1)]
    assert finding.message.startswith("`LLAMA_LOG_FILE` is not read by llama-server b9874: it sets `--log-file` only "
                                      "in @49bfddeca-b9102 (for that option b9874 reads `LLAMA_ARG_LOG_FILE`)")
    assert _lint("LLAMA_ARG_MODEL=/m.gguf\nLLAMA_LOG_FILE=/var/log/l.log\n", "b9102") == []


def test_a_switch_value_an_old_build_ignores() -> None:
    text = "LLAMA_ARG_MODEL=/m.gguf\nLLAMA_ARG_FLASH_ATTN=on\n"
    (finding,) = _lint(text, "b4579")
    assert _rows([finding]) == [("RL527", "definite", 2, 1)]
    assert finding.message.startswith("`LLAMA_ARG_FLASH_ATTN=on` is ignored by llama-server b4579: there "
                                      "`--flash-attn` is a switch whose variable is applied only for 1 or true")
    assert _lint("LLAMA_ARG_MODEL=/m.gguf\nLLAMA_ARG_FLASH_ATTN=1\n", "b4579") == []
    assert _lint("LLAMA_ARG_MODEL=/m.gguf\nLLAMA_ARG_FLASH_ATTN=off\n", "b4579") == []  # off as meant
    assert _rows(_lint(text)) == [("RL527", "possible", 2, 1)]


def test_in_a_compose_environment_and_a_kubernetes_env() -> None:
    compose = ("services:\n  llm:\n    image: ghcr.io/ggml-org/llama.cpp:server-cuda-b11312\n    environment:\n"
               "      LLAMA_ARG_CTX: \"8192\"\n")
    assert _rows(_lint(compose, kind="compose", name="compose.yaml")) == [("RL527", "definite", 5, 7)]
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: l}\nspec:\n  containers:\n    - name: s\n"
           "      image: ghcr.io/ggml-org/llama.cpp:server-cuda-b5763\n      env:\n"
           "        - name: LLAMA_ARG_TOP_K\n          value: \"40\"\n")
    assert _rows(_lint(pod, kind="kubernetes", name="pod.yaml")) == [("RL527", "definite", 9, 17)]


def test_a_command_line_option_narrows_the_builds_a_variable_is_judged_on() -> None:
    # --kv-unified-per-slot exists only in b11312, which reads LLAMA_ARG_KV_UNIFIED
    text = "LLAMA_ARG_KV_UNIFIED=1 llama-server -m /m.gguf --kv-unified-per-slot 4096\n"
    assert _rows(_lint(text, kind="shell", name="serve.sh")) == []
    plain = "LLAMA_ARG_KV_UNIFIED=1 llama-server -m /m.gguf -c 4096\n"
    assert _rows(_lint(plain, kind="shell", name="serve.sh")) == [("RL527", "possible", 1, 1)]


# -- RL521: a value the handler throws on -----------------------------------------------------------------------------


def test_integer_and_boolean_values_are_checked_as_the_parser_does() -> None:
    text = "LLAMA_ARG_MODEL=/m.gguf\nLLAMA_ARG_THREADS=auto\nLLAMA_ARG_MMAP=no\nLLAMA_ARG_KV_UNIFIED=yes\n"
    found = _lint(text, "b9665")
    assert _rows(found) == [("RL521", "definite", 2, 1), ("RL521", "definite", 3, 1), ("RL521", "definite", 4, 1)]
    by_line = {f.line: f.message for f in found}
    assert by_line[2].startswith("`LLAMA_ARG_THREADS=auto` is not a value of `--threads` on llama-server b9665: it "
                                 "takes an integer only")
    assert by_line[3].startswith("`LLAMA_ARG_MMAP=no` is not a value of `--mmap` on llama-server b9665: it takes "
                                 "on, enabled, true, 1, off, disabled, false, 0")
    assert _rows(_lint("LLAMA_ARG_MODEL=/m.gguf\nLLAMA_ARG_THREADS=8\nLLAMA_ARG_MMAP=off\n", "b9665")) == []
    # an old build reads no LLAMA_ARG_MMAP (RL527), and its switches take any value
    assert _rows(_lint("LLAMA_ARG_MODEL=/m.gguf\nLLAMA_ARG_MMAP=no\n", "b4579")) == [("RL527", "definite", 2, 1)]


# -- RL528: a boolean's LLAMA_ARG_NO_* variable given a false word -----------------------------------------------


def test_a_false_no_variable_turns_the_option_off_from_49bfddeca() -> None:
    text = "LLAMA_ARG_MODEL=/m.gguf\nLLAMA_ARG_NO_MMAP=false\nLLAMA_ARG_NO_KV_UNIFIED=0\n"
    options = Options(target=Target(engine_version="b9874"))
    found = [f for f in lint_text(text, "llama.env", "env", options).findings if f.code == "RL528"]
    assert _rows(found) == [("RL528", "definite", 2, 1), ("RL528", "definite", 3, 1)]
    assert found[0].message.startswith("`LLAMA_ARG_NO_MMAP=false` turns `--mmap` off on llama-server b9874: a "
                                       "boolean's LLAMA_ARG_NO_* variable is read as false whatever its value")
    old = [f for f in lint_text(text, "llama.env", "env", Options(target=Target(engine_version="b4579"))).findings
           if f.code == "RL528"]
    assert old == []  # --no-mmap was a switch of its own: a false word left it off, as meant
    unknown = [f for f in lint_text(text, "llama.env", "env", Options()).findings if f.code == "RL528"]
    assert _rows(unknown) == [("RL528", "possible", 2, 1), ("RL528", "possible", 3, 1)]


def test_a_false_no_variable_sets_the_option_false(tmp_path: Path) -> None:
    (d,) = facts(tmp_path, "llama.env", "LLAMA_ARG_MODEL=/m.gguf\nLLAMA_ARG_NO_KV_UNIFIED=0\n",
                 "--engine-version", "b11312")
    assert d["flag.llama.cpp.kv-unified"] == ("false", "env", 2, 1)


def test_a_generated_file_of_misspelt_names_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """5,000 names no build reads: the first MAX_INSTANCES are reported, and only SUGGESTIONS of them are compared
    with every real name (the costly part), whatever the file's size."""
    import difflib

    calls = []
    real = difflib.get_close_matches

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(difflib, "get_close_matches", counting)
    env = {f"LLAMA_ARG_Q{i:05d}X": "1" for i in range(5000)}
    found = llamacpp_flags.check_unread(env, [], None)
    assert len(found) == 100
    assert len(calls) == llamacpp_flags.SUGGESTIONS


def test_a_variable_whose_option_the_command_line_also_gives_is_overridden(tmp_path: Path) -> None:
    text = ("services:\n  llm:\n    image: ghcr.io/ggml-org/llama.cpp:server-cuda-b5763\n    environment:\n"
            "      - LLAMA_ARG_N_PARALLEL=4\n      - LLAMA_ARG_CTX_SIZE=32768\n"
            "    command: [\"-m\", \"/models/q.gguf\", \"-c\", \"8192\"]\n")
    (found,) = facts(tmp_path, "compose.yaml", text)
    assert found["llama.env_overridden"] == ("LLAMA_ARG_CTX_SIZE", "env", 6, 9)
    assert found["flag.llama.cpp.ctx-size"] == ("8192", "flag", 7, 39)  # at the -c
    (clean,) = facts(tmp_path, "compose.yaml", text.replace('"-c", "8192"', '"--port", "8080"'))
    assert clean["llama.env_overridden"] == (None, "inferred", None, None)


# -- an open environment: the options its variables may set -----------------------------------------------------------

_LAUNCH = r"C:\AI\llama-b5000-bin-win-cuda-cu12.4-x64\llama-server.exe -m D:\m\Qwen2.5-7B-Instruct-Q4_K_M.gguf -ngl 99"
_SLOTS = ("RL320", "RL346")


def _slot_rows(text: str, kind: str, name: str) -> list[tuple[str, str, int, int, bool, list[str]]]:
    found = lint_text(text, name, kind, Options()).findings
    return [(f.code, f.certainty, f.line, f.column, f.shown, list(f.missing_facts)) for f in found if f.code in _SLOTS]


def test_a_windows_launcher_leaves_an_option_its_variable_may_set_open() -> None:
    """A .bat inherits the user's environment, and b5000 reads LLAMA_ARG_N_PARALLEL before the command line: with no
    -np the single default slot (RL346) is possible, not definite, and shown by the pinned build; RL320, which needs
    several slots that nothing in the file sets, is possible and counted, not listed."""
    rows = _slot_rows(f"@echo off\n{_LAUNCH}\n", "windows", "serve.bat")
    assert rows == [("RL320", "possible", 2, 1, False, ["flag.llama.cpp.parallel"]),
                    ("RL346", "possible", 2, 1, True, ["flag.llama.cpp.parallel"])]


def test_a_shell_script_is_the_whole_launch_so_the_option_is_unset() -> None:
    """The same line in a shell script: its environment is the file's, so no -np is known unset (RL346 definite) and
    RL320 cannot hold."""
    line = "/opt/llama-b5000-bin-ubuntu-x64/llama-server -m /m/Qwen2.5-7B-Instruct-Q4_K_M.gguf -ngl 99"
    assert _slot_rows(f"#!/bin/sh\n{line}\n", "shell", "serve.sh") == [("RL346", "definite", 2, 1, True, [])]


def test_an_option_on_the_launcher_wins_over_any_variable() -> None:
    """-np 4 on the line: llama-server applies the command line after the variables, so the option is known."""
    line = f"{_LAUNCH} -np 4 -c 8192"
    rows = _slot_rows(f"@echo off\n{line}\n", "windows", "serve.bat")
    assert rows == [("RL320", "definite", 2, line.index("-np") + 1, True, [])]  # at -np, column 108


def test_a_default_an_open_variable_may_replace_is_not_assumed(tmp_path: Path) -> None:
    """llama-server's default -ub/-b fill a complete command line's unset options only where no variable of an open
    environment may set them: a shell script states them, a Windows launcher leaves them open."""
    line = "/opt/llama-b5000-bin-ubuntu-x64/llama-server -m /m/x.gguf"
    shell = facts(tmp_path, "serve.sh", f"#!/bin/sh\n{line}\n")[0]
    assert (shell["llama.ubatch"][:2], shell["llama.batch"][:2]) == ((512, "default"), (2048, "default"))
    windows = facts(tmp_path, "serve.bat", f"@echo off\n{_LAUNCH}\n")[0]
    assert "llama.ubatch" not in windows and "llama.batch" not in windows
    assert "flag.llama.cpp.parallel" not in windows and windows["flag.llama.cpp.n-gpu-layers"][:2] == ("99", "flag")
