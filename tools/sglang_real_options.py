#!/usr/bin/env python3
"""Record the option strings of SGLang's real ``launch_server`` parser, built from an unpacked wheel, offline.

The parser is SGLang's own code: ``sglang/srt/server_args.py`` of the release is imported from the sources
``tools/gen_sglang_tables.py fetch`` unpacks (``<cache>/src/sglang/<version>``) and its
``ServerArgs.add_cli_args(argparse.ArgumentParser())`` is called, as ``prepare_server_args`` does for ``python -m
sglang.launch_server`` and ``sglang serve``. ``sglang/__init__.py`` is not run (the package is opened from its
folder); every module that cannot be imported (torch, triton, transformers, ...) is a permissive stub (the stubs of
``tools/vllm_real_options.py``), as are the SGLang modules named with ``--stub``. ``msgspec`` must be installed for
0.5.14 on (the options are derived from ``msgspec.Struct`` fields). The option strings are written one per line with
their kind (``f`` takes no value, ``o`` an optional value, ``v`` a value) and, for an option with choices,
``choices=`` and the values, separated by ``|``::

    python -O tools/sglang_real_options.py <cache>/src/sglang/0.5.23 --out tests/data/sglang-real-options/0.5.23.txt

(``-O``: some modules assert on values of the stubbed libraries at import.) Each file names the command that
wrote it and the modules that were stubbed. ``tests/test_sglang_tables.py`` compares the generated table with these
files, so CI needs no wheel.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import re
import sys
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import vllm_real_options as stubs

ABSENT = {"torch_npu", "torch_musa", "mlx", "hip", "amdsmi", "pynvml", "torch_mlu", "sgl_kernel_npu", "mindspore"}
"""Packages whose presence makes SGLang pick another device (and fail without it): left absent, not stubbed."""
VERSIONS = {"torch": "2.9.0", "triton": "3.5.0", "transformers": "4.57.0", "flashinfer": "0.5.0"}


class _Torch(stubs._StubModule):
    """The torch stub without the other devices' modules (``hasattr(torch, "npu")`` is how SGLang detects them)."""

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        if name in ("npu", "xpu", "musa", "mlu", "hpu", "mps"):
            raise AttributeError(name)
        return super().__getattr__(name)


def _kind(action: argparse.Action) -> str:
    if action.nargs == 0:
        return "f"
    if action.nargs in ("?", "*"):
        return "o"
    return "v"


def _line(name: str, action: argparse.Action) -> str:
    line = f"{name} {_kind(action)}"
    if action.choices is not None and not isinstance(action.choices, dict):
        values = list(dict.fromkeys(str(c) for c in action.choices))
        if isinstance(action.choices, set | frozenset):
            values.sort()
        line += " choices=" + "|".join(values)
    return line


def options(src: str, stub: list[str]) -> list[str]:
    real_version = importlib.metadata.version

    def version(name: str) -> str:
        try:
            return real_version(name)
        except importlib.metadata.PackageNotFoundError:
            return "99.0.0"

    importlib.metadata.version = version  # type: ignore[assignment]
    for name in ("sglang", "sglang.srt"):  # open the packages without running their __init__
        package = types.ModuleType(name)
        package.__path__ = [str(Path(src, *name.split(".")))]
        sys.modules[name] = package
    stubs._ABSENT.update(ABSENT)
    try:
        import regex  # noqa: F401
    except ImportError:
        sys.modules["regex"] = re
    for dunder, value in (("__int__", 0), ("__index__", 0), ("__float__", 0.0)):  # int(torch.distributed.ReduceOp.SUM)
        setattr(stubs._StubMeta, dunder, lambda cls, value=value: value)
    stubs._StubMeta.__setitem__ = lambda cls, key, value: None  # CONFIG_MAPPING._extra_content["x"] = ...
    stubs._StubMeta.__contains__ = lambda cls, key: False
    if stub:
        sys.meta_path.insert(0, stubs._Finder(stub))
    sys.meta_path.append(stubs._Finder())
    sys.path.insert(0, src)
    for name, value in VERSIONS.items():  # stubbed libraries whose version is parsed at import
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if isinstance(module, stubs._StubModule):
            module.__version__ = value  # type: ignore[attr-defined]
            if name == "torch":
                module.__class__ = _Torch
    server_args = importlib.import_module("sglang.srt.server_args")
    parser = argparse.ArgumentParser()
    server_args.ServerArgs.add_cli_args(parser)
    return sorted(_line(name, action) for name, action in parser._option_string_actions.items())


def run(argv: list[str] | None = None) -> int:
    cli = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n", 1)[0])
    cli.add_argument("src", help="an unpacked wheel (the folder holding sglang/)")
    cli.add_argument("--stub", action="append", default=[], help="an SGLang module to stub")
    cli.add_argument("--out", required=True, help="the file to write")
    args = cli.parse_args(argv)
    found = options(args.src, args.stub)
    version = args.src.rstrip("/").rsplit("/", 1)[-1]
    extra = [f"--stub {s}" for s in args.stub]
    command = " ".join(["python -O tools/sglang_real_options.py", f"<cache>/src/sglang/{version}", *extra,
                        f"--out tests/data/sglang-real-options/{version}.txt"])
    lines = [f"# SGLang {version}: option strings of the real launch_server parser, their kind (f, o, v) and choices",
             f"# {command}", f"# stubbed: {' '.join(sorted(stubs.STUBBED))}", *found]
    with open(args.out, "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(run())
