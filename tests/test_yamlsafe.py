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


Outcome = tuple[object, ...]


def _outcome(text: str, composer: str) -> Outcome:
    """What one composer makes of a text: ``("ok", documents)``, or ``("error", line, column, message)`` where a
    parser's own wording (``invalid YAML: ...``, which libyaml and ruamel word differently) is cut to its prefix;
    relialint's own errors (duplicate keys, budgets) keep their message."""
    if composer == "ruamel":
        os.environ["RELIALINT_YAML"] = "ruamel"
    try:
        return "ok", [_dump(d) for d in load_all(text, "f.yaml")]
    except YamlError as exc:
        error = exc.error
        own = error.message if not error.message.startswith("invalid YAML: ") else "invalid YAML"
        return "error", error.line, error.column, own
    finally:
        os.environ.pop("RELIALINT_YAML", None)


YAML_FILES = sorted([p for p in (ROOT / "records").glob("*.yaml")] + [p for p in (ROOT / "tests").rglob("*.y*ml")])
"""Every YAML file of the repository: the records, the corpus, the fixtures, the broken records among them."""

BAD_YAML = {
    "unclosed flow sequence": "a: [1, 2\nb: c\n",
    "unclosed flow mapping": "a: {b: 1\n",
    "unterminated single quote": "a: 'unterminated\n",
    "unterminated double quote": 'a: "unterminated\n',
    "undefined alias": "a: *nowhere\n",
    "value indented under a plain scalar": "a: b\n c: d\n",
    "tab as indentation": "a:\n\t- b\n",
    "two colons": "a: b: c\n",
    "sequence then mapping": "- a\nb: c\n",
    "duplicate key": "a: 1\na: 2\n",
    "reserved @": "key: @value\n",
    "reserved backtick": "key: `value\n",
    "compose key dedented": "services:\n  s:\n    image: a\n   command: b\n",
    "block scalar dedented": "a: |\n  x\n b\n",
    "extra closing brace": "{a: 1}}\n",
    "mapping key in a sequence": "a:\n  - b\n  c: d\n",
    "bad escape": 'a: "\\x"\n',
}
"""Real mistakes in YAML by hand: both composers refuse each, at the same place."""

DIFFER: dict[str, tuple[Outcome, Outcome, str]] = {
    "a: &x 1\nb: &x 2\nc: *x\n": (
        ("error", 2, 4, "invalid YAML"), ("ok",),
        "an anchor defined twice: YAML 1.2 lets an alias name the latest definition (ruamel reads it, with a "
        "warning); PyYAML's composer over libyaml refuses the second"),
    "%FOO bar\n---\na: 1\n": (
        ("error", 1, 5, "invalid YAML"), ("ok",),
        "an unknown directive: YAML 1.2 says to ignore it (ruamel does); libyaml refuses it"),
    "a: b\n...\nc: d\n": (
        ("error", 3, 1, "invalid YAML"), ("ok",),
        "a bare document after `...`: YAML 1.2 allows it without `---` (ruamel); libyaml, a YAML 1.1 parser, wants "
        "the `---`"),
    "a:\tb\n": (
        ("ok",), ("error", 1, 3, "invalid YAML"),
        "a tab after the colon: YAML 1.2 separates with spaces or tabs (libyaml reads it); ruamel's pure scanner "
        "refuses a tab there"),
    "a: x\tb\n": (
        ("ok",), ("error", 1, 5, "invalid YAML"),
        "a tab inside a plain scalar: allowed by YAML 1.2 (libyaml reads `x\\tb`); ruamel's pure scanner refuses it"),
}
"""The inputs on which libyaml and ruamel legitimately disagree, each with why: the test checks they still do, as
said (``("ok",)`` stands for any documents)."""


@pytest.mark.parametrize("path", YAML_FILES, ids=[str(p.relative_to(ROOT)) for p in YAML_FILES])
def test_libyaml_and_ruamel_agree_on_every_file(path: Path) -> None:
    """Both give the same documents, or both refuse the file at the same place."""
    text = path.read_text(encoding="utf-8")
    assert text not in DIFFER
    assert _outcome(text, "libyaml") == _outcome(text, "ruamel")


def test_the_broken_record_is_refused_by_both() -> None:
    """The agreement above covers failures too: the one file of the repository that is not YAML is refused."""
    text = (ROOT / "tests" / "fixtures" / "broken-records" / "RL904-syntax.yaml").read_text(encoding="utf-8")
    assert _outcome(text, "libyaml") == _outcome(text, "ruamel") == ("error", 3, 1, "invalid YAML")


@pytest.mark.parametrize("text", BAD_YAML.values(), ids=list(BAD_YAML))
def test_libyaml_and_ruamel_refuse_the_same_mistakes_at_the_same_place(text: str) -> None:
    fast, slow = _outcome(text, "libyaml"), _outcome(text, "ruamel")
    assert fast[0] == "error"
    assert fast == slow


@pytest.mark.filterwarnings("ignore::ruamel.yaml.error.ReusedAnchorWarning")
@pytest.mark.parametrize("text", list(DIFFER), ids=[reason.split(":")[0] for _, _, reason in DIFFER.values()])
def test_where_libyaml_and_ruamel_differ_they_differ_as_listed(text: str) -> None:
    fast_expected, slow_expected, _ = DIFFER[text]
    fast, slow = _outcome(text, "libyaml"), _outcome(text, "ruamel")
    assert fast[:len(fast_expected)] == fast_expected and slow[:len(slow_expected)] == slow_expected
    assert (fast[0], slow[0]) in (("ok", "error"), ("error", "ok"))
    documents = fast[1] if fast[0] == "ok" else slow[1]
    assert documents != []  # the composer that reads it gives a document, not nothing


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
    error = info.value.error
    assert (error.path, error.line, error.column) == ("bomb.yaml", 1, 22)  # inside a0, expanded once too often
    assert error.message == f"YAML expands to more than {yamlsafe.MAX_NODES} nodes (an alias bomb?); not read"


def test_syntax_error_is_located() -> None:
    with pytest.raises(YamlError) as info:
        load_all("a: [1, 2\nb: c\n", "bad.yaml")
    error = info.value.error
    assert (error.path, error.line, error.column, error.severity) == ("bad.yaml", 2, 2, "error")
    assert error.message == "invalid YAML: did not find expected ',' or ']'"  # libyaml's words, after the prefix


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab:- \n[]{}&*!|>'\"#,?%@`\t1.~<")), max_size=80))
def test_random_text_never_raises_anything_else(text: str) -> None:
    with contextlib.suppress(YamlError):
        load_all(text, "r.yaml")


def test_node_budget_is_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stream of exactly the budget's nodes is read; one node more is refused at that node. (A flow sequence of
    n - 1 scalars is n nodes.) The budget is lowered to keep the test cheap; its shipped value is the documented
    one (docs/bad-input.md: 200,000 nodes)."""
    assert yamlsafe.MAX_NODES == 200_000
    budget = 500
    monkeypatch.setattr(yamlsafe, "MAX_NODES", budget)
    for composer in ("libyaml", "ruamel"):
        monkeypatch.setenv("RELIALINT_YAML", composer)
        (doc,) = load_all("[" + "0," * (budget - 2) + "0]\n", "big.yaml")
        assert isinstance(doc, YSeq) and len(doc.items) == budget - 1
        with pytest.raises(YamlError) as info:
            load_all("[" + "0," * (budget - 1) + "0]\n", "big.yaml")
        error = info.value.error
        assert (error.line, error.column) == (1, 2 * budget)  # the last scalar, the one past the budget
        assert error.message == f"YAML expands to more than {budget} nodes (an alias bomb?); not read"
        (first, second) = load_all("[" + "0," * (budget // 2 - 2) + "0]\n---\n[" + "0," * (budget // 2 - 2) + "0]\n",
                                   "two.yaml")
        assert isinstance(first, YSeq) and isinstance(second, YSeq)
        with pytest.raises(YamlError):  # the budget is the stream's, not each document's
            load_all("[" + "0," * (budget // 2 - 1) + "0]\n---\n[" + "0," * (budget // 2 - 1) + "0]\n", "two.yaml")
