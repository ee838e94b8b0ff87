"""Secrets relialint reads but never prints: which names hold one, and what is shown in their place.

A deployment carries credentials beside its settings (``HF_TOKEN`` in an env file, ``--api-key`` on the command
line). relialint needs to know that they are set, never what they are: ``relialint facts`` (text and JSON), finding
messages and every other output show ``<set, 40 chars>`` instead of the value (docs/bad-input.md, "Secrets").

A name (split into words at ``_``, ``-`` and ``.``, any case) is a secret when

- one of its words is ``SECRET``, ``PASSWORD``, ``PASSWD`` or ``PASSPHRASE`` (``AWS_SECRET_ACCESS_KEY``,
  ``DB_PASSWORD``), or
- it ends in ``TOKEN``, ``PASS``, ``APIKEY``, ``API KEY``, ``PRIVATE KEY`` or ``AUTH KEY`` (``HF_TOKEN``,
  ``HUGGING_FACE_HUB_TOKEN``, ``VLLM_API_KEY``, ``OPENAI_API_KEY``, ``LLAMA_ARG_API_KEY``, ``--api-key``,
  ``--hf-token``),

unless its last word is ``FILE``, ``PATH`` or ``DIR`` (where a secret is kept, not the secret: ``HF_TOKEN_PATH``,
``--api-key-file``) or it starts with ``MAX``, ``MIN`` or ``NUM`` (a count: ``--max-prompt-adapter-token``).
A token threshold (``--long-prefill-token-threshold``) or a word that merely contains one (``MAX_TOKENS``,
``TOKENIZER``) is a setting and is shown.
"""

from __future__ import annotations

import re

SECRET_WORDS = frozenset({"SECRET", "PASSWORD", "PASSWD", "PASSPHRASE"})
SECRET_ENDINGS = frozenset({("TOKEN",), ("PASS",), ("APIKEY",), ("API", "KEY"), ("PRIVATE", "KEY"), ("AUTH", "KEY")})
LOCATION_WORDS = frozenset({"FILE", "PATH", "DIR"})
COUNT_WORDS = frozenset({"MAX", "MIN", "NUM"})

_WORD = re.compile(r"[A-Z0-9]+")


def _words(name: str) -> list[str]:
    return _WORD.findall(name.upper())


def secret_name(name: str) -> bool:
    """Whether a variable, option or fact key names a secret (``env.HF_TOKEN``, ``flag.vllm.api_key``, ``--api-key``,
    ``VLLM_API_KEY``); for a fact key the last part decides (``env.``, ``flag.ENGINE.`` are prefixes)."""
    last = name.rsplit(".", 1)[-1] if name.startswith(("env.", "flag.", "build.")) else name
    words = _words(last)
    if not words or words[-1] in LOCATION_WORDS or words[0] in COUNT_WORDS:
        return False
    if any(word in SECRET_WORDS for word in words):
        return True
    return tuple(words[-1:]) in SECRET_ENDINGS or tuple(words[-2:]) in SECRET_ENDINGS


def hidden(value: object) -> str:
    """What is shown in place of a secret's value: that it is set, and how long it is."""
    length = len(str(value))
    return f"<set, {length} char{'s' if length != 1 else ''}>"
