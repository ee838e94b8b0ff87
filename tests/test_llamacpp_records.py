"""llama.cpp records re-checked against the released code (issue 23): what each fires on, with what certainty and
where, on the builds the witnesses read (exact code, certainty, line and column)."""

from __future__ import annotations

from pathlib import Path

from relialint.lint import Finding, Options, Target, lint_text
from tests.test_launch_shapes import facts


def _rows(text: str, code: str, version: str | None = None, gpu: str | None = None, kind: str = "shell",
          name: str = "serve.sh") -> list[tuple[str, str, int, int]]:
    options = Options(target=Target(engine_version=version, gpu=gpu))
    found: list[Finding] = lint_text(text, name, kind, options).findings
    return [(f.code, f.certainty, f.line, f.column) for f in found if f.code == code]


# -- RL320: --kv-unified decides from b8502 ---------------------------------------------------------------------------


def test_kv_unified_switches_are_facts(tmp_path: Path) -> None:
    on, off = facts(tmp_path, "serve.sh", "llama-server -m /m.gguf -np 4 -kvu\n"
                                          "llama-server -m /m.gguf -np 4 --no-kv-unified\n")
    assert on["flag.llama.cpp.kv-unified"] == ("true", "flag", 1, 31)
    assert off["flag.llama.cpp.kv-unified"] == ("false", "flag", 2, 31)


def test_rl320_divides_without_a_unified_cache_on_every_witnessed_build() -> None:
    launch = "llama-server -m /m.gguf -c 8192 -np 4\n"
    assert _rows(launch, "RL320", "b5763") == [("RL320", "definite", 1, 33)]
    assert _rows(launch, "RL320", "b11312") == [("RL320", "definite", 1, 33)]
    assert _rows(launch, "RL320", "b8000") == [("RL320", "possible", 1, 33)]  # inside the 0.3.16-0.3.18 brackets


def test_rl320_kv_unified_gives_each_slot_the_whole_context_only_from_b8502() -> None:
    launch = "llama-server -m /m.gguf -c 8192 -np 4 --kv-unified\n"
    assert _rows(launch, "RL320", "b5763") == [("RL320", "definite", 1, 33)]  # the server still divided
    assert _rows(launch, "RL320", "b8000") == [("RL320", "possible", 1, 33)]
    assert _rows(launch, "RL320", "b9445") == []
    assert _rows(launch, "RL320") == [("RL320", "possible", 1, 33)]
