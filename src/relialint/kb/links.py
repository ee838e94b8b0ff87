"""``KB020``: the links a record carries are links a reader can follow safely.

Records come from contributors and their text reaches the published site. The site generator escapes everything
(:mod:`relialint.site.markup`), so no record can put a live script on a page; this check refuses, earlier and with
a location, what has no business in a record at all:

- a reference ``url`` that is not a plain ``http``/``https`` URL with a host, or that carries a character a URL
  never holds raw (whitespace, a control character, a quote, ``<``, ``>``, a backslash, a backtick, braces, ``|``,
  ``^``) or parentheses that do not pair (a ``)`` would close a Markdown link early);
- a script or data link target anywhere in the record's prose: a ``javascript:`` or ``vbscript:`` URL (also
  spelled with character references or with tabs inside, as browsers read it), or ``data:`` where a link target
  stands (after ``](``, ``<``, ``href=``/``src=``, or in a ``[label]: target`` definition).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from relialint.kb import upstream
from relialint.kb.gates import Loc, locate
from relialint.kb.loader import LoadedRecord, Problem

CODE = "KB020"
_FORBIDDEN = re.compile(r"[\s\"'<>\\`{}|^\x00-\x1f\x7f]")
_SCRIPT_SCHEME = re.compile(r"(?<![\w.+-])(?:java|vb)script:", re.IGNORECASE)
_DATA_TARGET = re.compile(r"(?:\]\(\s*<?|<|\b(?:href|src|action|formaction)\s*=\s*[\"']?|^[ \t]*\[[^\]\n]*\]:[ \t]*<?)"
                          r"[ \t]*data:", re.IGNORECASE | re.MULTILINE)
_BROWSER_STRIPS = re.compile(r"[\t\n\r\x00-\x1f]")
"""What a browser removes from a URL before it reads the scheme (``java\\tscript:`` is ``javascript:``)."""


def url_problem(url: str) -> str | None:
    """Why ``url`` is not a plain http(s) URL a page can link to, or ``None``."""
    if not re.match(r"^https?://", url, re.IGNORECASE):
        scheme = url.split(":", 1)[0] if ":" in url else ""
        return f"its scheme is {scheme!r}, not http or https" if scheme else "it has no http:// or https:// scheme"
    depth = 0
    for index, ch in enumerate(url):
        if _FORBIDDEN.match(ch):
            return f"it holds {_name(ch)} at offset {index}, which a URL must percent-encode"
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return f"its ')' at offset {index} closes no '(' (it would end a Markdown link)"
    if depth:
        return "its '(' is never closed"
    try:
        parts = urlsplit(url)
        _ = parts.port
    except ValueError as exc:
        return f"it does not parse: {exc}"
    if not parts.hostname:
        return "it names no host"
    return None


def _name(ch: str) -> str:
    if ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F:
        return f"the character U+{ord(ch):04X}"
    return repr(ch)


def script_targets(text: str) -> list[tuple[str, str]]:
    """The script or data link targets ``text`` carries: each one's scheme and the text around it as written (to
    locate it). Where none is written plainly, the text as a browser reads a URL (character references decoded,
    tabs and newlines dropped) is searched too, and its first one is given."""
    found = [_target(m) for pattern in (_SCRIPT_SCHEME, _DATA_TARGET) for m in pattern.finditer(text)]
    if found:
        return sorted(found, key=lambda t: text.find(t[1]))
    decoded = _BROWSER_STRIPS.sub("", html.unescape(text))
    first = _SCRIPT_SCHEME.search(decoded) or _DATA_TARGET.search(decoded)
    return [_target(first)] if first is not None else []


def _target(match: re.Match[str]) -> tuple[str, str]:
    written = match.group(0).strip()
    scheme = re.search(r"\w+:$", written)
    return (scheme.group(0).lower() if scheme else written), written


def _prose(record: dict[str, Any]) -> Iterator[tuple[Loc, str]]:
    """Every piece of prose (:func:`relialint.kb.upstream.texts`), the examples' names and the reasons a bound has
    no witness."""
    yield from upstream.texts(record)
    for index, example in enumerate(record.get("examples") or []):
        if isinstance(example.get("name"), str):
            yield ("examples", index, "name"), example["name"]
    for name in ("trigger", "runtime_trigger"):
        for index, rng in enumerate((record.get(name) or {}).get("affected") or []):
            for bound, why in ((rng.get("witness") or {}).get("unwitnessed") or {}).items():
                yield (name, "affected", index, "witness", "unwitnessed", bound), str(why)


def check(loaded: LoadedRecord) -> list[Problem]:
    """The ``KB020`` problems of one record."""
    problems: list[Problem] = []
    for index, ref in enumerate(loaded.data.get("references") or []):
        url = ref.get("url")
        if isinstance(url, str):
            why = url_problem(url)
            if why is not None:
                line, column = locate(loaded, ("references", index, "url"))
                problems.append(Problem(loaded.path, line, column, CODE,
                                        f"reference url {url!r} is not a plain http(s) URL: {why}"))
    for loc, text in _prose(loaded.data):
        for scheme, written in script_targets(text):
            line, column = locate(loaded, loc, written if written in text else None)
            problems.append(Problem(loaded.path, line, column, CODE,
                                    f"a {scheme} link target ({written!r}): records link only to http(s) pages, "
                                    "in references"))
    return problems
