"""Located YAML: both composers give the same values and spans; bad YAML is a located error, never a crash."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relialint.readers import yamlsafe
from relialint.readers.yamlsafe import YamlError, YMap, YScalar, YSeq, load_all, plain
from tests.conftest import ROOT


def _dump(node: object) -> object:
    if isinstance(node, YScalar):
        if node.text == "" and not node.quoted:
            return ("s", None)  # an empty value: the composers place it at the colon or at the next token
        return ("s", node.value, node.text, node.quoted, node.span.line, node.span.column)
    if isinstance(node, YSeq):
        return ("q", node.span.line, node.span.column, [_dump(i) for i in node.items])
    if isinstance(node, YMap):
        return ("m", node.span.line, node.span.column, [(_dump(k), _dump(v)) for k, v in node.items])
    return None


def _both(text: str) -> tuple[object, object]:
    fast = [_dump(d) for d in load_all(text, "f.yaml")]
    os.environ["RELIALINT_YAML"] = "ruamel"
    try:
        slow = [_dump(d) for d in load_all(text, "f.yaml")]
    finally:
        del os.environ["RELIALINT_YAML"]
    return fast, slow


YAML_FILES = sorted(
    [p for p in (ROOT / "records").glob("*.yaml")]
    + [p for p in (ROOT / "tests").rglob("*.y*ml") if "broken" not in str(p)]
)


@pytest.mark.parametrize("path", YAML_FILES, ids=[p.name for p in YAML_FILES])
def test_libyaml_and_ruamel_agree(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    try:
        fast, slow = _both(text)
    except YamlError:
        return
    assert fast == slow


def test_core_schema_scalars() -> None:
    (doc,) = load_all("a: yes\nb: true\nc: 0o17\nd: 0x1F\ne: 1.5\nf: ~\ng: '1'\nh: 012\ni: True\n", "x.yaml")
    assert plain(doc) == {"a": "yes", "b": True, "c": 15, "d": 31, "e": 1.5, "f": None, "g": "1", "h": 12,
                          "i": True}


def test_merge_keys_and_anchors() -> None:
    text = "x-base: &base\n  image: a\n  env: 1\nservices:\n  s:\n    <<: *base\n    env: 2\n"
    (doc,) = load_all(text, "c.yaml")
    assert plain(doc) == {"x-base": {"image": "a", "env": 1}, "services": {"s": {"env": 2, "image": "a"}}}


def test_alias_bomb_is_bounded() -> None:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]")
    with pytest.raises(YamlError) as info:
        load_all("\n".join(lines) + "\n", "bomb.yaml")
    assert "more than" in info.value.error.message


def test_syntax_error_is_located() -> None:
    with pytest.raises(YamlError) as info:
        load_all("a: [1, 2\nb: c\n", "bad.yaml")
    assert info.value.error.path == "bad.yaml"
    assert info.value.error.line >= 1


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab:- \n[]{}&*!|>'\"#,?%@`\t1.~<")), max_size=80))
def test_random_text_never_raises_anything_else(text: str) -> None:
    with contextlib.suppress(YamlError):
        load_all(text, "r.yaml")


def test_budget_constant_is_sane() -> None:
    assert yamlsafe.MAX_NODES >= 100_000
