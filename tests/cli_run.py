"""Run the command line in this process, as a user would, and capture what it writes (what the CLI tests use).

``invoke(args, input=None, env=None)`` calls ``relialint.cli.main(args)`` with stdin, stdout and stderr replaced by
in-memory streams (not terminals, UTF-8) and returns the exit code, each stream, and ``output``: stdout and stderr
interleaved in the order they were written. An exception that escapes ``main`` is kept in ``exception`` with exit
code 1, as the interpreter would exit; a test that expects none asserts so.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Result:
    exit_code: int
    stdout: str
    stderr: str
    output: str
    exception: BaseException | None


class _Recorded(io.BytesIO):
    """One stream's bytes, also appended to the interleaved record of both streams."""

    def __init__(self, both: bytearray) -> None:
        super().__init__()
        self.both = both

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        self.both.extend(data)
        return super().write(data)


def _text(raw: io.BytesIO, errors: str) -> io.TextIOWrapper:
    return io.TextIOWrapper(raw, encoding="utf-8", errors=errors, newline="\n", write_through=True)


def invoke(args: Sequence[str], input: str | bytes | None = None, env: Mapping[str, str | None] | None = None) \
        -> Result:
    from relialint.cli import main

    both = bytearray()
    out, err = _Recorded(both), _Recorded(both)
    data = input.encode("utf-8") if isinstance(input, str) else (input or b"")
    saved = sys.stdin, sys.stdout, sys.stderr
    saved_env = {key: os.environ.get(key) for key in env or {}}
    stdout, stderr = _text(out, "strict"), _text(err, "backslashreplace")
    sys.stdin, sys.stdout, sys.stderr = _text(io.BytesIO(data), "strict"), stdout, stderr
    for key, value in (env or {}).items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    exception: BaseException | None = None
    try:
        code: int | str | None = main(list(args))
    except SystemExit as exc:
        exception = exc
        code = exc.code
    except Exception as exc:
        exception = exc
        code = 1
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        stdout.detach()  # flushed and let go, without closing the bytes read below
        stderr.detach()
        for key, old in saved_env.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old
    if isinstance(code, str):  # sys.exit("message"): printed on stderr, exit 1
        err.write(f"{code}\n".encode())
        code = 1
    return Result(code or 0, out.getvalue().decode("utf-8", "replace"), err.getvalue().decode("utf-8", "replace"),
                  bytes(both).decode("utf-8", "replace"), exception)


def invoke_on_file(folder: Path, name: str, text: str, args: Sequence[str]) -> Result:
    """Write ``text`` to ``folder/name`` and run the command line from ``folder`` (so ``args`` name the file as
    ``name`` and the output's paths are relative), as a user linting a file of their project would."""
    target = folder / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        return invoke(args)
    finally:
        os.chdir(cwd)
