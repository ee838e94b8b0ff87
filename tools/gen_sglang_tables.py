#!/usr/bin/env python3
"""Generate relialint's per-release SGLang option and env-var tables (``src/relialint/data/sglang_flags.json``).

The same three stages and the same table format as ``tools/gen_vllm_tables.py`` (so one loader reads both):

1. ``fetch`` (needs PyPI): every release on the index (``tools/artifacts.py list sglang``) into the artifact cache
   (``RELIALINT_ARTIFACTS``; checked against the index's sha256), its ``sglang/**/*.py`` unpacked under
   ``<cache>/src/sglang/<version>/``. ``fetch --offline`` unpacks the wheels already in the cache without asking
   the index.

2. ``extract``: read those sources with :mod:`ast` (nothing of SGLang is imported or run) and write
   ``tools/sglang-extract/<version>.txt`` (committed)::

       python tools/gen_sglang_tables.py extract --offline       # every cached release

3. ``build``: the compact table from the extraction files (no wheel needed; ``tests/test_sglang_tables.py`` runs it
   and fails when the committed table differs)::

       python tools/gen_sglang_tables.py build

What ``extract`` reads, per release:

* **Options**: the parser ``python -m sglang.launch_server`` builds is ``argparse.ArgumentParser()`` plus
  ``ServerArgs.add_cli_args`` of ``sglang/srt/server_args.py`` (every release from 0.1.3 has that module; ``sglang
  serve`` uses the same function). Every ``parser.add_argument(...)`` in it: its option strings (the first long one
  is the canonical name of the others), the kind from ``action=`` (``store_true``/``store_false``/``store_const``
  and an action class whose ``__init__`` defaults ``nargs=0`` -> ``f``; ``BooleanOptionalAction`` -> ``f`` plus
  ``--no-X`` ``n``), else ``nargs=`` (``'?'``/``'*'`` -> ``o``), else ``v``; and ``choices=`` where they are
  literal (a list, tuple or set of constants, a module constant holding one, in ``server_args.py`` or a module it
  imports from, ``[...] + NAME``, ``list(DICT)``/``DICT.keys()`` of a literal dict). From 0.5.14 most options come
  from ``add_cli_args_from_dataclass(parser, ServerArgs)`` (``sglang/srt/arg_groups/arg_utils.py``): every field
  annotated ``A[T, "help"]`` or ``A[T, Arg(...)]`` of ``ServerArgs`` (from 0.5.20 also of the namespace classes of
  ``_INPUT_NAMESPACES``, ``sglang/srt/arg_groups/fields/``) becomes ``--field-name`` (or ``Arg(cli_name=)``) plus
  ``Arg(aliases=)``, unless ``Arg(no_cli=True)``; its kind as that function decides it (an ``action``; ``Literal``
  -> value with the literal choices; a list -> ``nargs`` ``'+'`` unless ``Arg(nargs=)``; ``bool`` -> flag; else a
  value, optional with ``Arg(nargs='?')``).
* **Env vars**: every variable the release's Python reads (``tools/vllm_env_reads.py``: ``os.getenv``,
  ``os.environ``, and functions that pass a parameter to them such as ``get_bool_env_var``), by name pattern
  ``[A-Z][A-Z0-9_]*`` (so ``CUDA_VISIBLE_DEVICES`` too, where SGLang's own code reads it), plus the fields of
  ``class Envs`` in ``sglang/srt/environ.py`` (0.5.3rc2 on: ``envs.SGLANG_X.get()``), their
  ``deprecated_name=`` fallbacks and the keys of ``_DEPRECATED_ENVS``; in the compiled code of the binary wheels
  (0.5.11 on) a NUL-terminated ``SGLANG_*``/``SGL_*`` string of a library that calls ``getenv`` (none so far: the
  compiled parts are Rust extensions, whose strings are not NUL-terminated and run together, so they are not read;
  the one name known to be read there only is ``SGLANG_TONIC_PAYLOAD``, 0.5.23 ``_server``). The wheel's own test
  modules (``sglang/test/``) count as readers too. A variable declared in ``Envs`` has no ``where``; any other is
  marked ``py:<module>`` or ``so:<library>``.
* **Deprecated options**: an option whose ``action=`` is a ``Deprecated*`` class is ``refused`` when that class's
  ``__call__`` raises or stops the parser (to 0.5.7 ``DeprecatedAction`` raises ``ValueError``: the server
  does not start; from 0.5.18 only with ``error_message=``), ``translated`` when it stores the value (for the
  ``new_flag=`` it names), else ``ignored`` (a warning, nothing else).
* The ``SGL_`` -> ``SGLANG_`` rewrite: a release whose ``environ.py`` copies every ``SGL_X`` to ``SGLANG_X`` at
  import reads ``SGL_X`` wherever it reads ``SGLANG_X``; the table says where in ``env_prefix_rewrites``.

Kinds as in the vLLM table: ``v`` value, ``o`` optional value, ``f`` flag, ``n`` negative flag, ``?`` unknown.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import artifacts
import tablejson
import vllm_env_reads
from gen_vllm_tables import _ranges, nargs_kind, version_key

FORMAT = 1
PROJECT = "sglang"
HERE = Path(__file__).resolve().parent
EXTRACT_DIR = HERE / "sglang-extract"
OUT = HERE.parent / "src/relialint/data/sglang_flags.json"
SERVER_ARGS = "sglang/srt/server_args.py"
ENVIRON = "sglang/srt/environ.py"
ENV_NAME = re.compile(r"[A-Z][A-Z0-9_]*[A-Z0-9]")
ENV_MARKERS = ("SGLANG_", "SGL_", "_env")
ENV_STRING = re.compile(rb"(?:(?<=\x00)|^)((?:SGLANG|SGL)_[A-Z0-9_]+)\x00")
_FLAG_ACTIONS = ("store_true", "store_false", "store_const", "count", "help", "version", "append_const")

_MUTATORS = {"append", "extend", "add", "update", "insert", "remove", "pop", "discard", "clear", "setdefault"}
Option = tuple[str, str | None, tuple[str, ...] | None]  # kind, canonical, choices


# -- reading the sources ----------------------------------------------------------------------------------------------


def _str(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _kw(call: ast.Call, name: str) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    return None


class Sources:
    """The parsed parser modules of one release: ``server_args.py`` and ``sglang/srt/arg_groups/**``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.trees: dict[str, ast.Module] = {}
        paths = [root / SERVER_ARGS, *sorted((root / "sglang/srt/arg_groups").rglob("*.py"))]
        for path in paths:
            if path.exists():
                self.trees[path.relative_to(root).as_posix()] = ast.parse(path.read_text(encoding="utf-8"))
        self.classes: dict[str, tuple[str, ast.ClassDef]] = {}
        self.constants: dict[str, dict[str, ast.expr]] = {}
        self.imports: dict[str, dict[str, tuple[str, str]]] = {}
        self.module_classes: dict[str, dict[str, ast.ClassDef]] = {}
        self._text: str | None = None
        self._called: dict[str, bool] = {}
        for rel, tree in self.trees.items():
            self._index(rel, tree)
            for name, cls in self.module_classes[rel].items():
                self.classes.setdefault(name, (rel, cls))

    def _index(self, rel: str, tree: ast.Module) -> None:
        consts: dict[str, ast.expr] = {}
        imports: dict[str, tuple[str, str]] = {}
        classes: dict[str, ast.ClassDef] = {}
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                classes.setdefault(node.name, node)
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                consts[node.targets[0].id] = node.value
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                consts[node.target.id] = node.value
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    imports.setdefault(alias.asname or alias.name, (node.module, alias.name))
        # a value changed after it is bound is not a literal: changed at import, or in a function the wheel calls
        # (a function nothing in the wheel calls, such as the plugin hook ``add_attention_backend_choices``, is not
        # counted: a plugin installed beside SGLang may widen such choices)
        for name, function in _mutations(tree):
            if name in consts and (function is None or self.called(function)):
                consts.pop(name, None)
        self.constants[rel] = consts
        self.imports[rel] = imports
        self.module_classes[rel] = classes

    def called(self, function: str) -> bool:
        """Whether any module of the release calls ``function`` (by name, anywhere but its own ``def``)."""
        if function in self._called:
            return self._called[function]
        if self._text is None:
            self._text = "\n".join(p.read_text(encoding="utf-8", errors="replace")
                                   for p in sorted((self.root / "sglang").rglob("*.py")))
        text, needle, calls = self._text, function + "(", 0
        at = text.find(needle)
        while at >= 0:
            before = text[max(at - 4, 0):at]
            if not (before[-1:].isalnum() or before[-1:] == "_") and before != "def ":
                calls += 1
            at = text.find(needle, at + 1)
        self._called[function] = calls > 0
        return self._called[function]

    def _module(self, dotted: str) -> str | None:
        """The path of an imported SGLang module, parsed on first use (``None``: not in the wheel)."""
        for rel in (dotted.replace(".", "/") + ".py", dotted.replace(".", "/") + "/__init__.py"):
            if rel in self.constants:
                return rel
            path = self.root / rel
            if path.exists():
                try:
                    self._index(rel, ast.parse(path.read_text(encoding="utf-8")))
                except SyntaxError:
                    return None
                return rel
        return None

    def constant(self, rel: str, name: str, depth: int = 0) -> tuple[str, ast.expr] | None:
        """The module-level value bound to ``name`` in module ``rel`` or the module it is imported from."""
        if name in self.constants.get(rel, {}):
            return rel, self.constants[rel][name]
        source = self.imports.get(rel, {}).get(name)
        if source is not None and depth < 4 and source[0].startswith("sglang."):
            module = self._module(source[0])
            if module is not None:
                return self.constant(module, source[1], depth + 1)
        return None

    def class_attribute(self, rel: str, cls_name: str, attr: str, depth: int = 0) -> tuple[str, ast.expr] | None:
        """``Class.ATTR`` where the class body binds ``ATTR`` (the class in ``rel`` or imported into it)."""
        cls = self.module_classes.get(rel, {}).get(cls_name)
        if cls is not None:
            for stmt in cls.body:
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                        and stmt.targets[0].id == attr:
                    return rel, stmt.value
            return None
        source = self.imports.get(rel, {}).get(cls_name)
        if source is not None and depth < 4 and source[0].startswith("sglang."):
            module = self._module(source[0])
            if module is not None:
                return self.class_attribute(module, source[1], attr, depth + 1)
        return None

    def cls(self, name: str) -> tuple[str, ast.ClassDef] | None:
        return self.classes.get(name)


def _mutations(tree: ast.Module) -> Iterator[tuple[str, str | None]]:
    """``(name, enclosing function or None)`` for every in-place change of a module-level name."""
    stack: list[tuple[ast.AST, str | None]] = [(node, None) for node in tree.body]
    while stack:
        node, function = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            function = node.name
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.attr in _MUTATORS:
            yield node.func.value.id, function
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            yield node.target.id, function
        elif isinstance(node, ast.Assign | ast.Delete):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                    yield target.value.id, function
        stack.extend((child, function) for child in ast.iter_child_nodes(node))


def _literal_values(node: ast.expr | None, rel: str, sources: Sources, depth: int = 0) -> list[str] | None:
    """The values of a ``choices=`` expression when they are literal (``None``: computed, unknown here)."""
    if node is None or depth > 6:
        return None
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        out: list[str] = []
        for element in node.elts:
            if isinstance(element, ast.Starred):
                inner = _literal_values(element.value, rel, sources, depth + 1)
                if inner is None:
                    return None
                out.extend(inner)
            elif isinstance(element, ast.Constant) and element.value is not None:
                out.append(str(element.value))
            elif isinstance(element, ast.Name) and (found := sources.constant(rel, element.id)) is not None \
                    and isinstance(found[1], ast.Constant) and found[1].value is not None:
                out.append(str(found[1].value))
            else:
                return None
        return out
    if isinstance(node, ast.Dict):
        keys = [_str(k) if k is not None else None for k in node.keys]
        return None if any(k is None for k in keys) else [k for k in keys if k is not None]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = _literal_values(node.left, rel, sources, depth + 1)
        right = _literal_values(node.right, rel, sources, depth + 1)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.Name):
        found = sources.constant(rel, node.id)
        return _literal_values(found[1], found[0], sources, depth + 1) if found else None
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        found = sources.class_attribute(rel, node.value.id, node.attr)
        return _literal_values(found[1], found[0], sources, depth + 1) if found else None
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("list", "sorted", "tuple", "set") and len(node.args) == 1 \
                and not node.keywords:
            return _literal_values(node.args[0], rel, sources, depth + 1)
        if isinstance(func, ast.Attribute) and func.attr == "keys" and not node.args:
            return _literal_values(func.value, rel, sources, depth + 1)
    return None


def _unique(values: list[str] | None) -> tuple[str, ...] | None:
    if values is None:
        return None
    return tuple(dict.fromkeys(values))


class Collector:
    """Every option string of ``ServerArgs.add_cli_args`` with its kind, canonical name and literal choices."""

    def __init__(self, sources: Sources) -> None:
        self.sources = sources
        self.options: dict[str, Option] = {}
        self.local: set[str] = set()  # names bound in add_cli_args (not the module's constants)
        self.deprecated: dict[str, tuple[str, str]] = {}  # option -> (refused | ignored | translated, new flag)

    def add(self, strings: list[str], kind: str, choices: tuple[str, ...] | None) -> None:
        longs = [s for s in strings if s.startswith("--")]
        canonical = longs[0] if longs else strings[0]
        if kind == "pair":
            for s in strings:
                self.options.setdefault(s, ("f", None if s == canonical else canonical, None))
                if s.startswith("--"):
                    self.options.setdefault("--no-" + s[2:], ("n", canonical, None))
            return
        for s in strings:
            self.options.setdefault(s, (kind, None if s == canonical else canonical, choices))

    def action_kind(self, node: ast.expr, nargs: ast.expr | None) -> str:
        """The kind an ``action=`` gives (with the call's own ``nargs=``, if any)."""
        text = _str(node)
        if text is not None:
            return "f" if text in _FLAG_ACTIONS else nargs_kind(nargs)
        name = ast.unparse(node).rsplit(".", 1)[-1]
        if name == "BooleanOptionalAction":
            return "pair"
        if nargs is not None:
            return nargs_kind(nargs)
        found = self.sources.cls(name)
        if found is None:
            return "v" if name in ("Action", "_StoreAction") else "?"
        for item in found[1].body:
            if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                args = item.args
                positional = args.args[len(args.args) - len(args.defaults):]
                for arg, default in [*zip(positional, args.defaults, strict=True),
                                     *zip(args.kwonlyargs, args.kw_defaults, strict=True)]:
                    if arg.arg == "nargs":
                        return nargs_kind(default)
                return "v"  # an __init__ without a nargs default passes none: argparse's one value
        for base in found[1].bases:  # no __init__ of its own: the base class decides
            return self.action_kind(base, None)
        return "v"  # argparse.Action's own default: nargs None, one value

    def call(self, call: ast.Call, rel: str) -> None:
        strings = [s for s in (_str(a) for a in call.args) if s is not None]
        if not strings or len(strings) != len(call.args):
            return
        action, nargs = _kw(call, "action"), _kw(call, "nargs")
        kind = self.action_kind(action, nargs) if action is not None else nargs_kind(nargs)
        node = _kw(call, "choices")
        local = node is not None and any(isinstance(n, ast.Name) and n.id in self.local for n in ast.walk(node))
        choices = None if local else _unique(_literal_values(node, rel, self.sources))
        self.add(strings, kind, choices)
        if action is not None:
            self.deprecation(strings, action, call.keywords)

    def deprecation(self, strings: list[str], action: ast.expr, keywords: list[ast.keyword]) -> None:
        """What an action class does with the option when ``__call__`` runs: ``refused`` (it raises or stops the
        parser: the server does not start), ``translated`` (it stores a value, under another option's name when
        ``new_flag=`` says so) or ``ignored`` (it only warns); plain argparse actions are not recorded."""
        found = self.sources.cls(ast.unparse(action).rsplit(".", 1)[-1])
        if found is None or not found[1].name.startswith("Deprecated"):
            return
        body = next((item for item in found[1].body if isinstance(item, ast.FunctionDef)
                     and item.name == "__call__"), None)
        if body is None:
            return
        given = {k.arg: k.value for k in keywords if k.arg}
        behaviour = "ignored"
        for node in ast.walk(body):
            if isinstance(node, ast.Raise):
                behaviour = "refused"
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "error":
                guarded = [n for n in ast.walk(body) if isinstance(n, ast.If) and node in ast.walk(n)]
                names = {a.attr for g in guarded for a in ast.walk(g.test) if isinstance(a, ast.Attribute)}
                if not guarded or any(name in given and not (isinstance(given[name], ast.Constant)
                                                             and given[name].value is None) for name in names):
                    behaviour = "refused"
            elif behaviour == "ignored" and isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id == "setattr":
                behaviour = "translated"
        new_flag = _str(given.get("new_flag")) or ""
        for option in strings:
            self.deprecated.setdefault(option, (behaviour, new_flag))

    def add_cli_args(self) -> None:
        found = self.sources.cls("ServerArgs")
        if found is None:
            raise SystemExit(f"{self.sources.root}: no class ServerArgs in {SERVER_ARGS}")
        rel, cls = found
        function = next((item for item in cls.body if isinstance(item, ast.FunctionDef)
                         and item.name == "add_cli_args"), None)
        if function is None:
            raise SystemExit(f"{self.sources.root}: no ServerArgs.add_cli_args")
        self.local = {t.id for node in ast.walk(function)
                      if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign)
                      for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                      if isinstance(t, ast.Name)}
        for node in ast.walk(function):
            if not isinstance(node, ast.Call):
                continue
            if isinstance(node.func, ast.Name) and node.func.id == "add_cli_args_from_dataclass":
                self.dataclass_fields(rel, cls)
            elif isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
                self.call(node, rel)

    # -- 0.5.14 on: options derived from annotated fields ----------------------------------------------------------

    def _field_classes(self, rel: str, cls: ast.ClassDef) -> Iterator[tuple[str, ast.ClassDef]]:
        namespaces = self.sources.constants.get(rel, {}).get("_INPUT_NAMESPACES")
        if isinstance(namespaces, ast.List):
            for element in namespaces.elts:
                if isinstance(element, ast.Name):
                    found = self.sources.cls(element.id)
                    if found is None:
                        raise SystemExit(f"{self.sources.root}: namespace class {element.id} not found")
                    yield from self._with_bases(*found)
        yield rel, cls

    def _with_bases(self, rel: str, cls: ast.ClassDef) -> Iterator[tuple[str, ast.ClassDef]]:
        for base in cls.bases:
            found = self.sources.cls(ast.unparse(base).rsplit(".", 1)[-1])
            if found is not None:
                yield from self._with_bases(*found)
        yield rel, cls

    def dataclass_fields(self, rel: str, cls: ast.ClassDef) -> None:
        for field_rel, field_cls in self._field_classes(rel, cls):
            for stmt in field_cls.body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    self.field(field_rel, stmt.target.id, stmt.annotation)

    def field(self, rel: str, name: str, annotation: ast.expr) -> None:
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            annotation = ast.parse(annotation.value, mode="eval").body
        if not (isinstance(annotation, ast.Subscript)
                and ast.unparse(annotation.value).rsplit(".", 1)[-1] in ("A", "Annotated")
                and isinstance(annotation.slice, ast.Tuple)):
            return
        inner, *meta = annotation.slice.elts
        arg: ast.Call | None = None
        for item in meta:
            if isinstance(item, ast.Call) and ast.unparse(item.func).rsplit(".", 1)[-1] == "Arg":
                arg = item
                break
            if _str(item) is not None:
                break
        else:
            return  # no Arg and no help string: not registered automatically
        keys: dict[str, ast.expr] = {k.arg: k.value for k in arg.keywords if k.arg} if arg is not None else {}
        no_cli = keys.get("no_cli")
        if isinstance(no_cli, ast.Constant) and no_cli.value is True:
            return
        cli_name = _str(keys.get("cli_name")) or "--" + name.replace("_", "-")
        aliases = _literal_values(keys.get("aliases"), rel, self.sources) or []
        names = [cli_name, *aliases]
        nargs = keys.get("nargs")
        arg_choices = _unique(_literal_values(keys.get("choices"), rel, self.sources))
        if "action" in keys:
            action_kwargs = keys.get("action_kwargs")
            kw_nargs = None
            if isinstance(action_kwargs, ast.Dict):
                for k, v in zip(action_kwargs.keys, action_kwargs.values, strict=True):
                    if _str(k) == "nargs":
                        kw_nargs = v
            self.add(names, self.action_kind(keys["action"], kw_nargs), arg_choices)
            self.deprecation(names, keys["action"], arg.keywords if arg is not None else [])
            return
        inner = _unwrap_optional(inner)
        literal = _literal_of(inner, rel, self.sources)
        if literal is not None:
            self.add(names, "v", arg_choices if "choices" in keys else _unique(literal))
            return
        head = ast.unparse(inner.value if isinstance(inner, ast.Subscript) else inner).rsplit(".", 1)[-1]
        if head in ("list", "List") and "type_parser" not in keys:
            self.add(names, nargs_kind(nargs) if nargs is not None else "v", arg_choices)
            return
        if head == "bool":
            self.add(names, "f", None)
            return
        self.add(names, nargs_kind(nargs), arg_choices)


def _unwrap_optional(node: ast.expr) -> ast.expr:
    """``Optional[X]``, ``X | None``, ``Union[X, None]`` -> ``X`` (with exactly one other member)."""
    members: list[ast.expr]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        members = [node.left, node.right]
    elif isinstance(node, ast.Subscript) and ast.unparse(node.value).rsplit(".", 1)[-1] == "Optional":
        return node.slice
    elif isinstance(node, ast.Subscript) and ast.unparse(node.value).rsplit(".", 1)[-1] == "Union" \
            and isinstance(node.slice, ast.Tuple):
        members = list(node.slice.elts)
    else:
        return node
    others = [m for m in members if ast.unparse(m) not in ("None", "NoneType", "type(None)")]
    return others[0] if len(others) == 1 and len(members) == 2 else node


def _literal_of(node: ast.expr, rel: str, sources: Sources, depth: int = 0) -> list[str] | None:
    """The values of ``Literal[...]`` (directly or through a module-level alias), else ``None``."""
    if depth > 4:
        return None
    if isinstance(node, ast.Subscript) and ast.unparse(node.value).rsplit(".", 1)[-1] == "Literal":
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        values = [str(i.value) for i in items if isinstance(i, ast.Constant)]
        return values if len(values) == len(items) else None
    if isinstance(node, ast.Name):
        found = sources.constant(rel, node.id)
        if found is not None:
            return _literal_of(found[1], found[0], sources, depth + 1)
    return None


def options_from_source(root: Path) -> dict[str, Option]:
    return read_parser(root)[0]


def read_parser(root: Path) -> tuple[dict[str, Option], dict[str, tuple[str, str]]]:
    """The options of the release under ``root``, and its deprecated options (:meth:`Collector.deprecation`)."""
    collector = Collector(Sources(root))
    collector.add_cli_args()
    return collector.options, collector.deprecated


# -- env vars ---------------------------------------------------------------------------------------------------------


def _declared_envs(root: Path) -> tuple[set[str], set[str], bool]:
    """``class Envs`` of ``sglang/srt/environ.py``: the declared names, the names read only as a deprecated fallback
    or a deprecation warning, and whether the module rewrites ``SGL_*`` to ``SGLANG_*``."""
    path = root / ENVIRON
    if not path.exists():
        return set(), set(), False
    tree = ast.parse(path.read_text(encoding="utf-8"))
    declared: set[str] = set()
    deprecated: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Envs":
            for stmt in node.body:
                target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else (
                    stmt.target if isinstance(stmt, ast.AnnAssign) else None)
                value = stmt.value if isinstance(stmt, ast.Assign | ast.AnnAssign) else None
                if isinstance(target, ast.Name) and isinstance(value, ast.Call) \
                        and ast.unparse(value.func).startswith("Env"):
                    declared.add(target.id)
                    old = _str(_kw(value, "deprecated_name"))
                    if old:
                        deprecated.add(old)
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else (
            node.target if isinstance(node, ast.AnnAssign) else None)
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        if isinstance(target, ast.Name) and target.id == "_DEPRECATED_ENVS" and isinstance(value, ast.Dict):
            deprecated.update(s for s in (_str(k) for k in value.keys if k is not None) if s)
    text = ast.unparse(tree)
    rewrite = bool(re.search(r"startswith\('SGL_'\)", text)) and "'SGLANG_'" in text
    return declared, deprecated - declared, rewrite


def env_reads(root: Path, wheel: Path | None,
              memo: dict[Any, Any] | None = None) -> tuple[dict[str, str], bool]:
    """Every variable the release reads -> ``""`` where ``class Envs`` declares it, else where it is read
    (``py:<module>``, ``so:<library>``); and whether ``SGL_*`` is rewritten to ``SGLANG_*``."""
    declared, deprecated, rewrite = _declared_envs(root)
    out = dict.fromkeys(declared, "")
    for name in deprecated:
        out.setdefault(name, "py:" + ENVIRON)
    for name, where in vllm_env_reads.python_reads(root, PROJECT, ENV_NAME, ENV_MARKERS, memo).items():
        out.setdefault(name, "py:" + where)
    if wheel is not None and not wheel.name.endswith("-none-any.whl"):
        for name, where in vllm_env_reads.compiled_reads(wheel, ENV_STRING).items():
            out.setdefault(name, "so:" + where)
    return dict(sorted(out.items())), rewrite


# -- extraction files -------------------------------------------------------------------------------------------------


def write_extract(out_dir: Path, version: str, source: str, opts: dict[str, Option], envs: dict[str, str],
                  rewrite: bool, deprecated: dict[str, tuple[str, str]] | None = None) -> None:
    """``opt NAME KIND [CANONICAL|-] [choices=A,B,...]``, ``dep NAME BEHAVIOUR [NEW_FLAG]``, ``env NAME [WHERE]``,
    ``rewrite SGL_ SGLANG_`` (choices as a JSON list; a new flag may hold spaces)."""
    lines = [f"# SGLang {version}: {source} (tools/gen_sglang_tables.py extract)"]
    for name, (kind, canonical, choices) in sorted(opts.items()):
        line = f"opt {name} {kind}"
        if canonical or choices is not None:
            line += f" {canonical or '-'}"
        if choices is not None:
            line += " choices=" + json.dumps(list(choices), separators=(",", ":"))
        lines.append(line)
    for name, (behaviour, new_flag) in sorted((deprecated or {}).items()):
        lines.append(f"dep {name} {behaviour}" + (f" {new_flag}" if new_flag else ""))
    lines.extend(f"env {name}" + (f" {where}" if where else "") for name, where in sorted(envs.items()))
    if rewrite:
        lines.append("rewrite SGL_ SGLANG_")
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"{version}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


Extract = tuple[dict[str, Option], dict[str, str], str, bool, dict[str, tuple[str, str]]]


def read_extract(path: Path) -> Extract:
    opts: dict[str, Option] = {}
    envs: dict[str, str] = {}
    source = ""
    rewrite = False
    deprecated: dict[str, tuple[str, str]] = {}
    for line in path.read_text(encoding="utf-8").split("\n"):
        parts = line.split(" ", 4 if line.startswith("opt ") else 3)
        if not parts or not parts[0]:
            continue
        if parts[0] == "#":
            source = line.split(": ", 1)[1].rsplit(" (tools/", 1)[0]
        elif parts[0] == "opt":
            canonical = parts[3] if len(parts) > 3 and parts[3] != "-" else None
            choices = None
            if len(parts) > 4 and parts[4].startswith("choices="):
                choices = tuple(json.loads(parts[4][len("choices="):]))
            opts[parts[1]] = (parts[2], canonical, choices)
        elif parts[0] == "env":
            envs[parts[1]] = parts[2] if len(parts) > 2 else ""
        elif parts[0] == "dep":
            deprecated[parts[1]] = (parts[2], parts[3] if len(parts) > 3 else "")
        elif parts[0] == "rewrite":
            rewrite = True
    return opts, envs, source, rewrite, deprecated


# -- the compact table ------------------------------------------------------------------------------------------------


NOTE = ("SGLang launch_server options (ServerArgs.add_cli_args, incl. options derived from annotated config "
        "fields) and the env vars the release's code reads, by release; option -> [[first, last, kind(, "
        "canonical)]] over indices into versions; kinds: v value, o optional value, f flag, n negative flag, "
        "? unknown; env var -> [[first, last(, where)]], where (py:module or so:library) when the release does not "
        "declare it in class Envs of sglang/srt/environ.py (which exists from 0.5.3rc2; before it every variable "
        "has a where); names other than SGLANG_*/SGL_* are listed where SGLang's own code reads them, and other "
        "libraries may read them too; choices: option -> [[first, last, [values]]] where the parser's choices= "
        "(or a Literal field type) is literal (no entry: any value, or computed at run time); "
        "env_prefix_rewrites: prefix -> [[first, last, new prefix]]: those releases copy every SGL_X to SGLANG_X "
        "at import, so SGL_X is read wherever SGLANG_X is; deprecated: option -> [[first, last, behaviour(, new "
        "flag)]] for the options a Deprecated* action class handles: refused (the parser raises or errors: the "
        "server does not start), ignored (a warning, the option does nothing), translated (a warning, the value "
        "goes to the new flag's setting); sources: the wheel each release was read from")


def assemble(per_version: dict[str, Extract]) -> dict[str, Any]:
    versions = sorted(per_version, key=version_key)
    options: dict[str, list[tuple[int, Any]]] = {}
    choices: dict[str, list[tuple[int, Any]]] = {}
    env: dict[str, list[tuple[int, Any]]] = {}
    rewrites: list[tuple[int, Any]] = []
    deprecations: dict[str, list[tuple[int, Any]]] = {}
    for index, version in enumerate(versions):
        opts, envs, _, rewrite, deprecated = per_version[version]
        for option, (behaviour, new_flag) in sorted(deprecated.items()):
            deprecations.setdefault(option, []).append(
                (index, (behaviour, new_flag) if new_flag else (behaviour,)))
        for option, (kind, canonical, values) in sorted(opts.items()):
            options.setdefault(option, []).append((index, (kind,) if canonical is None else (kind, canonical)))
            if values is not None:
                choices.setdefault(option, []).append((index, (list(values),)))
        for name, where in sorted(envs.items()):
            env.setdefault(name, []).append((index, (where,) if where else ()))
        if rewrite:
            rewrites.append((index, ("SGLANG_",)))
    return {
        "format": FORMAT,
        "generator": "tools/gen_sglang_tables.py",
        "note": NOTE,
        "versions": versions,
        "sources": {v: per_version[v][2] for v in versions},
        "incomplete": [v for v in versions if not per_version[v][2].startswith("wheel ")],
        "options": {name: _ranges(present) for name, present in sorted(options.items())},
        "env": {name: _ranges(present) for name, present in sorted(env.items())},
        "renames": {},
        "choices": {name: _ranges(present) for name, present in sorted(choices.items())},
        "env_prefix_rewrites": {"SGL_": _ranges(rewrites)} if rewrites else {},
        "deprecated": {name: _ranges(present) for name, present in sorted(deprecations.items())},
    }


def dumps(table: dict[str, Any]) -> str:
    return tablejson.dumps(table, nested=("options", "env", "renames", "choices", "env_prefix_rewrites",
                                        "deprecated"))


def build(extract_dir: Path) -> dict[str, Any]:
    return assemble({p.stem: read_extract(p) for p in extract_dir.glob("*.txt")})


# -- wheels -----------------------------------------------------------------------------------------------------------


def cached_releases() -> dict[str, artifacts.Artifact]:
    """The releases whose wheel is in the cache (offline: the file stands for itself; its sha256 was checked
    against the index when it was downloaded)."""
    best: dict[str, tuple[int, Path]] = {}
    for path in sorted((artifacts.cache_dir() / "pypi" / PROJECT).glob("sglang-*.whl")):
        rank = artifacts._wheel_rank(path.name)
        version = artifacts._version_of(PROJECT, path.name)
        if rank is None or version is None:
            continue
        if version not in best or rank < best[version][0]:
            best[version] = (rank, path)
    return {v: artifacts.Artifact(PROJECT, v, p.name, "", "", p.stat().st_size)
            for v, (_, p) in sorted(best.items(), key=lambda kv: version_key(kv[0]))}


def unpacked(art: artifacts.Artifact) -> Path:
    dest = artifacts.cache_dir() / "src" / PROJECT / art.version
    if (dest / ".done").exists():
        return dest
    suffixes, prefix = artifacts.UNPACK[PROJECT]
    if art.sha256:
        return artifacts.unpack(art, suffixes, prefix)
    artifacts._unpack_into(dest, art.path, suffixes, prefix, artifacts.sha256_of(art.path))
    return dest


def releases(offline: bool) -> dict[str, artifacts.Artifact]:
    if offline:
        return cached_releases()
    return {v: a for v, a in sorted(artifacts.index(PROJECT).items(), key=lambda kv: version_key(kv[0]))}


def extract(offline: bool, out_dir: Path, versions: list[str], options_only: bool = False) -> None:
    known = releases(offline)
    memo: dict[Any, Any] = {}  # modules unchanged from the release before are not parsed again
    for version in versions or list(known):
        art = known.get(version)
        if art is None:
            raise SystemExit(f"SGLang {version}: no wheel" + (" in the cache" if offline else " in the index"))
        if not offline:
            artifacts.fetch(art)
        root = unpacked(art)
        opts, deprecated = read_parser(root)
        previous = out_dir / f"{version}.txt"
        if options_only and previous.exists():
            kept = [line for line in previous.read_text(encoding="utf-8").split("\n")
                    if line.startswith(("env ", "rewrite "))]
            envs = {parts[1]: parts[2] if len(parts) > 2 else "" for parts in
                    (line.split(" ", 2) for line in kept if line.startswith("env "))}
            rewrite = any(line.startswith("rewrite ") for line in kept)
        else:
            envs, rewrite = env_reads(root, art.path, memo)
        write_extract(out_dir, version, f"wheel {art.filename}", opts, envs, rewrite, deprecated)
        print(f"extracted {version}: {len(opts)} options, {len(envs)} env vars", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n", 1)[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_fetch = sub.add_parser("fetch", help="download (or find) every release's wheel and unpack its Python files")
    p_fetch.add_argument("--offline", action="store_true", help="only the wheels already in the cache")
    p_fetch.add_argument("versions", nargs="*")
    p_extract = sub.add_parser("extract", help="read the wheels' sources into tools/sglang-extract")
    p_extract.add_argument("--offline", action="store_true", help="every release in the cache, not the index")
    p_extract.add_argument("--out-dir", type=Path, default=EXTRACT_DIR)
    p_extract.add_argument("--options-only", action="store_true",
                           help="read the options again, keep the env vars of the existing extraction file")
    p_extract.add_argument("versions", nargs="*")
    p_build = sub.add_parser("build", help="write the compact table from the extraction files")
    p_build.add_argument("--extract-dir", type=Path, default=EXTRACT_DIR)
    p_build.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if args.command == "fetch":
        known = releases(args.offline)
        for version in args.versions or list(known):
            art = known[version]
            if not args.offline:
                artifacts.fetch(art)
            unpacked(art)
            print(f"fetched {version}", file=sys.stderr)
    elif args.command == "extract":
        extract(args.offline, args.out_dir, args.versions, args.options_only)
    else:
        tablejson.write(dumps(build(args.extract_dir)), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
