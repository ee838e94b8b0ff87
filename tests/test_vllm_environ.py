"""vLLM's environment variables as the released wheels read and validate them (issue 22): names read outside
envs.environment_variables (in another module, in the compiled kernels) are vLLM's, so RL504 says nothing of them;
with --fail-on-environ-validation (0.17.0 and newer) every VLLM_* name envs.environment_variables does not list stops
the start-up (RL514). Exact code, certainty, line and column, through the whole linter."""

from __future__ import annotations

from typing import Any

import pytest

from relialint.engines import flagcheck
from relialint.engines.versioning import parse_engine_version
from relialint.run.lint import Options, Target, lint_text

REFUSES = 'with --fail-on-environ-validation vLLM refuses to start ("Unknown vLLM environment variable detected")'


def _found(text: str, version: str | None = None, kind: str = "shell", name: str = "serve.sh",
           codes: tuple[str, ...] = ("RL504", "RL514")) -> list[tuple[Any, ...]]:
    run = lint_text(text, name, kind, Options(target=Target(engine_version=version)))
    return [(f.code, f.certainty, f.line, f.column, f.message) for f in run.findings if f.code in codes]


def _compose(version: str, command: str, env: str) -> str:
    return (f"services:\n  llm:\n    image: vllm/vllm-openai:v{version}\n    command: {command}\n"
            f"    environment:\n      {env}\n")


# -- the table: names read outside envs.environment_variables -------------------------------------------------------


def test_the_compiled_all_reduce_kernel_reads_its_variable_from_0_10_2() -> None:
    table = flagcheck.vllm_table()
    assert table.env_span("VLLM_CUSTOM_ALLREDUCE_ALGO") == "0.10.2-0.33.0"
    index = table.versions.index("0.20.0")
    assert table.read_where("VLLM_CUSTOM_ALLREDUCE_ALGO", index) == "so:vllm/_C.abi3.so"
    assert not table.listed("VLLM_CUSTOM_ALLREDUCE_ALGO", index)


def test_batch_invariance_is_read_from_0_11_1_and_listed_from_0_19_0() -> None:
    table = flagcheck.vllm_table()
    assert table.env_span("VLLM_BATCH_INVARIANT") == "0.11.1-0.33.0"
    where = table.read_where("VLLM_BATCH_INVARIANT", table.versions.index("0.11.1"))
    assert where == "py:vllm/model_executor/layers/batch_invariant.py"
    assert next(v for i, v in enumerate(table.versions) if table.listed("VLLM_BATCH_INVARIANT", i)) == "0.19.0"


@pytest.mark.parametrize(("version", "env"), [
    ("0.20.0", "VLLM_CUSTOM_ALLREDUCE_ALGO: 1stage"),  # the kernel reads it: the audit's false RL504
    ("0.10.2", "VLLM_CUSTOM_ALLREDUCE_ALGO: 2stage"),
    ("0.11.1", "VLLM_BATCH_INVARIANT: '1'"),  # batch_invariant.py reads it through a name bound to the string
])
def test_rl504_is_silent_on_a_variable_read_outside_envs_py(version: str, env: str) -> None:
    assert _found(_compose(version, '["Qwen/Qwen3-8B"]', env), kind="compose", name="compose.yaml") == []


def test_rl504_still_fires_before_the_kernel_reads_it() -> None:
    assert _found(_compose("0.10.1", '["Qwen/Qwen3-8B"]', "VLLM_CUSTOM_ALLREDUCE_ALGO: 1stage"), kind="compose",
                  name="compose.yaml") == [
        ("RL504", "definite", 6, 7, "vLLM 0.10.1 does not read `VLLM_CUSTOM_ALLREDUCE_ALGO` (read in "
         "0.10.2-0.33.0): the setting silently does nothing")]


# -- RL514: --fail-on-environ-validation -----------------------------------------------------------------------------


def test_the_kernels_variable_stops_0_20_0_with_the_option() -> None:
    text = _compose("0.20.0", '["Qwen/Qwen3-8B", "--fail-on-environ-validation"]',
                    "VLLM_CUSTOM_ALLREDUCE_ALGO: 1stage")
    assert _found(text, kind="compose", name="compose.yaml") == [
        ("RL514", "definite", 6, 7, "`VLLM_CUSTOM_ALLREDUCE_ALGO` is not in envs.environment_variables of vLLM "
         f"0.20.0 (vLLM reads it only in vllm/_C.abi3.so): {REFUSES}")]


def test_each_unlisted_variable_at_its_own_line_and_a_listed_one_passes() -> None:
    text = ("export VLLM_LOGGING_LEVEL=DEBUG\nexport VLLM_REPO_URL=https://example.org/x.git\n"
            "export VLLM_USE_V1=1\nvllm serve m --fail-on-environ-validation\n")
    assert _found(text, "0.30.0") == [
        ("RL514", "definite", 2, 8, "`VLLM_REPO_URL` is not in envs.environment_variables of vLLM 0.30.0 (no vLLM "
         f"release reads it): {REFUSES}"),
        ("RL504", "definite", 3, 8, "vLLM 0.30.0 does not read `VLLM_USE_V1` (read in 0.6.6.post1-0.11.0): the "
         "setting silently does nothing"),
        ("RL514", "definite", 3, 8, "`VLLM_USE_V1` is not in envs.environment_variables of vLLM 0.30.0 (listed in "
         f"vLLM 0.6.6.post1-0.11.0): {REFUSES}"),
    ]


def test_only_the_option_set_last_stops_and_only_where_it_exists() -> None:
    def rows(options: str, version: str) -> list[tuple[Any, ...]]:
        found = _found(f"export VLLM_REPO_URL=x\nvllm serve m {options}\n", version, codes=("RL504", "RL507", "RL514"))
        return [row[:4] for row in found]

    assert rows("--fail-on-environ-validation", "0.17.0") == [("RL514", "definite", 1, 8)]
    assert rows("", "0.17.0") == []
    assert rows("--fail-on-environ-validation --no-fail-on-environ-validation", "0.17.0") == []
    assert rows("--no-fail-on-environ-validation --fail-on-environ-validation", "0.17.0") == [
        ("RL514", "definite", 1, 8)]
    # 0.16.0 has no such option: it refuses it as an unknown option (RL507), never validates the environment
    assert rows("--fail-on-environ-validation", "0.16.0") == [("RL507", "definite", 2, 14)]


def test_the_option_in_a_config_file(tmp_path: Any) -> None:
    (tmp_path / "serve.yaml").write_text("model: Qwen/Qwen3-8B\nfail-on-environ-validation: true\n")
    (tmp_path / "serve.sh").write_text("export VLLM_TEAM=inference\nvllm serve --config serve.yaml\n")
    from relialint.run.lint import lint_paths

    run = lint_paths([str(tmp_path / "serve.sh")], Options(target=Target(engine_version="0.25.0")))
    assert [(f.code, f.certainty, f.line, f.column) for f in run.findings if f.code == "RL514"] == [
        ("RL514", "definite", 1, 8)]


def test_version_unknown_the_options_narrow_it() -> None:
    # the option itself allows 0.17.0-0.33.0: a name none of them lists holds on every one; a release newer than
    # the tables may list it, so it is possible with the version unknown, definite with a range inside the tables
    assert [(*row[:4], row[4][row[4].index(" (possible"):]) for row in _found("export VLLM_TEAM=x\nvllm serve m "
                                                        "--fail-on-environ-validation\n")] == [
        ("RL514", "possible", 1, 8, " (possible: depends on engine.version: holds on vLLM 0.17.0-0.33.0; unknown on "
                                    "newer than 0.33.0; set --engine-version V)")]
    assert [row[:4] for row in _found('pip install "vllm>=0.17,<0.33"\nexport VLLM_TEAM=x\n'
                                      "vllm serve m --fail-on-environ-validation\n")] == [("RL514", "definite", 2, 8)]
    # VLLM_BATCH_INVARIANT is listed from 0.19.0: possible, decided by the version
    run = lint_text("VLLM_BATCH_INVARIANT=1 vllm serve m --fail-on-environ-validation\n", "serve.sh", "shell",
                    Options(target=Target()))
    (finding,) = [f for f in run.findings if f.code == "RL514"]
    assert (finding.certainty, finding.line, finding.column, finding.missing_facts) == (
        "possible", 1, 1, ["engine.version"])
    assert finding.message.startswith("`VLLM_BATCH_INVARIANT` is not in envs.environment_variables of vLLM "
                                      "0.17.0-0.18.1 ")


def test_a_pre_release_and_a_newer_version_stay_possible() -> None:
    verdict = flagcheck.check_vllm_environ("VLLM_TEAM", parse_engine_version("vllm", "0.34.0"))
    assert verdict.problem is not None and not verdict.certain
    verdict = flagcheck.check_vllm_environ("VLLM_BATCH_INVARIANT", parse_engine_version("vllm", "0.19.0rc1"))
    assert verdict.problem is not None and not verdict.certain  # 0.18.1 lacks it, 0.19.0 lists it
    assert flagcheck.check_vllm_environ("VLLM_LOGGING_LEVEL", parse_engine_version("vllm", "0.34.0")).problem is None
