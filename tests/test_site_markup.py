"""Record text is never live markup on the site (issue 22): each escaping context of ``relialint.site.markup``,
with the attack strings of the issue and more, and as properties over any text. Markdown is rendered with the
extensions and settings of ``mkdocs.yml`` (attr_list, md_in_html, admonition, details, superfences, ...)."""

from __future__ import annotations

import html
import re
from urllib.parse import unquote

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from relialint.site.markup import (
    REPLACEMENT,
    cell,
    code,
    fenced,
    fold,
    html_attr,
    html_text,
    link_target,
    md,
    md_link,
    printable,
    prose_parts,
    yaml_html,
)
from tests.markup_scan import live_markup, parse, render

ATTACKS = [
    # from the issue
    "<script>window.__pwned=1</script>",
    "\\`<img src=x onerror=alert('pwned')>`",
    "a title { onmouseover=\"alert('pwned')\" }",
    "a title {: onmouseover=alert('pwned') }",
    "[click](javascript:alert('pwned'))",
    "https://example.com/)<img src=x onerror=alert('pwned')>",
    # attr_list after an inline element, and after emphasis the escaping used to leave alone
    "`code`{ onclick=\"alert('pwned')\" }",
    "_em_{ onclick=\"alert('pwned')\" }",
    "__strong__{: onclick=alert('pwned') }",
    # links of every kind
    "[x][1] and [1]: javascript:alert('pwned')",
    "[x]: javascript:alert('pwned')",
    "![i](x){ onerror=\"alert('pwned')\" }",
    "<javascript:alert('pwned')>",
    "<https://example.com/>",
    "[x](<javascript:alert('pwned')>)",
    "[TOC]",
    # raw HTML through entities, comments, md_in_html
    "&lt;script&gt;alert('pwned')&lt;/script&gt;",
    "&#60;img src=x onerror=alert('pwned')&#62;",
    "<!-- x --><img src=x onerror=alert('pwned')>",
    "<div markdown=\"1\">*x*<img src=x onerror=alert('pwned')></div>",
    "</p><svg onload=alert('pwned')>",
    # block markers at the start of a line
    "# heading { onclick=\"alert('pwned')\" }",
    "!!! danger \"<img src=x onerror=alert('pwned')>\"",
    "??? note \"<img src=x onerror=alert('pwned')>\"",
    "```{ onclick=\"alert('pwned')\" }",
    "~~~ { .x onclick=\"alert('pwned')\" }",
    "> quote",
    "- item",
    "1. item",
    "| a | b |",
    "=== ",
    # code spans: odd runs, inline highlighting, a span that opens the line
    "``<svg onload=alert('pwned')>```",
    "`#!js alert('pwned')`",
    "`:::html <img src=x onerror=alert('pwned')>`",
    "`[x](javascript:alert('pwned'))` first",
    "`` ` `` and ` `` ` and `` `x` ``",
    # Python-Markdown's own placeholders and other control characters
    "\x02wzxhzdk:0\x03 and \x02klzzwxh:0\x03",
    "a\x00b\x1bc\x7fd\x85e\ufffe",
    # escapes at the edges
    "a trailing backslash \\",
    "\\\\`<b>`",
    "ends in a hash #",
    "__init__ and VLLM_USE_V1 and _x_ and *y*",
]

ALPHABET = st.sampled_from([*"<>&`\\*_{}[]()#!?~=|-+.:;\"' \n\tab1", "\x02", "\x00", "é", "😀", "javascript:",
                            "onerror=", "&lt;", "{:", "```"])
MARKUP_TEXT = st.one_of(st.lists(ALPHABET, max_size=40).map("".join), st.text(max_size=60))


def expected_text(text: str) -> str:
    """What a reader sees of ``text`` on a page: its parts, code spans trimmed."""
    out = []
    for is_code, part in prose_parts(text):
        out.append(part.strip() if is_code and part.strip() else (f"`{part}`" if is_code else part))
    return "".join(out)


def _only(html_text: str, allowed: dict[str, set[str]]) -> None:
    for element in parse(html_text).walk()[1:]:
        assert element.tag in allowed, (element.tag, html_text)
        assert set(element.attrs) <= allowed[element.tag], (element.tag, element.attrs, html_text)


def _paragraph(text: str, start: bool = True) -> None:
    """``md(text)`` as a paragraph of its own, or (``start=False``) after other text on its line."""
    lead = "" if start else "RL101: "
    rendered = render(lead + md(text, start=start))
    root = parse(rendered)
    if not (lead + expected_text(text)).strip():
        assert rendered == ""
        return
    _only(rendered, {"p": set(), "code": set()})
    assert [e.tag for e in root.children] == ["p"], rendered
    assert root.children[0].text == (lead + expected_text(text)).strip(), rendered


@pytest.mark.parametrize("text", ATTACKS)
def test_md_shows_attack_strings_as_text(text: str) -> None:
    _paragraph(text)
    _paragraph(text, start=False)


@settings(max_examples=300, deadline=None)
@given(MARKUP_TEXT)
def test_md_any_text_renders_as_itself(text: str) -> None:
    _paragraph(text)


@settings(max_examples=150, deadline=None)
@given(MARKUP_TEXT)
def test_md_in_a_blockquote_list_item_and_heading(text: str) -> None:
    want = expected_text(text)
    for prefix, outer in (("> ", "blockquote"), ("- ", "ul")):
        rendered = render(prefix + md(text))
        _only(rendered, {outer: set(), "p": set(), "li": set(), "code": set()})
        assert parse(rendered).text.strip() == want, rendered
    heading = render(f"## RL101: {md(text, start=False)}")
    _only(heading, {"h2": {"id"}, "code": set(), "a": {"class", "href", "title"}})
    (h2,) = parse(heading).children
    assert h2.text == f"RL101: {want}".strip() + "¶", heading
    assert all(a.attrs["href"].startswith("#") for a in h2.walk() if a.tag == "a")


@settings(max_examples=150, deadline=None)
@given(MARKUP_TEXT, MARKUP_TEXT)
def test_cell_keeps_its_column(first: str, second: str) -> None:
    rendered = render(f"| a | b |\n| --- | --- |\n| {cell(first)} | {cell(second)} |\n")
    _only(rendered, {"table": set(), "thead": set(), "tbody": set(), "tr": set(), "th": set(), "td": set(),
                     "code": set()})
    cells = [e for e in parse(rendered).walk() if e.tag == "td"]
    assert [c.text.strip() for c in cells] == [expected_text(first), expected_text(second)], rendered


@settings(max_examples=150, deadline=None)
@given(MARKUP_TEXT.filter(lambda t: fold(t) != ""))
def test_code_holds_any_text(text: str) -> None:
    rendered = render(f"x {code(text)} y")
    _only(rendered, {"p": set(), "code": set()})
    (p,) = parse(rendered).children
    assert [e.text for e in p.children] == [fold(text)], rendered


@pytest.mark.parametrize("text", ATTACKS)
def test_code_shows_attack_strings(text: str) -> None:
    rendered = render(f"x {code(text)} y")
    assert live_markup(rendered) == []
    assert [e.text for e in parse(rendered).walk() if e.tag == "code"] == [fold(text)]


FENCE_BODY = st.lists(st.one_of(ALPHABET, st.just("\n"), st.just("```"), st.just("~~~"), st.just("</div>")),
                      max_size=40).map("".join)


@settings(max_examples=100, deadline=None)
@given(FENCE_BODY)
def test_fenced_holds_any_text_even_inside_md_in_html(body: str) -> None:
    # as Python-Markdown and the highlighter show it: tabs expanded, whitespace-only lines blank, blank lines at
    # either end dropped
    lines = printable(body).replace("\r\n", "\n").replace("\r", "\n").expandtabs(4).split("\n")
    shown = "\n".join(line if line.strip(" ") else "" for line in lines).strip("\n") + "\n"
    for page in (fenced(body, "sh"), f'<div class="x" markdown>\n\n{fenced(body, "yaml")}\n\n</div>'):
        rendered = render(page)
        assert live_markup(rendered) == [], rendered
        codes = [e for e in parse(rendered).walk() if e.tag == "code"]
        assert len(codes) == 1 and codes[0].text == shown, rendered
        assert not {e.tag for e in parse(rendered).walk()[1:]} - {"div", "pre", "span", "code"}, rendered


@pytest.mark.parametrize(("url", "target"), [
    ("https://example.com/wiki/Foo_(bar)?a=1&b=2#frag", "https://example.com/wiki/Foo_%28bar%29?a=1&b=2#frag"),
    ("https://example.com/)<img/src=x/onerror=alert('x')>",
     "https://example.com/%29%3Cimg/src=x/onerror=alert%28%27x%27%29%3E"),
    ("https://example.com/\"onmouseover=\"alert(1)", "https://example.com/%22onmouseover=%22alert%281%29"),
    ("https://example.com/)<img src=x onerror=alert('pwned')>", None),  # whitespace: no URL
    ("https://example.com/\" onmouseover=\"alert(1)", None),
    ("https://example.com/café?q=ü", "https://example.com/caf%C3%A9?q=%C3%BC"),
    ("https://example.com/a%20b%zz", "https://example.com/a%20b%25zz"),
    ("https://example.com/?a=1&lt;b&amp;c", "https://example.com/?a=1&lt;b&amp;c"),
    ("HTTP://EXAMPLE.COM/x", "HTTP://EXAMPLE.COM/x"),
    ("javascript:alert('pwned')", None),
    ("JaVaScRiPt:alert(1)", None),
    (" https://example.com/", None),
    ("https://example.com/\nx", None),
    ("data:text/html,<script>alert(1)</script>", None),
    ("https:///no-host", None),
    ("https://[::1", None),
    ("//example.com/", None),
    ("/records/RL101/", None),
])
def test_link_target(url: str, target: str | None) -> None:
    assert link_target(url) == target
    rendered = render("- **Source**: " + md_link(md("[a](b) title", start=False), url))
    assert live_markup(rendered) == []
    links = [e for e in parse(rendered).walk() if e.tag == "a"]
    assert [a.attrs["href"] for a in links] == ([] if target is None else [target])
    if target is None:
        assert fold(url) in parse(rendered).text


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40), MARKUP_TEXT)
def test_a_link_goes_where_its_url_says_or_nowhere(tail: str, title: str) -> None:
    url = "https://example.com/" + tail
    rendered = render("- **Source**: " + md_link(md(title, start=False), url))
    assert live_markup(rendered) == []
    links = [e for e in parse(rendered).walk() if e.tag == "a"]
    target = link_target(url)
    if target is None:
        assert links == []
        return
    assert len(links) == 1 and links[0].attrs["href"] == target, rendered
    assert re.fullmatch(r"https://example\.com/[A-Za-z0-9\-._~:/?#@!$&*+,;=%]*", target)
    assert unquote(target) == unquote(url)
    assert links[0].text == expected_text(title).strip()


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_yaml_html_reads_back_as_escaped_text(text: str) -> None:
    loaded = yaml.safe_load(yaml_html(text))
    assert isinstance(loaded, str)
    assert not set(loaded) & set('<>"')
    assert html.unescape(loaded) == printable(text)


@pytest.mark.parametrize("text", ATTACKS)
def test_html_contexts(text: str) -> None:
    shown = printable(text)
    assert parse(f"<td>{html_text(text)}</td>").children[0].text == shown
    (element,) = parse(f'<tr data-text="{html_attr(text)}" title=\'{html_attr(text)}\'>').children
    assert element.attrs == {"data-text": shown, "title": shown}


def test_printable_replaces_what_no_page_can_hold() -> None:
    assert printable("a\x00b\x02c\x1bd\x7fe\x9ff\ufffeg\ud800h\ti\nj\x85k") == \
        f"a{REPLACEMENT}b{REPLACEMENT}c{REPLACEMENT}d{REPLACEMENT}e{REPLACEMENT}f{REPLACEMENT}g{REPLACEMENT}h\ti\nj\x85k"


def test_prose_parts_pairs_runs_of_equal_length() -> None:
    assert prose_parts("a `b` c ``d`e`` f ```g") == [(False, "a "), (True, "b"), (False, " c "), (True, "d`e"),
                                                    (False, " f ```g")]
    assert prose_parts("\\`x` y") == [(False, "\\"), (True, "x"), (False, " y")]


@pytest.mark.parametrize("shape", ["runs of every width", "underscores", "spans", "brackets and newlines",
                                   "spaces", "link targets"])
def test_escaping_and_link_checks_are_linear_in_the_text(shape: str) -> None:
    """Four times the text costs about four times the CPU time (eight allowed), not sixteen: for each escaping
    function and the KB020 scan, on the shapes that could make them quadratic."""
    import time

    from relialint.kb.links import script_targets

    def text(n: int) -> str:
        return {
            "runs of every width": "".join("`" * (i % 60 + 1) + "a" for i in range(n)),
            "underscores": "_" * (n * 4),
            "spans": "a `b` _c_ [d] " * n,
            "brackets and newlines": "[" * n + "\n" * n + "x",
            "spaces": " " * (n * 4) + "](" + "\n" * n,
            "link targets": "](  <href= [x]: " * n,
        }[shape]

    def cost(n: int) -> dict[str, float]:
        sample = text(n)
        out = {}
        for fn in (md, cell, script_targets):
            start = time.process_time()
            fn(sample)
            out[fn.__name__] = time.process_time() - start
        return out

    cost(500)  # warm up
    small, large = cost(5_000), cost(20_000)
    for name in small:
        assert large[name] < 8 * max(small[name], 0.005), (name, small, large)
