"""The generated flag tables: reproducible from the committed inputs, fast to load, and right on known facts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from relialint.engines import flagcheck, llamacpp_flags
from relialint.engines.versioning import parse_engine_version
from tests.tools import load_tool
from tests.work import cpu_budget

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "src" / "relialint" / "data"


@pytest.mark.parametrize(("tool", "data"), [("gen_vllm_tables", "vllm_flags.json"),
                                            ("gen_llamacpp_tables", "llamacpp_flags.json")])
def test_committed_table_is_what_the_script_builds(tool: str, data: str, tmp_path: Path) -> None:
    out = tmp_path / data
    subprocess.run([sys.executable, str(ROOT / "tools" / f"{tool}.py"), "build", "--out", str(out)], check=True)
    assert out.read_text(encoding="utf-8") == (DATA / data).read_text(encoding="utf-8"), (
        f"{data} is stale: run `python tools/{tool}.py build`")


def test_serialiser_round_trips_the_committed_vllm_table() -> None:
    text = (DATA / "vllm_flags.json").read_text(encoding="utf-8")
    assert load_tool("gen_vllm_tables").dumps(json.loads(text)) == text


def test_extraction_files_cover_every_table_version() -> None:
    table = json.loads((DATA / "vllm_flags.json").read_text(encoding="utf-8"))
    extracted = sorted(p.stem for p in (ROOT / "tools" / "vllm-extract").glob("*.txt"))
    assert sorted(table["versions"]) == extracted
    assert table["incomplete"] == []  # every version read from its wheel


def test_extract_stage_reads_a_parser_written_like_vllms(tmp_path: Path) -> None:
    gen = load_tool("gen_vllm_tables")
    (tmp_path / "vllm/engine").mkdir(parents=True)
    (tmp_path / "vllm/config").mkdir(parents=True)
    (tmp_path / "vllm/config/model.py").write_text(
        "class ModelConfig:\n    enforce_eager: bool = False\n    max_model_len: int | None = None\n"
        "    mode: bool | str | None = None\n", encoding="utf-8")
    (tmp_path / "vllm/engine/arg_utils.py").write_text(
        "import argparse\n"
        "def get_kwargs(cls):\n"
        "    kwargs['x']['action'] = argparse.BooleanOptionalAction\n    kwargs['x']['nargs'] = '?'\n"
        "class EngineArgs:\n"
        "    @staticmethod\n"
        "    def add_cli_args(parser):\n"
        "        model_kwargs = get_kwargs(ModelConfig)\n"
        "        parser.add_argument('--enforce-eager', **model_kwargs['enforce_eager'])\n"
        "        parser.add_argument('--max-model-len', **model_kwargs['max_model_len'])\n"
        "        parser.add_argument('--mode', **model_kwargs['mode'])\n"
        "        parser.add_argument('--tensor-parallel-size', '-tp', type=int)\n"
        "        parser.add_argument('--headless', action='store_true')\n", encoding="utf-8")
    options = gen.options_from_source(tmp_path)
    assert options["--enforce-eager"] == ("f", None)
    assert options["--no-enforce-eager"] == ("n", "--enforce-eager")
    assert options["--max-model-len"] == ("v", None)
    assert options["--mode"] == ("o", None)
    assert options["-tp"] == ("v", "--tensor-parallel-size")
    assert options["--headless"] == ("f", None)
    assert "--no-headless" not in options


def test_tables_load_fast() -> None:
    flagcheck.vllm_table.cache_clear()
    llamacpp_flags.table.cache_clear()
    with cpu_budget(0.5):  # a few milliseconds of CPU: one json.loads each, nothing built per option
        flagcheck.vllm_table()
        llamacpp_flags.table()


V = {v: parse_engine_version("vllm", v) for v in ("0.8.2", "0.8.3", "0.12.0", "0.13.0", "0.14.0", "0.15.0",
                                                    "0.16.0", "0.17.0", "0.30.0", "0.33.0")}


@pytest.mark.parametrize(("option", "version", "known"), [
    ("--speculative-model", "0.8.2", True),       # removed in 0.8.3 (PR #15466)
    ("--speculative-model", "0.8.3", False),
    ("--attention-backend", "0.12.0", False),     # added in 0.13.0
    ("--attention-backend", "0.13.0", True),
    ("--disable-log-requests", "0.16.0", True),   # removed in 0.17.0, back in 0.33.0
    ("--disable-log-requests", "0.17.0", False),
    ("--disable-log-requests", "0.33.0", True),
    ("--no-enforce-eager", "0.30.0", True),
    ("--host", "0.33.0", True),                   # generated from FrontendArgs, missing from add_argument lists
    ("--api-key", "0.33.0", True),
    ("-sc", "0.30.0", True),
    ("-O", "0.30.0", True),                       # rewritten by the parser
    ("-O3", "0.30.0", True),
])
def test_known_option_facts(option: str, version: str, known: bool) -> None:
    assert (flagcheck.check_vllm_option(option, V[version]).problem is None) is known


@pytest.mark.parametrize(("name", "version", "read"), [
    ("VLLM_ATTENTION_BACKEND", "0.14.0", True), ("VLLM_ATTENTION_BACKEND", "0.15.0", False),
    ("VLLM_USE_V1", "0.12.0", False), ("VLLM_ENGINE_READY_TIMEOUT_S", "0.14.0", True),
    ("VLLM_ENGINE_READY_TIMEOUT_S", "0.13.0", False),
])
def test_known_env_facts(name: str, version: str, read: bool) -> None:
    assert (flagcheck.check_vllm_env(name, V.get(version) or parse_engine_version("vllm", version)).problem
            is None) is read


def test_takes_value_from_the_table() -> None:
    assert flagcheck.takes_value("enforce-eager", None) is False
    assert flagcheck.takes_value("gpu-memory-utilization", None) is True
    assert flagcheck.takes_value("headless", None) is False


def test_extract_stage_reads_skipvalidation_literal_loops_scripts_and_env_reads(tmp_path: Path) -> None:
    gen = load_tool("gen_vllm_tables")
    (tmp_path / "vllm/engine").mkdir(parents=True)
    (tmp_path / "vllm/snapshot").mkdir(parents=True)
    (tmp_path / "vllm/config.py").write_text(
        "class SchedulerConfig:\n    enable_chunked_prefill: SkipValidation[bool] = None\n", encoding="utf-8")
    (tmp_path / "vllm/engine/arg_utils.py").write_text(
        "import argparse\n"
        "def _compute_kwargs(cls):\n"
        "    kwargs[name]['action'] = argparse.BooleanOptionalAction\n"
        "class EngineArgs:\n"
        "    @staticmethod\n"
        "    def add_cli_args(parser):\n"
        "        scheduler_kwargs = get_kwargs(SchedulerConfig)\n"
        "        parser.add_argument('--enable-chunked-prefill', **scheduler_kwargs['enable_chunked_prefill'])\n"
        "        for arg, type in [('--guided-decoding-backend', str), ('--guided-decoding-disable-fallback', bool)]:\n"
        "            parser.add_argument(arg, type=type, deprecated=True)\n", encoding="utf-8")
    (tmp_path / "vllm/scripts.py").write_text(
        "def main():\n"
        "    parser = FlexibleArgumentParser()\n"
        "    serve_parser = subparsers.add_parser('serve')\n"
        "    serve_parser.add_argument('--config', type=str)\n"
        "    chat_parser = subparsers.add_parser('chat')\n"
        "    chat_parser.add_argument('--url', type=str)\n", encoding="utf-8")
    (tmp_path / "vllm/envs.py").write_text("environment_variables = {'VLLM_PORT': lambda: 1}\n", encoding="utf-8")
    (tmp_path / "vllm/snapshot/runtime.py").write_text(
        "import os\nt = os.environ.get('VLLM_SNAPSHOT_TIMEOUT_S', '900')\n"
        "os.environ['VLLM_CUSTOM_ALLREDUCE_ALGO'] = '1stage'\nprint('VLLM_NOT_READ')\n", encoding="utf-8")
    options = gen.options_from_source(tmp_path)
    assert options["--enable-chunked-prefill"] == ("f", None)
    assert options["--no-enable-chunked-prefill"] == ("n", "--enable-chunked-prefill")
    assert options["--guided-decoding-backend"] == ("v", None)
    assert options["--guided-decoding-disable-fallback"] == ("v", None)
    assert options["--config"] == ("v", None)
    assert "--url" not in options
    assert gen.env_from_source(tmp_path) == {"VLLM_PORT", "VLLM_SNAPSHOT_TIMEOUT_S", "VLLM_CUSTOM_ALLREDUCE_ALGO"}
    # where each is read: "" for a key of environment_variables, else the module (or the wheel's library)
    assert gen.env_reads(tmp_path, None) == {"VLLM_CUSTOM_ALLREDUCE_ALGO": "py:vllm/snapshot/runtime.py",
                                             "VLLM_PORT": "", "VLLM_SNAPSHOT_TIMEOUT_S": "py:vllm/snapshot/runtime.py"}


def test_env_read_outside_environment_variables_is_marked_through_extraction_and_build(tmp_path: Path) -> None:
    gen = load_tool("gen_vllm_tables")
    gen.write_extract(tmp_path, "0.10.1", {}, {"VLLM_PORT": ""}, "wheel")
    gen.write_extract(tmp_path, "0.10.2", {}, {"VLLM_PORT": "", "VLLM_CUSTOM_ALLREDUCE_ALGO": "so:vllm/_C.abi3.so"},
                      "wheel")
    gen.write_extract(tmp_path, "0.11.0", {}, {"VLLM_PORT": "", "VLLM_CUSTOM_ALLREDUCE_ALGO": "so:vllm/_C.abi3.so"},
                      "wheel")
    gen.write_extract(tmp_path, "0.11.1", {}, {"VLLM_PORT": "", "VLLM_CUSTOM_ALLREDUCE_ALGO": ""}, "wheel")
    assert (tmp_path / "0.10.2.txt").read_text(encoding="utf-8").splitlines()[1:] == [
        "env VLLM_CUSTOM_ALLREDUCE_ALGO so:vllm/_C.abi3.so", "env VLLM_PORT"]
    table = gen.build(tmp_path)
    assert table["env"] == {"VLLM_CUSTOM_ALLREDUCE_ALGO": [[1, 2, "so:vllm/_C.abi3.so"], [3, 3]],
                            "VLLM_PORT": [[0, 3]]}
    loaded = flagcheck.VllmTable(table)
    assert [loaded.listed("VLLM_CUSTOM_ALLREDUCE_ALGO", i) for i in range(4)] == [False, False, False, True]
    assert [loaded.has_env("VLLM_CUSTOM_ALLREDUCE_ALGO", i) for i in range(4)] == [False, True, True, True]
    assert loaded.read_where("VLLM_CUSTOM_ALLREDUCE_ALGO", 1) == "so:vllm/_C.abi3.so"
    assert loaded.read_where("VLLM_CUSTOM_ALLREDUCE_ALGO", 3) is None
