"""Helpers for the tests of record text on the site: Markdown rendered as mkdocs renders it (the extensions and
their settings read from ``mkdocs.yml``), and HTML read back into its elements, attributes and text."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

import markdown
import yaml

from tests.conftest import ROOT

URL_ATTRIBUTES = frozenset({"href", "src", "action", "formaction", "srcdoc", "xlink:href", "data", "poster",
                            "background", "ping", "cite", "longdesc", "manifest", "style"})
LIVE_TAGS = frozenset({"script", "img", "svg", "iframe", "frame", "object", "embed", "style", "link", "meta", "base",
                       "math", "video", "audio", "source", "template", "textarea", "details", "marquee", "applet"})
"""Tags a record could use to run script, load something or restyle the page; none may come from record text."""
_SCRIPT_URL = re.compile(r"\s*(javascript|vbscript|data|livescript):", re.IGNORECASE)
MARKER = "pwned"
"""The word every payload in tests/fixtures/hostile-records carries."""


def _extensions() -> tuple[list[str], dict[str, dict[str, Any]]]:
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    names: list[str] = []
    settings: dict[str, dict[str, Any]] = {}
    for entry in config["markdown_extensions"]:
        if isinstance(entry, dict):
            ((name, options),) = entry.items()
            names.append(name)
            settings[name] = {k: (v == "true" if v in ("true", "false") else v) for k, v in (options or {}).items()}
        else:
            names.append(entry)
    return names, settings


EXTENSIONS, EXTENSION_CONFIGS = _extensions()


def render(text: str) -> str:
    """``text`` rendered by Python-Markdown with the site's extensions, as mkdocs renders a page."""
    return markdown.Markdown(extensions=EXTENSIONS, extension_configs=EXTENSION_CONFIGS).convert(text)


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    text: str = ""
    children: list[Element] = field(default_factory=list)

    def walk(self) -> list[Element]:
        return [self, *(e for child in self.children for e in child.walk())]


_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
                   "wbr"})


class _Tree(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#root", {})
        self.stack = [self.root]
        self.scripts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(element)
        if tag not in _VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Element(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        for element in self.stack:
            element.text += data
        if self.stack[-1].tag in ("script", "style"):
            self.scripts.append(data)


def parse(html_text: str) -> Element:
    tree = _Tree()
    tree.feed(html_text)
    tree.close()
    return tree.root


def live_markup(html_text: str) -> list[str]:
    """What in ``html_text`` record text could have made live: an event handler attribute, a script or data URL, a
    tag that runs or loads something, and the payloads' marker in a tag, an attribute name, a URL (anchors within
    the page aside) or a script."""
    tree = _Tree()
    tree.feed(html_text)
    tree.close()
    found: list[str] = []
    for element in tree.root.walk()[1:]:
        if MARKER in element.tag:
            found.append(f"<{element.tag}>")
        for name, value in element.attrs.items():
            url = name in URL_ATTRIBUTES and (_SCRIPT_URL.match(value) is not None
                                              or (MARKER in value and value[:1] != "#"))
            if name.startswith("on") or MARKER in name or url:
                found.append(f"<{element.tag} {name}={value!r}>")
    found += [f"script: {s[:80]!r}" for s in tree.scripts if MARKER in s]
    return found


def tags(html_text: str) -> set[str]:
    return {e.tag for e in parse(html_text).walk()[1:]}
