"""The SGLang option and env-var table (``tools/gen_sglang_tables.py``): reproducible from the committed extraction
files, and equal to the real ``launch_server`` parser of the releases recorded by ``tools/sglang_real_options.py``
(``tests/data/sglang-real-options``, the command is the second line of each file), so CI needs no wheel."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from relialint.engines.flagcheck import VllmTable
from tests.tools import load_tool

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "src" / "relialint" / "data" / "sglang_flags.json"
EXTRACT = ROOT / "tools" / "sglang-extract"
REAL = Path(__file__).parent / "data" / "sglang-real-options"
FILES = sorted(REAL.glob("*.txt"))


def _table() -> VllmTable:
    return VllmTable(json.loads(DATA.read_text(encoding="utf-8")))


def test_committed_table_is_what_the_script_builds(tmp_path: Path) -> None:
    out = tmp_path / "sglang_flags.json"
    subprocess.run([sys.executable, str(ROOT / "tools" / "gen_sglang_tables.py"), "build", "--out", str(out)],
                   check=True)
    assert out.read_text(encoding="utf-8") == DATA.read_text(encoding="utf-8"), (
        "sglang_flags.json is stale: run `python tools/gen_sglang_tables.py build`")


def test_serialiser_round_trips_the_committed_table() -> None:
    text = DATA.read_text(encoding="utf-8")
    assert load_tool("gen_sglang_tables").dumps(json.loads(text)) == text


def test_every_release_is_read_from_its_wheel() -> None:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    assert sorted(data["versions"]) == sorted(p.stem for p in EXTRACT.glob("*.txt"))
    assert data["incomplete"] == []
    assert all(data["sources"][v].startswith(f"wheel sglang-{v}-") for v in data["versions"])
    assert data["versions"][0] == "0.1.3" and data["versions"][-1] == "0.5.23"
    assert len(data["versions"]) == 160


def _real(path: Path) -> dict[str, tuple[str, list[str] | None]]:
    out: dict[str, tuple[str, list[str] | None]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        name, kind, *rest = line.split(" ", 2)
        out[name] = (kind, sorted(rest[0].removeprefix("choices=").split("|")) if rest else None)
    return out


def test_at_least_three_releases_far_apart_have_a_recorded_parser() -> None:
    assert {"0.3.6", "0.4.6.post1", "0.5.23"} <= {p.stem for p in FILES}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_table_matches_the_real_parser(path: Path) -> None:
    version = path.stem
    real = {k: v for k, v in _real(path).items() if k not in ("-h", "--help")}
    table = _table()
    data = json.loads(DATA.read_text(encoding="utf-8"))
    index = table.versions.index(version)
    kinds: dict[str, str] = {}
    for name in table.options:
        info = table.option(name, index)
        if info is not None:
            kinds[name] = "f" if info.kind == "n" else info.kind
    assert sorted(set(real) - set(kinds)) == []  # missing from the table
    assert sorted(set(kinds) - set(real)) == []  # extra in the table
    assert {k: (kinds[k], real[k][0]) for k in real if kinds[k] != real[k][0]} == {}
    choices = {name: sorted(entry[2]) for name, ranges in data["choices"].items() for entry in ranges
               if entry[0] <= index <= entry[1]}
    # where the table has choices they are the parser's; where it has none the parser's are computed at run time
    assert {k: (v, real[k][1]) for k, v in choices.items() if v != real[k][1]} == {}


def _kind(table: VllmTable, name: str, version: str) -> tuple[str, str | None] | None:
    info = table.option(name, table.versions.index(version))
    return None if info is None else (info.kind, info.canonical)


def test_table_answers_like_the_engine_needs() -> None:
    table = _table()
    data = json.loads(DATA.read_text(encoding="utf-8"))
    assert _kind(table, "--model-path", "0.1.3") == ("v", None)
    assert _kind(table, "--tp-size", "0.3.6") == ("v", "--tensor-parallel-size")  # its first long string then
    assert _kind(table, "--tensor-parallel-size", "0.5.23") == ("v", "--tp-size")
    assert _kind(table, "--enable-torch-compile", "0.3.6") == ("f", None)
    assert _kind(table, "--enable-dp-attention", "0.3.5.post2") is None  # first in 0.3.6
    assert _kind(table, "--enable-dp-attention", "0.3.6") == ("f", None)
    assert table.option_span("--enable-dp-attention") == "0.3.6-0.5.23"
    last = data["deprecated"]["--enable-dp-attention"][-1]
    assert [table.versions[last[1]], *last[2:]] == ["0.5.23", "translated", "--attn-dp-size <dp-size>"]
    index = table.versions.index("0.5.23")
    assert table.has_env("SGLANG_CACHE_DIR", index) and table.listed("SGLANG_CACHE_DIR", index)
    assert table.read_where("SGLANG_CACHE_DIR", table.versions.index("0.1.3")) is None
    assert data["env_prefix_rewrites"]["SGL_"][-1][1] == index


def test_extract_reads_add_argument_calls_and_annotated_fields(tmp_path: Path) -> None:
    gen = load_tool("gen_sglang_tables")
    (tmp_path / "sglang/srt/arg_groups").mkdir(parents=True)
    (tmp_path / "sglang/srt/arg_groups/choices.py").write_text(
        "BACKENDS = ['triton', 'flashinfer']\n", encoding="utf-8")
    (tmp_path / "sglang/srt/arg_groups/acts.py").write_text(
        "import argparse\n"
        "class Old(argparse.Action):\n"
        "    def __init__(self, option_strings, dest, nargs=0, **kw):\n"
        "        super().__init__(option_strings, dest, nargs=nargs, **kw)\n"
        "class DeprecatedAction(Old):\n"
        "    def __call__(self, parser, namespace, values, option_string=None):\n"
        "        raise ValueError(self.help)\n"
        "class DeprecatedAliasStoreAction(argparse.Action):\n"
        "    def __call__(self, parser, namespace, values, option_string=None):\n"
        "        setattr(namespace, self.dest, values)\n", encoding="utf-8")
    (tmp_path / "sglang/srt/server_args.py").write_text(
        "import argparse\n"
        "from typing import Literal, Optional\n"
        "from sglang.srt.arg_groups.choices import BACKENDS\n"
        "from sglang.srt.arg_groups.arg_utils import A, Arg, add_cli_args_from_dataclass\n"
        "class ServerArgs:\n"
        "    model_path: A[str, Arg(help='m', aliases=['--model'])]\n"
        "    tp_size: A[int, Arg(help='t', aliases=['--tensor-parallel-size'])] = 1\n"
        "    trust_remote_code: A[bool, 'x'] = False\n"
        "    dtype: A[Literal['auto', 'half'], 'd'] = 'auto'\n"
        "    lora_paths: A[Optional[list[str]], Arg(help='l', nargs='*')] = None\n"
        "    hidden: A[int, Arg(help='h', no_cli=True)] = 0\n"
        "    plain: int = 0\n"
        "    @staticmethod\n"
        "    def add_cli_args(parser):\n"
        "        add_cli_args_from_dataclass(parser, ServerArgs)\n"
        "        parser.add_argument('--attention-backend', type=str, choices=['auto'] + BACKENDS)\n"
        "        parser.add_argument('--old-flag', action=Old)\n"
        "        parser.add_argument('--cache', action=argparse.BooleanOptionalAction)\n"
        "        parser.add_argument('--speculative', nargs='?')\n"
        "        parser.add_argument('--gone', action=DeprecatedAction)\n"
        "        parser.add_argument('--renamed', action=DeprecatedAliasStoreAction, new_flag='--attention-backend')\n",
        encoding="utf-8")
    assert gen.options_from_source(tmp_path) == {
        "--model-path": ("v", None, None), "--model": ("v", "--model-path", None),
        "--tp-size": ("v", None, None), "--tensor-parallel-size": ("v", "--tp-size", None),
        "--trust-remote-code": ("f", None, None), "--dtype": ("v", None, ("auto", "half")),
        "--lora-paths": ("o", None, None),
        "--attention-backend": ("v", None, ("auto", "triton", "flashinfer")),
        "--old-flag": ("f", None, None), "--cache": ("f", None, None), "--no-cache": ("n", "--cache", None),
        "--speculative": ("o", None, None), "--gone": ("f", None, None), "--renamed": ("v", None, None),
    }
    assert gen.read_parser(tmp_path)[1] == {"--gone": ("refused", ""),
                                            "--renamed": ("translated", "--attention-backend")}


def test_extraction_file_round_trips_choices_with_spaces(tmp_path: Path) -> None:
    gen = load_tool("gen_sglang_tables")
    opts = {"--x": ("v", None, ("a b", "c")), "--y": ("f", "--x", None), "--z": ("v", None, ())}
    deprecated = {"--y": ("translated", "--x <n>"), "--z": ("refused", "")}
    gen.write_extract(tmp_path, "0.1.0", "wheel sglang-0.1.0-py3-none-any.whl", opts, {"SGLANG_A": "",
                      "SGL_B": "py:sglang/x.py"}, True, deprecated)
    assert gen.read_extract(tmp_path / "0.1.0.txt") == (
        opts, {"SGLANG_A": "", "SGL_B": "py:sglang/x.py"}, "wheel sglang-0.1.0-py3-none-any.whl", True, deprecated)


def test_witness_reads_sglang_releases_offline(tmp_path: Path) -> None:
    """``tools/witness.py --offline --records DIR`` on a record about SGLang, against a cache of two unpacked
    releases (no wheel, no network): it writes the result, and ``--check`` then finds nothing stale."""
    cache = tmp_path / "cache"
    rows = []
    for version, text in (("0.3.5", "x = 1\n"), ("0.3.6", 'parser.add_argument("--enable-dp-attention")\n')):
        root = cache / "src" / "sglang" / version
        (root / "sglang/srt").mkdir(parents=True)
        (root / "sglang/srt/server_args.py").write_text(text, encoding="utf-8")
        (root / ".done").write_text("0" * 64 + "\n", encoding="utf-8")
        rows.append({"project": "sglang", "version": version, "filename": f"sglang-{version}-py3-none-any.whl",
                     "url": "", "sha256": "0" * 64, "size": 1})
    (cache / "index").mkdir()
    (cache / "index" / "sglang.json").write_text(json.dumps(rows), encoding="utf-8")
    records = tmp_path / "records"
    records.mkdir()
    (records / "RL999-probe.yaml").write_text(
        "id: RL999\nengines: [sglang]\ntrigger:\n  affected:\n    - engine: sglang\n      introduced: '0.3.6'\n"
        "      witness:\n        code:\n          - path: sglang/srt/server_args.py\n"
        "            present: '\"--enable-dp-attention\"'\n", encoding="utf-8")
    env = {**os.environ, "RELIALINT_ARTIFACTS": str(cache)}
    tool = [sys.executable, str(ROOT / "tools" / "witness.py"), "--offline", "--records", str(records)]
    subprocess.run(tool, check=True, env=env, capture_output=True)
    result = json.loads((records / "witnesses" / "RL999.json").read_text(encoding="utf-8"))
    assert [(r["release"], r["affected"]) for r in result["ranges"][0]["releases"]] == [
        ("0.3.5", False), ("0.3.6", True)]
    assert result["ranges"][0]["releases"][1]["seen"] == [
        'sglang/srt/server_args.py:1: parser.add_argument("--enable-dp-attention")']
    assert subprocess.run([*tool, "--check"], env=env, capture_output=True).returncode == 0
