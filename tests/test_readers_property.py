"""Every reader, and the whole pipeline behind it, takes any text without raising: bad input is normal input."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from relialint.readers.opener import MemoryOpener
from relialint.run.files import reader
from relialint.run.lint import Options, lint_text
from tests.work import HANG_S, cpu_budget

KINDS = ["shell", "compose", "kubernetes", "helm", "env", "systemd", "dockerfile", "vllm-config"]
NAMES = {"shell": "serve.sh", "compose": "compose.yaml", "kubernetes": "deploy.yaml", "helm": "values.yaml",
         "env": ".env", "systemd": "vllm.service", "dockerfile": "Dockerfile", "vllm-config": "cfg.yaml"}

# pieces of every format, so random text often looks almost right
PIECES = st.sampled_from([
    "services:", "  vllm:", "    image: vllm/vllm-openai:v0.30.0", "    command: [", "--dtype", "bfloat16", "]",
    "apiVersion: v1", "kind: Pod", "spec:", "  containers:", "  - name: x", "    args:", "    env:",
    "[Service]", "ExecStart=vllm serve m \\", "Environment=VLLM_USE_V1=1", "EnvironmentFile=-/etc/x.env",
    "FROM vllm/vllm-openai:v0.9.2", "ENV A=1", "ARG B", "CMD [\"m\"]", "ENTRYPOINT vllm serve",
    "RUN cmake -DGGML_HIP=ON",
    "export VLLM_X=1", "KV=${KV:-fp8}", "vllm serve m --kv-cache-dtype $KV", "llama-server -fa -c 4096",
    "servingEngineSpec:", "  modelSpec:", "  - vllmConfig: {dtype: half}", "x-a: &a", "<<: *a", "*a", "&b [1]",
    "${", "$(", "'", '"', "\\", "#", "\t", "\r", "\ufeff", "é", "\x00", ": ", "- ", "{", "}", "%YAML 1.2", "---",
    # hostile pieces (issue 14): huge integers, infinities, deep nesting, doubling variables, Unicode dashes
    "1" * 4400, "1e999", "--tensor-parallel-size 1e999", "[" * 150, "]" * 150, "A=${A}${A}", "B=$A$A$A$A",
    "\u2014max-model-len", "--=", "--speculative-config.method 1", "--speculative-config.method.x 2",
    "FROM s AS s", "CMD " + "[" * 120, "command: x\ncommand: y",
])


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(KINDS), st.lists(PIECES, max_size=30), st.sampled_from(["\n", "\r\n", " "]))
def test_readers_never_raise(kind: str, pieces: list[str], joiner: str) -> None:
    read = reader(kind)
    assert read is not None
    result = read(joiner.join(pieces), NAMES[kind], MemoryOpener({}))
    assert result.path == NAMES[kind]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(KINDS), st.lists(PIECES, max_size=25))
def test_pipeline_never_raises(kind: str, pieces: list[str]) -> None:
    run = lint_text("\n".join(pieces), NAMES[kind], kind, Options())
    assert not [e for e in run.errors if "internal error" in e.message]  # the last resort never had to catch
    for finding in run.findings:
        assert finding.line >= 1 and finding.column >= 1


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=25, deadline=None)
@given(text=st.text(max_size=200))
def test_any_unicode_text(kind: str, text: str) -> None:
    read = reader(kind)
    assert read is not None
    read(text, NAMES[kind], MemoryOpener({}))


def test_shell_parser_survives_braces_before_non_ascii_text() -> None:
    """tree-sitter-bash 0.25 segfaults now and then on `{` followed by non-ASCII text; the reader hands it ASCII
    (each byte from 0x80 up as `_`, the same length) and keeps the words as written. Run in a subprocess, many
    times, since a crash would take pytest down with it."""
    import subprocess
    import sys

    script = ("from relialint.readers import shell\n"
              "from relialint.readers.opener import MemoryOpener\n"
              "for _ in range(200):\n"
              "    for text in ('{\\U000e0001', '{\\u324e\\U0002d009', 'a{\\U000ee563', 'echo {\\U000d0000} x'):\n"
              "        shell.read(text, 'x.sh', MemoryOpener({}))\n"
              "r = shell.read('echo {\\u324e} done', 'x.sh', MemoryOpener({}))\n"
              "print([w.text for w in r.commands[0].argv])\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=HANG_S, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['echo', '{\u324e}', 'done']"


# -- the bounds and the guarded read (issue 14) ---------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_decode_any_bytes(data: bytes) -> None:
    from relialint.readers.located import decode

    text, error = decode(data, "x")
    assert (text is None) != (error is None)
    if text is not None:
        assert "\r" not in text.replace("\r\n", "")  # lone CR read as a line end


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="()[]{}|*+?ab\\1^$.,:0123456789-", max_size=40))
@example("^(a+)+$").via("the classic catastrophic pattern: accepted, it takes hours on 41 characters")
@example("(a|aa)*b").via("an alternation under a star")
@example("^(a*)*$").via("a star under a star")
def test_regex_safety_check_never_raises_and_accepts_only_what_compiles_or_is_invalid(pattern: str) -> None:
    import re
    import warnings

    from relialint.base.bounds import regex_problem

    problem = regex_problem(pattern)
    if problem is None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)  # "possible nested set": a valid pattern still
                compiled = re.compile(pattern)
        except re.error:
            return
        with cpu_budget(1.0):  # microseconds; a pattern that backtracks without bound: hours on 41 characters
            compiled.search("a" * 40 + "!")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet='[]{}"\\,:0123456789e-', max_size=400))
def test_bounded_json_raises_only_value_errors(text: str) -> None:
    import contextlib

    from relialint.base.bounds import json_loads

    with contextlib.suppress(ValueError):
        json_loads(text)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(
    st.binary(max_size=60),
    st.sampled_from([b"Content-Length: 2\r\n\r\n{}", b"Content-Length: abc\r\n\r\n", b"Content-Length: -5\r\n",
                     b"Content-Length: 99999999999999\r\n\r\n", b"\n", b"\r\n",
                     b'Content-Length: 17\r\n\r\n{"jsonrpc": "2.0"}'])), max_size=12))
def test_lsp_framing_yields_only_clean_frames(chunks: list[bytes]) -> None:
    import io

    from relialint.lsp.frame import Frames

    whole = b"".join(chunks)
    frames = Frames(io.BytesIO(whole))
    messages = []
    while (message := frames.read_message()) is not None:
        messages.append(message)
    assert all(m in ({}, {"jsonrpc": "2.0"}) for m in messages), messages
    assert len(messages) <= whole.count(b"{}") + whole.count(b'{"jsonrpc": "2.0"}')


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["gpu.count", "parallel.tensor", "memory.gpu_utilization", "engine.version", "gpu.sm",
                        "kv_cache.dtype", "host.os", "gpu.cc_mode", "nope"]),
       st.one_of(st.text(max_size=12), st.sampled_from(["-5", "1e999", "inf", "nan", "1" * 5000, "", "=", "0.x"])))
def test_cli_fact_values_are_usage_errors_never_crashes(key: str, value: str) -> None:
    from tests.cli_run import invoke

    result = invoke(["check", "-", "--stdin-filename", "x.sh", "--fact", f"{key}={value}"], input="vllm serve m\n")
    assert result.exit_code in (0, 1, 2)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
