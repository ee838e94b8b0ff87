"""The vLLM tables against the option strings of the real ``vllm serve`` parser, recorded once per release from its
wheel by ``tools/vllm_real_options.py`` (the command is the second line of each file), so CI needs no wheel."""

from __future__ import annotations

from pathlib import Path

import pytest

from relialint.engines import flagcheck

REAL = Path(__file__).parent / "data" / "vllm-real-options"
FILES = sorted(REAL.glob("*.txt"))

KNOWN_DIFFERENCES = {
    # 0.9.0 and 0.9.0.1 add --model only when `serve` is not on the command line (vllm/engine/arg_utils.py:451);
    # the table keeps it because `python -m vllm.entrypoints.openai.api_server --model` is checked with it too
    ("0.9.0", "--model"), ("0.9.0.1", "--model"),
}


def _real(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, kind = line.split()
            out[name] = kind
    return out


def _table(version: str) -> dict[str, str]:
    table = flagcheck.vllm_table()
    index = table.versions.index(version)
    out = {}
    for name in table.options:
        info = table.option(name, index)
        if info is not None:
            out[name] = "f" if info.kind == "n" else info.kind
    return out


def test_every_tabled_release_has_a_recorded_parser() -> None:
    assert {p.stem for p in FILES} == set(flagcheck.vllm_table().versions)
    assert len(FILES) == 55


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_table_matches_the_real_parser(path: Path) -> None:
    version = path.stem
    real = {k: v for k, v in _real(path).items() if k not in ("-h", "--help")}
    table = {k: v for k, v in _table(version).items() if (version, k) not in KNOWN_DIFFERENCES}
    assert sorted(set(real) - set(table)) == []  # missing from the table
    assert sorted(set(table) - set(real)) == []  # extra in the table
    assert {k: (table[k], real[k]) for k in real if table[k] != real[k]} == {}  # kinds
