"""Record text into the published site, one escaping function per context the text lands in.

Records come from contributors, and the site (mkdocs-material) carries more than one kind of markup: Markdown with
raw HTML, ``attr_list`` (``{ onclick=... }`` after an element sets its attributes), ``md_in_html``, admonitions
and details blocks at a line start, and a theme that prints the navigation labels and the front matter's
``title`` and ``description`` as HTML. Record text is therefore never carried into any of them as it is; each
context has its function here, and every page the generator writes goes through them:

* :func:`md`: prose as Markdown inline text. Code spans (a run of backticks to the next run of the same length)
  stay code; everything else is text: every character that could start Markdown, HTML or an attribute list is
  escaped, so the page shows exactly the characters the record holds.
* :func:`cell`: the same in a table cell (``|`` escaped too).
* :func:`code`: an inline code span holding any text (the fence is longer than any backtick run in it).
* :func:`fenced`: a fenced code block holding any text.
* :func:`link_target`: a reference URL as a link target, or ``None``: only ``http``/``https`` with a host, every
  character outside a conservative set percent-encoded (so no parenthesis, quote, space or ``<`` ends the link).
* :func:`html_text` / :func:`html_attr`: text inside HTML the generator writes itself (the catalogue table).
* :func:`yaml_html`: a front-matter value or a navigation label, which the theme prints as HTML: HTML-escaped,
  then quoted as a YAML scalar.

Characters no page can carry (C0 and C1 controls other than whitespace, lone surrogates, U+FFFE and U+FFFF; YAML,
XML and Python-Markdown's own placeholders use some of them) become U+FFFD first (:func:`printable`).
"""

from __future__ import annotations

import html
import json
import re
import string
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

REPLACEMENT = "\ufffd"
_UNPRINTABLE = re.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""What YAML (PyYAML's printable set) and XML 1.0 accept; Python-Markdown's placeholders (``\\x02``, ``\\x03``) are
outside it."""

_BACKSLASHED = frozenset("\\`*_{}[]()#+-.!>")
"""Characters Python-Markdown unescapes after a backslash (its ``ESCAPED_CHARS``)."""
_ENTITY = {"<": "&lt;", "&": "&amp;"}
_LINE_START_ENTITY = {"=": "&#61;", "?": "&#63;", "~": "&#126;", "|": "&#124;"}
"""Line-start characters that open a block (setext rules, details, fences, tables) but that a backslash does not
escape in Python-Markdown: written as character references instead."""
_WORD = re.compile(r"\w")
_ORDERED_ITEM = re.compile(r"^([0-9]+)\.(?= )")


def printable(text: object) -> str:
    """``text`` with every character a page, YAML or XML cannot carry replaced by U+FFFD."""
    return _UNPRINTABLE.sub(REPLACEMENT, str(text))


def fold(text: object) -> str:
    """Printable text with its whitespace runs (newlines included) folded to single spaces, trimmed."""
    return " ".join(printable(text).split())


# -- Markdown ------------------------------------------------------------------------------------------------------


def prose_parts(text: object) -> list[tuple[bool, str]]:
    """Folded prose split into ``(is_code, text)`` parts. A code span is a run of N backticks up to the next run of
    exactly N; a run with no partner is text. Backslashes are text (records are not Markdown: ``\\```` is a
    backslash and a backtick). Linear in the text."""
    s = fold(text)
    runs = [(m.start(), m.end()) for m in re.finditer(r"`+", s)]
    following: list[int | None] = [None] * len(runs)  # the next run of the same width
    last_of_width: dict[int, int] = {}
    for index in range(len(runs) - 1, -1, -1):
        width = runs[index][1] - runs[index][0]
        following[index] = last_of_width.get(width)
        last_of_width[width] = index
    parts: list[tuple[bool, str]] = []
    pos = 0
    index = 0
    while index < len(runs):
        close = following[index]
        if close is None:
            index += 1
            continue
        start, end = runs[index]
        if start > pos:
            parts.append((False, s[pos:start]))
        parts.append((True, s[end:runs[close][0]]))
        pos = runs[close][1]
        index = close + 1
    if pos < len(s):
        parts.append((False, s[pos:]))
    return parts


def _text(s: str, first: bool, last: bool, pipe: bool = False) -> str:
    """Plain text as Markdown that renders as exactly ``s``; ``first``: it may start a line (a block marker there
    is escaped); ``last``: it may end a heading (a trailing ``#`` is escaped); ``pipe``: it is in a table cell."""
    out: list[str] = []  # one entry per character of s
    i = 0
    while i < len(s):
        ch = s[i]
        if ch == "_":
            # a run of underscores opens or closes emphasis only next to a character that is not a word character:
            # between two (VLLM_USE_V1) it is left as it is
            end = i
            while end < len(s) and s[end] == "_":
                end += 1
            inner = i > 0 and end < len(s) and _WORD.match(s[i - 1]) is not None and _WORD.match(s[end]) is not None
            out += ["_" if inner else "\\_"] * (end - i)
            i = end
            continue
        if ch in _ENTITY:
            out.append(_ENTITY[ch])
        elif ch in "\\`*{}[]" or (pipe and ch == "|"):
            out.append("\\" + ch)
        else:
            out.append(ch)
        i += 1
    if first and s:
        lead = s[0]
        ordered = _ORDERED_ITEM.match(s)
        if lead in _LINE_START_ENTITY and out[0] == lead:
            out[0] = _LINE_START_ENTITY[lead]
        elif lead in _BACKSLASHED and out[0] == lead:
            out[0] = "\\" + lead
        elif ordered:  # "1. text" would start a numbered list
            out[len(ordered.group(1))] = "\\."
    if last and s.endswith("#"):  # an ATX heading drops its trailing #s
        out[-1] = "\\#"
    return "".join(out)


def _markdown(text: object, start: bool, pipe: bool, repo: str | None = None) -> str:
    parts = prose_parts(text)
    out: list[str] = []
    for index, (is_code, s) in enumerate(parts):
        first, last = start and index == 0, index == len(parts) - 1
        if not is_code:
            out.append(_linked_text(s, first, last, pipe, repo))
        elif first:
            # a line that starts with backticks can open a fence: the first span is written as an HTML element,
            # whose content Markdown still reads, so it is escaped as text
            out.append(f"<code>{_text(s.strip(), False, False, pipe)}</code>" if s.strip()
                       else _text(f"`{s}`", first, last, pipe))
        else:
            out.append(code(s) if s.strip() else _text(f"`{s}`", first, last, pipe))
    return "".join(out)


def md(text: object, start: bool = True, repo: str | None = None) -> str:
    """Record prose as one line of Markdown: whitespace folded, code spans kept as code, the rest shown as the
    characters it is (no HTML, link, emphasis, attribute list or block marker survives). ``start=False`` where the
    text follows other text on its line (a heading after its id, a link label): a block marker cannot start there,
    so none is escaped. Issue and PR numbers in the text become links (:func:`issue_links`): to the repository
    the text names beside the number, else to ``repo`` (the record's engine's, ``owner/name``), else none."""
    return _markdown(text, start=start, pipe=False, repo=repo)


def cell(text: object, repo: str | None = None) -> str:
    """Prose in a Markdown table cell (never at a line start): :func:`md`, with every ``|`` outside code
    escaped."""
    return _markdown(text, start=False, pipe=True, repo=repo)


# -- issue and PR numbers ------------------------------------------------------------------------------------------

_REPO_NAME = r"[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{0,99}[A-Za-z0-9_]"
_ISSUE_WORD = r"issues?|PRs?|pull requests?"
ISSUE_NUMBER = re.compile(
    rf"(?:(?<![\w/.-])(?P<repo>{_REPO_NAME}) ?#(?P<repo_number>[0-9]{{2,7}})"
    rf"|(?<![\w/.-])(?P<repo_w>{_REPO_NAME}) (?P<repo_word>{_ISSUE_WORD})\s+#?(?P<repo_w_number>[0-9]{{2,7}})"
    rf"|\b(?P<word>{_ISSUE_WORD})\s+#?(?P<number>[0-9]{{2,7}})"
    r"|(?<![\w&/#])#(?P<bare>[0-9]{2,7}))\b",
    re.IGNORECASE)
"""A number that names an issue or pull request in prose: ``issue 20820``, ``PR #17885``, ``pull request 12``,
``#38652``, each optionally after the repository it is in (``ggml-org/llama.cpp #28604``,
``flashinfer-ai/flashinfer#3864``). A ``#`` after a word character, ``&``, ``/`` or another ``#`` is not one
(``sm#90``, ``&#35;``, a URL's fragment)."""
_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}$")


@dataclass(frozen=True)
class IssueLink:
    start: int
    end: int
    url: str


def issue_url(repo: str, number: str, pull: bool = False) -> str:
    """The GitHub page of issue or PR ``number`` of ``repo`` (``owner/name``); GitHub sends an issue URL of a PR
    to the PR."""
    if not _REPO.match(repo) or repo.endswith((".", "/")):
        raise ValueError(f"not a GitHub repository: {repo!r}")
    return f"https://github.com/{repo}/{'pull' if pull else 'issues'}/{int(number)}"


def issue_links(text: str, repo: str | None) -> list[IssueLink]:
    """Where ``text`` names an issue or PR and the page it links to: in the repository named beside the number,
    else in ``repo``; a number whose repository is not known is no link (never a guess)."""
    found: list[IssueLink] = []
    for match in ISSUE_NUMBER.finditer(text):
        where = match.group("repo") or match.group("repo_w") or repo
        if where is None:
            continue
        word = (match.group("word") or match.group("repo_word") or "").lower()
        number = next(n for n in (match.group(g) for g in ("repo_number", "repo_w_number", "number", "bare")) if n)
        found.append(IssueLink(match.start(), match.end(),
                               issue_url(where, number, pull=word.startswith(("pr", "pull")))))
    return found


def _linked_text(s: str, first: bool, last: bool, pipe: bool, repo: str | None) -> str:
    """:func:`_text` with each issue or PR number :func:`issue_links` finds as a link."""
    out: list[str] = []
    pos = 0
    for link in issue_links(s, repo):
        if link.start > pos:
            out.append(_text(s[pos:link.start], first and pos == 0, False, pipe))
        out.append(f"[{_text(s[link.start:link.end], False, False, pipe)}]({link.url})")
        pos = link.end
    if pos < len(s) or not out:
        out.append(_text(s[pos:], first and pos == 0, last, pipe))
    return "".join(out)


def code(text: object) -> str:
    """An inline code span that shows ``text`` (whitespace folded): its backtick fence is longer than any run in
    the text, and a space pads a text that starts or ends with a backtick."""
    s = fold(text)
    longest = max((len(m.group(0)) for m in re.finditer(r"`+", s)), default=0)
    ticks = "`" * (longest + 1)
    start = " " if s.startswith(("`", "#!", ":::")) else ""  # "#!lang" and ":::lang" would pick a highlighter
    end = " " if s.endswith("`") else ""
    return f"{ticks}{start}{s}{end}{ticks}"


def fenced(body: object, lang: str) -> str:
    """A fenced code block that shows ``body`` line for line: its fence is longer than any backtick run in it."""
    text = printable(body).replace("\r\n", "\n").replace("\r", "\n")
    longest = max((len(m.group(0)) for m in re.finditer(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text.rstrip(chr(10))}\n{fence}"


# -- links ---------------------------------------------------------------------------------------------------------

_URL_SAFE = frozenset(string.ascii_letters + string.digits + "-._~:/?#@!$&*+,;=")
"""Characters a link target keeps as they are; everything else is percent-encoded (``%`` too, unless it starts an
escape already). Parentheses, quotes, spaces, ``<``, ``>``, backslashes and brackets are all outside it, so none
can end the Markdown link or the HTML attribute the target lands in."""
_SCHEME = re.compile(r"^https?://", re.IGNORECASE)


def link_target(url: object) -> str | None:
    """``url`` as a link target, or ``None`` when it is not an ``http``/``https`` URL with a host (a page then shows
    it as code, never as a link)."""
    s = str(url)
    if not _SCHEME.match(s) or _UNPRINTABLE.search(s) or any(c.isspace() for c in s):
        return None
    try:
        host = urlsplit(s).hostname
    except ValueError:
        return None
    if not host:
        return None
    out: list[str] = []
    for i, ch in enumerate(s):
        if ch in _URL_SAFE or (ch == "%" and re.fullmatch(r"[0-9A-Fa-f]{2}", s[i + 1:i + 3])):
            out.append(ch)
        else:
            out.append(quote(ch, safe=""))
    return "".join(out)


def md_link(label: str, url: object) -> str:
    """A Markdown link with ``label`` (Markdown already escaped) to ``url``; a URL that is no safe target is shown
    as code after the label instead."""
    target = link_target(url)
    if target is None:
        return f"{label} ({code(url)})"
    # `&` as a reference: Python-Markdown keeps `&lt;` in a target as it is, and the browser would read it as `<`
    return f"[{label}]({target.replace('&', '&amp;')})"


# -- HTML and YAML -------------------------------------------------------------------------------------------------


def html_text(text: object) -> str:
    """Text inside an HTML element the generator writes: ``&``, ``<`` and ``>`` as references."""
    return html.escape(printable(text), quote=False)


def html_attr(text: object) -> str:
    """Text inside an HTML attribute the generator writes: quotes as references too."""
    return html.escape(printable(text), quote=True)


def yaml_html(text: object) -> str:
    """A front-matter value or a navigation label: the theme prints it as HTML (in ``<title>``, in the navigation,
    in a ``content="..."`` attribute), so it is HTML-escaped, then written as a double-quoted YAML scalar."""
    # one character at a time: JSON writes a character beyond the BMP as a surrogate pair, which YAML reads as two
    # lone surrogates; YAML's own \\U escape keeps it whole
    escaped = html_text(text).replace('"', "&quot;")
    return '"' + "".join(json.dumps(ch)[1:-1] if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}"
                         for ch in escaped) + '"'
