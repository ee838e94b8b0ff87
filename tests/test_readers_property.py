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
