#!/usr/bin/env python3
"""Record the option strings of vLLM's real ``vllm serve`` parser, built from an unpacked wheel, offline.

The parser is vLLM's own code (``FlexibleArgumentParser``, ``EngineArgs.add_cli_args``, ``make_arg_parser``,
the serve sub-command) run from the sources ``tools/gen_vllm_tables.py fetch`` unpacks. Nothing else of vLLM's
dependencies is installed: every module that cannot be imported (torch, transformers, fastapi, ...) is replaced by
a permissive stub, as are the vLLM packages of ``DEFAULT_STUBS`` and ``--stub``, and the platform is
vLLM's CPU platform. ``main()`` of the ``vllm`` command is run with ``serve`` and stopped where it parses the
arguments; the ``serve`` sub-parser's option strings are written one per line with their kind (``f`` takes no
value, ``o`` an optional value, ``v`` a value)::

    python -O tools/vllm_real_options.py /tmp/vllm-src/0.33.0 --out tests/data/vllm-real-options/0.33.0.txt
    for v in $(ls /tmp/vllm-src); do python -O tools/vllm_real_options.py /tmp/vllm-src/$v \\
        --out tests/data/vllm-real-options/$v.txt; done

(``-O``: some modules assert on values of the stubbed libraries at import.) Each recorded file names the command
that wrote it and the modules that were stubbed.

``tests/test_vllm_real_options.py`` compares the generated tables with these recorded lists, so CI needs no wheel.
"""

from __future__ import annotations

import abc
import argparse
import importlib
import importlib.abc
import importlib.machinery
import importlib.metadata
import re
import sys
import types
from typing import Any

STUBBED: set[str] = set()
DEFAULT_STUBS = ("vllm.ir", "vllm.v1.serial_utils")
"""vLLM's op IR (0.21.0 on: it checks torch schemas at import) and msgspec serialisation (0.11.1 on: it builds
pydantic schemas from msgspec fields): neither adds an option."""


class _StubMeta(abc.ABCMeta):
    """A stub class: any attribute is another stub class, calling it gives a stub (or the decorated function)."""

    def __new__(mcls, name, bases, ns, **kwargs):
        return super().__new__(mcls, name, bases, ns)

    def __getattr__(cls, name: str):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _stub_class(name)

    def __getitem__(cls, item):
        return cls

    def register(cls, *args, **kwargs):
        return args[-1] if args else None

    def __call__(cls, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs and not isinstance(args[0], type):
            return args[0]
        return super().__call__(*args, **kwargs)

    def __iter__(cls):
        return iter(())

    def __len__(cls):
        return 0

    def __bool__(cls):
        return True


class _Stub(metaclass=_StubMeta):
    """A stub value: falsy, zero, equal to any other stub, usable in annotations, pydantic models and arithmetic."""

    def __init_subclass__(cls, **kwargs):
        pass

    @classmethod
    def __get_pydantic_core_schema__(cls, source, handler):
        from pydantic_core import core_schema

        return core_schema.any_schema()

    def __init__(self, *a, **k):
        pass

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _stub_class(name)()

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return _Stub()

    def __iter__(self):
        return iter(())

    def __getitem__(self, item):
        return _Stub()

    def __bool__(self):
        return False

    def __eq__(self, other):
        return isinstance(other, _Stub)

    def __hash__(self):
        return 0

    def __int__(self):
        return 0

    def __index__(self):
        return 0

    def __float__(self):
        return 0.0

    def __lt__(self, other):
        return False

    __le__ = __gt__ = __ge__ = __lt__


def _arithmetic(self, *args):
    return _Stub()


for _op in ("mul", "rmul", "add", "radd", "sub", "rsub", "truediv", "rtruediv", "floordiv", "rfloordiv", "mod",
            "rmod", "pow", "rpow", "neg", "pos", "abs", "and", "rand", "xor", "rxor", "lshift", "rshift"):
    setattr(_Stub, f"__{_op}__", _arithmetic)
    setattr(_StubMeta, f"__{_op}__", _arithmetic)


def _stub_class(name: str) -> type:
    return _StubMeta(name, (_Stub,), {"__module__": "stub"})


class _StubModule(types.ModuleType):
    def __getattr__(self, name: str):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        value = _stub_class(name)
        setattr(self, name, value)
        return value


# Packages whose presence makes vLLM pick a platform other than the CPU: left absent, not stubbed.
_ABSENT = {"libtpu", "tpu_info", "tpu_commons", "torch_xla", "habana_frameworks", "transformers_neuronx",
           "neuronxcc", "torch_neuronx", "intel_extension_for_pytorch", "oneccl_bindings_for_pytorch", "amdsmi",
           "pynvml", "openvino", "vllm_hpu_extension"}


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, only=None):
        self.only = only

    def find_spec(self, fullname, path, target=None):
        if self.only is not None and not any(fullname == f or fullname.startswith(f + ".") for f in self.only):
            return None
        if fullname.split(".")[0] in sys.stdlib_module_names or fullname.split(".")[0] in _ABSENT:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        module = _StubModule(spec.name)
        module.__path__ = []
        module.__file__ = f"/nonexistent/{spec.name.replace('.', '/')}/__init__.py"
        return module

    def exec_module(self, module):
        STUBBED.add(module.__name__.split(".")[0] if self.only is None else module.__name__)




class _CpuPlatform(importlib.abc.MetaPathFinder):
    """Makes ``vllm.platforms`` resolve to the CPU platform as soon as it is imported."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != "vllm.platforms":
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        original = loader.exec_module

        def exec_module(module: types.ModuleType) -> None:
            original(module)
            if hasattr(module, "resolve_current_platform_cls_qualname"):
                module.resolve_current_platform_cls_qualname = lambda: "vllm.platforms.cpu.CpuPlatform"

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


class _Captured(Exception):
    def __init__(self, parser: argparse.ArgumentParser) -> None:
        super().__init__("captured")
        self.parser = parser


def _serve_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and "serve" in action.choices:
            return action.choices["serve"]
    raise SystemExit("no serve sub-command")


def _kind(action: argparse.Action) -> str:
    """As the tables say it: ``f`` no value, ``o`` an optional value, ``v`` a value."""
    if action.nargs == 0:
        return "f"
    if action.nargs in ("?", "*"):
        return "o"
    return "v"


def options(src: str, stub: list[str]) -> list[str]:
    real_version = importlib.metadata.version

    def version(name: str) -> str:
        try:
            return real_version(name)
        except importlib.metadata.PackageNotFoundError:
            return "99.0.0"

    importlib.metadata.version = version  # type: ignore[assignment]
    try:
        import regex  # noqa: F401
    except ImportError:
        sys.modules["regex"] = re
    sys.meta_path.insert(0, _Finder(stub))
    sys.meta_path.insert(0, _CpuPlatform())
    sys.meta_path.append(_Finder())
    sys.path.insert(0, src)
    platforms: Any = importlib.import_module("vllm.platforms")
    if hasattr(platforms, "resolve_current_platform_cls_qualname"):
        platforms.resolve_current_platform_cls_qualname = lambda: "vllm.platforms.cpu.CpuPlatform"
    platforms._current_platform = importlib.import_module("vllm.platforms.cpu").CpuPlatform()
    platforms.current_platform = platforms._current_platform

    def capture(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> Any:
        raise _Captured(self)

    argparse.ArgumentParser.parse_args = capture  # type: ignore[method-assign]
    argparse.ArgumentParser.parse_known_args = capture  # type: ignore[method-assign]
    sys.argv = ["vllm", "serve", "m"]
    try:
        module = "vllm.entrypoints.cli.main"
        try:
            main = importlib.import_module(module).main
        except ModuleNotFoundError:
            main = importlib.import_module("vllm.scripts").main  # 0.6.6.post1-0.7.2
        else:
            if isinstance(main, type) or getattr(main, "__module__", "") == "stub":
                main = importlib.import_module("vllm.scripts").main
        main()
    except _Captured as captured:
        actions = _serve_parser(captured.parser)._option_string_actions
        return sorted(f"{name} {_kind(action)}" for name, action in actions.items())
    raise SystemExit("the parser was never asked to parse")


def run(argv: list[str] | None = None) -> int:
    cli = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n", 1)[0])
    cli.add_argument("src", help="an unpacked wheel (the folder holding vllm/)")
    cli.add_argument("--stub", action="append", default=list(DEFAULT_STUBS),
                     help=f"a vLLM package to stub too (always: {', '.join(DEFAULT_STUBS)})")
    cli.add_argument("--out", required=True, help="the file to write (vLLM logs to standard output)")
    args = cli.parse_args(argv)
    found = options(args.src, args.stub)
    version = args.src.rstrip("/").rsplit("/", 1)[-1]
    extra = [f"--stub {s}" for s in args.stub if s not in DEFAULT_STUBS]
    command = " ".join(["python -O tools/vllm_real_options.py", f"/tmp/vllm-src/{version}", *extra,
                        f"--out tests/data/vllm-real-options/{version}.txt"])
    lines = [f"# vLLM {version}: option strings of the real `vllm serve` parser and their kind (f, o, v)",
             f"# {command}", f"# stubbed: {' '.join(sorted(STUBBED))}", *found]
    with open(args.out, "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(run())
