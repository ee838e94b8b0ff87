"""Every reader, and the whole pipeline behind it, takes any text without raising: bad input is normal input."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relialint.files import reader
from relialint.lint import Options, lint_text

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
])


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(KINDS), st.lists(PIECES, max_size=30), st.sampled_from(["\n", "\r\n", " "]))
def test_readers_never_raise(kind: str, pieces: list[str], joiner: str) -> None:
    read = reader(kind)
    assert read is not None
    result = read(joiner.join(pieces), NAMES[kind])
    assert result.path == NAMES[kind]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(KINDS), st.lists(PIECES, max_size=25))
def test_pipeline_never_raises(kind: str, pieces: list[str]) -> None:
    run = lint_text("\n".join(pieces), NAMES[kind], kind, Options())
    for finding in run.findings:
        assert finding.line >= 1 and finding.column >= 1


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=25, deadline=None)
@given(text=st.text(max_size=200))
def test_any_unicode_text(kind: str, text: str) -> None:
    read = reader(kind)
    assert read is not None
    read(text, NAMES[kind])


def test_shell_parser_survives_braces_before_non_ascii_text() -> None:
    """tree-sitter-bash 0.25 segfaults now and then on `{` followed by non-ASCII text; the reader hands it ASCII
    (each byte from 0x80 up as `_`, the same length) and keeps the words as written. Run in a subprocess, many
    times, since a crash would take pytest down with it."""
    import subprocess
    import sys

    script = ("from relialint.readers import shell\n"
              "for _ in range(200):\n"
              "    for text in ('{\\U000e0001', '{\\u324e\\U0002d009', 'a{\\U000ee563', 'echo {\\U000d0000} x'):\n"
              "        shell.read(text, 'x.sh')\n"
              "r = shell.read('echo {\\u324e} done', 'x.sh')\n"
              "print([w.text for w in r.commands[0].argv])\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['echo', '{\u324e}', 'done']"
