"""relialint: a knowledge base of silent LLM-serving failures and a linter for deployment configs."""

from __future__ import annotations

__version__ = "0.1.0"

SITE_URL = "https://relialint.dev/"
"""The published catalogue's base URL: the one setting behind finding URLs, SARIF helpUri and mkdocs site_url."""


REPOSITORY_URL = "https://github.com/relialint/relialint"
"""The project's source repository: where the site's "report a mistake" links open a new issue. (The docs' pre-commit
snippets still write ``OWNER``; this is the one place to change if the repository moves.)"""


def record_url(record_id: str) -> str:
    return f"{SITE_URL}records/{record_id}/"
