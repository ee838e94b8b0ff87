"""llama-server's verbosity options become flag facts (RL227 reads them)."""

from __future__ import annotations

from pathlib import Path

from tests.test_launch_shapes import facts


def test_verbose_switch_is_a_flag_fact_and_takes_no_value(tmp_path: Path) -> None:
    (d,) = facts(tmp_path, "run.sh", "llama-server -m /m/q.gguf -v --port 8080\n")
    assert d["flag.llama.cpp.verbose"] == ("true", "flag", 1, 27)
    assert d["flag.llama.cpp.port"] == ("8080", "flag", 1, 30)


def test_log_verbose_spelling_is_the_same_switch(tmp_path: Path) -> None:
    (d,) = facts(tmp_path, "run.sh", "llama-server -m /m/q.gguf --log-verbose -ngl 99\n")
    assert d["flag.llama.cpp.verbose"] == ("true", "flag", 1, 27)
    assert d["llama.n_gpu_layers"] == ("99", "flag", 1, 41)


def test_verbosity_takes_its_number(tmp_path: Path) -> None:
    (d,) = facts(tmp_path, "run.sh", "llama-server -m /m/q.gguf -lv 10\n")
    assert d["flag.llama.cpp.verbosity"] == ("10", "flag", 1, 27)
