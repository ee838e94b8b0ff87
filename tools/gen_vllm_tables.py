#!/usr/bin/env python3
"""Generate relialint's per-version vLLM option and env-var tables (``src/relialint/data/vllm_flags.json``).

Three stages, so that the committed data can be re-checked without network access:

1. ``fetch`` (needs PyPI): each released wheel into the artifact cache of ``tools/artifacts.py``
   (``RELIALINT_ARTIFACTS``, default ``~/.cache/relialint-artifacts``: downloaded once, checked against the
   index's sha256 and kept under ``pypi/vllm/``), with the package's Python files (``vllm/**/*.py``) unpacked under
   ``src/vllm/<version>/``::

       python tools/gen_vllm_tables.py fetch 0.30.0 0.33.0 ...     # no versions: those in tools/vllm-extract

2. ``extract``: read those sources with :mod:`ast` and the wheels' shared objects as bytes (nothing is imported or
   executed) and write one text file per version to ``tools/vllm-extract/<version>.txt`` (committed)::

       python tools/gen_vllm_tables.py extract            # --src <cache>/src/vllm --wheels <cache>/pypi/vllm

   For a version without unpacked sources, ``--reference DIR`` supplies the option names from
   ``vllm-options/opts_<v>.txt`` (the ``add_argument`` lists: they miss the options generated from config
   dataclasses) and the env vars from ``vllm-env/envs_<v>.txt``; such options have an unknown kind (``?``) and
   the table lists those versions under ``incomplete``.

3. ``build``: the compact table from the extraction files, with the engine's own replacements for removed options
   and variables from ``tools/vllm-extract/renames.list`` (written by hand from the wheels' deprecation code; each
   line names its source)::

       python tools/gen_vllm_tables.py build      # -> src/relialint/data/vllm_flags.json

What ``extract`` reads, per version:

* every ``add_argument(...)`` call in ``vllm/engine/arg_utils.py``, in the module that defines
  ``make_arg_parser`` (the server's flags; ``entrypoints/openai``, ``launchers`` or ``common`` ``cli_args.py``) and
  in ``entrypoints/cli/serve.py``: literal option strings, ``action=``, ``nargs=``;
* ``**X_kwargs["field"]`` where ``X_kwargs = get_kwargs(SomeConfig)``: the field's annotation in the config
  dataclass decides the kind as ``get_kwargs`` does (``bool`` -> ``BooleanOptionalAction`` pair where that
  version's ``get_kwargs`` uses it, ``bool | str | None`` -> optional value, anything else -> a value), and later
  mutations such as ``X_kwargs["field"]["action"] = ...`` or ``del X_kwargs["field"]["nargs"]`` are applied;
* loops ``for key, value in get_kwargs(cls).items(): add_argument(*flags, f"--{key}")`` (the frontend
  dataclasses such as ``FrontendArgs``): every field of that class and its bases, with extra ``flags``;
* loops over a literal list, ``for arg, type in [("--guided-decoding-backend", str), ...]: add_argument(arg, ...)``
  (the deprecated guided-decoding options of 0.11.0-0.11.2): one option per item;
* ``SkipValidation[bool]`` read as ``bool`` (``--enable-chunked-prefill`` / ``--no-enable-chunked-prefill`` in
  0.9.2-0.11.0);
* ``vllm/scripts.py`` (0.6.6.post1-0.7.2): the ``serve_parser.add_argument`` calls of ``vllm serve`` (``--config``);
* ``EnableDisableAction`` (0.33.0): every ``--enable-X``/``--disable-X`` boolean pair also accepts the inverse;
* the env vars: the keys of ``environment_variables`` in ``vllm/envs.py``, plus every ``VLLM_*`` name the release
  reads anywhere else, in its Python (through ``os.getenv``/``os.environ`` with the name written out or bound to a
  name, or through a function that passes its parameter to one: ``VLLM_BATCH_INVARIANT`` in
  ``model_executor/layers/batch_invariant.py`` of 0.11.1; also a name vLLM assigns for its workers or kernels) and
  in the compiled code the wheel ships (a ``VLLM_*`` string of its own in a library that calls ``getenv``:
  ``VLLM_CUSTOM_ALLREDUCE_ALGO`` in ``vllm/_C.abi3.so`` from 0.10.2). ``tools/vllm_env_reads.py`` says exactly what
  counts. The extraction file marks a name read outside ``environment_variables`` with where it is read
  (``env VLLM_X py:vllm/...py`` or ``so:vllm/_C.abi3.so``), and so does the table's range: from 0.17.0 vLLM refuses
  to start on such a name when ``--fail-on-environ-validation`` is set (``envs.validate_environ``).

All 55 releases from 0.6.6.post1 to 0.33.0 are extracted from their wheels::

    python tools/gen_vllm_tables.py fetch && python tools/gen_vllm_tables.py extract && \
        python tools/gen_vllm_tables.py build

The output is compact: versions are listed once and every option string maps to ranges of version indices with
its kind, so a lookup for one version is a scan of a short list. Kinds: ``v`` takes a value, ``o`` takes an
optional value, ``f`` a flag without value, ``n`` the negative flag of a boolean pair, ``?`` unknown.
``tests/test_flags.py`` runs ``build`` on the committed extraction files into a temporary file and fails when it
differs from the committed table.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import artifacts
import tablejson
import vllm_env_reads

FORMAT = 1
HERE = Path(__file__).resolve().parent
EXTRACT_DIR = HERE / "vllm-extract"
OUT = HERE.parent / "src/relialint/data/vllm_flags.json"
KINDS = ("v", "o", "f", "n", "?")

# -- versions -------------------------------------------------------------------------------------------------------


def version_key(text: str) -> tuple[Any, ...]:
    """PEP 440 order for the released versions this table holds (``0.6.6.post1`` after ``0.6.6``)."""
    match = re.fullmatch(r"(\d+(?:\.\d+)*)(?:(rc|a|b)(\d+))?(?:\.post(\d+))?", text)
    if not match:
        raise ValueError(f"not a release version: {text}")
    release = tuple(int(p) for p in match.group(1).split("."))
    release = release + (0,) * (4 - len(release))
    pre = (0, match.group(2), int(match.group(3))) if match.group(2) else (1, "", 0)
    post = int(match.group(4)) if match.group(4) else -1
    return (release, pre, post)


# -- stage 1: fetch -------------------------------------------------------------------------------------------------

# the modules the parser is built from (the rest is read only for env-var names)
_PARSER_FILES = ("vllm/engine/arg_utils", "vllm/config", "vllm/entrypoints/", "vllm/utils", "vllm/envs.py",
                 "vllm/scripts.py")


def fetch(versions: list[str]) -> None:
    """Each release's wheel into the artifact cache (``tools/artifacts.py``: downloaded once, checked against the
    index's sha256, kept), with its Python files unpacked under ``<cache>/src/vllm/<version>/``."""
    releases = artifacts.index("vllm")
    for version in versions:
        art = releases.get(version)
        if art is None:
            raise SystemExit(f"vLLM {version}: no wheel in the index")
        suffixes, prefix = artifacts.UNPACK["vllm"]
        artifacts.unpack(art, suffixes, prefix)
        print(f"fetched {version}", file=sys.stderr)


# -- stage 2: build from sources ------------------------------------------------------------------------------------


def _members(node: ast.expr | None) -> list[str]:
    """The top-level members of a type annotation union (``bool | None`` -> ``["bool", "None"]``)."""
    if node is None:
        return []
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return [node.value]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _members(node.left) + _members(node.right)
    if isinstance(node, ast.Subscript):
        head = ast.unparse(node.value).rsplit(".", 1)[-1]
        if head in ("Optional", "Union"):
            inner = node.slice
            items = list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]
            out = [m for item in items for m in _members(item)]
            return out + (["None"] if head == "Optional" else [])
        if head in ("Annotated", "SkipValidation"):  # pydantic's SkipValidation[T] is Annotated[T, ...]
            inner = node.slice
            first = inner.elts[0] if isinstance(inner, ast.Tuple) and head == "Annotated" else inner
            return _members(first)
    text = ast.unparse(node)
    return ["None" if text in ("None", "NoneType") else text]


class Sources:
    """The parsed modules of one version."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.trees: dict[Path, ast.Module] = {}
        self.classes: dict[str, list[ast.ClassDef]] = {}
        for path in sorted(root.rglob("*.py")):
            if not path.relative_to(root).as_posix().startswith(_PARSER_FILES):
                continue
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"))
            except (SyntaxError, UnicodeDecodeError):
                continue
            self.trees[path] = tree
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    self.classes.setdefault(node.name, []).append(node)
        get_kwargs = self._function_source("get_kwargs") + self._function_source("_compute_kwargs")
        self.bool_pairs = "BooleanOptionalAction" in get_kwargs
        self.optional_bool_str = '"?"' in get_kwargs or "'?'" in get_kwargs
        argparse_text = "".join(p.read_text(encoding="utf-8") for p in root.glob("vllm/utils*.py"))
        argparse_text += "".join(p.read_text(encoding="utf-8") for p in root.glob("vllm/utils/*.py"))
        self.enable_disable = "class EnableDisableAction" in argparse_text

    def _function_source(self, name: str) -> str:
        for path, tree in self.trees.items():
            if "arg_utils" not in path.name:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef) and node.name == name:
                    return ast.unparse(node)
        return ""

    def fields(self, class_name: str, seen: set[str] | None = None) -> dict[str, ast.expr | None]:
        """Annotated fields of a class and its bases (bases first, so a subclass overrides)."""
        seen = seen or set()
        if class_name in seen:
            return {}
        seen.add(class_name)
        out: dict[str, ast.expr | None] = {}
        for cls in self.classes.get(class_name, [])[:1]:
            for base in cls.bases:
                out.update(self.fields(ast.unparse(base).rsplit(".", 1)[-1], seen))
            for stmt in cls.body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    if "ClassVar" in ast.unparse(stmt.annotation):
                        continue
                    out[stmt.target.id] = stmt.annotation
        return out

    def field_kind(self, class_name: str, field: str) -> str:
        annotation = self.fields(class_name).get(field)
        if annotation is None:
            return "v"
        members = set(_members(annotation))
        if members == {"bool", "str", "None"} and self.optional_bool_str:
            return "o"
        if "bool" in members:
            return "pair" if self.bool_pairs else "f"
        return "v"


def _str(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _action_kind(node: ast.expr) -> str | None:
    text = _str(node)
    if text is not None:
        if text in ("store_true", "store_false", "store_const", "count", "help", "version", "append_const"):
            return "f"
        return "v"
    name = ast.unparse(node).rsplit(".", 1)[-1]
    if name in ("BooleanOptionalAction", "EnableDisableAction"):
        return "pair"
    if name == "StoreBoolean":
        return "v"
    return None


def nargs_kind(node: ast.expr | None) -> str:
    """An argparse ``nargs=`` as a table kind: optional value (o), flag (f) or value (v); SGLang's tables too."""
    value = node.value if isinstance(node, ast.Constant) else None
    if value in ("?", "*"):
        return "o"
    if value == 0:
        return "f"
    return "v"


class Collector:
    """Walks the modules that build ``vllm serve``'s parser and records every option string."""

    def __init__(self, sources: Sources) -> None:
        self.sources = sources
        self.options: dict[str, tuple[str, str | None]] = {}  # option -> (kind, canonical long name or None)
        self.receiver: str | None = None  # only ``<receiver>.add_argument`` calls (``serve_parser`` in scripts.py)

    def add(self, strings: list[str], kind: str) -> None:
        longs = [s for s in strings if s.startswith("--")]
        canonical = longs[0] if longs else strings[0]
        if kind == "pair":
            for s in strings:
                self.options.setdefault(s, ("f", None if s == canonical else canonical))
                if s.startswith("--"):
                    self.options.setdefault("--no-" + s[2:], ("n", canonical))
            if self.sources.enable_disable:
                for s in longs:
                    for prefix, inverse in (("--enable-", "--disable-"), ("--disable-", "--enable-")):
                        if s.startswith(prefix):
                            self.options.setdefault(inverse + s[len(prefix):], ("n", canonical))
            return
        for s in strings:
            self.options.setdefault(s, (kind, None if s == canonical else canonical))

    def run(self, tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self._function(node)

    def _function(self, func: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        bindings: dict[str, tuple[str, str | None]] = {}  # var -> (class, field or None)
        mutations: dict[tuple[str, str], dict[str, ast.expr | None]] = {}
        for node in ast.walk(func):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
                if isinstance(target, ast.Name):
                    bound = self._get_kwargs(value)
                    if bound is not None:
                        bindings[target.id] = bound
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Subscript) \
                        and isinstance(target.value.value, ast.Name):
                    field, key = _str(target.value.slice), _str(target.slice)
                    if field and key:
                        mutations.setdefault((target.value.value.id, field), {})[key] = value
            if isinstance(node, ast.Delete):
                for target in node.targets:
                    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Subscript) \
                            and isinstance(target.value.value, ast.Name):
                        field, key = _str(target.value.slice), _str(target.slice)
                        if field and key:
                            mutations.setdefault((target.value.value.id, field), {})[key] = None
        for node in ast.walk(func):
            if isinstance(node, ast.For) and isinstance(node.iter, ast.Call) \
                    and isinstance(node.iter.func, ast.Attribute) and node.iter.func.attr == "items" \
                    and isinstance(node.iter.func.value, ast.Name) and node.iter.func.value.id in bindings:
                self._loop(node, bindings[node.iter.func.value.id], func)
        looped: set[int] = set()
        for node in ast.walk(func):
            if isinstance(node, ast.For) and isinstance(node.iter, ast.List | ast.Tuple):
                looped |= self._literal_loop(node, bindings, mutations)
        for node in ast.walk(func):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "add_argument" and id(node) not in looped:
                if self.receiver is None or ast.unparse(node.func.value) == self.receiver:
                    self._call(node, bindings, mutations)

    def _literal_loop(self, loop: ast.For, bindings: dict[str, tuple[str, str | None]],
                      mutations: dict[tuple[str, str], dict[str, ast.expr | None]]) -> set[int]:
        """``for arg, type in [("--x", str), ...]: add_argument(arg, type=type, ...)``: one call per item."""
        names = [loop.target] if isinstance(loop.target, ast.Name) else (
            list(loop.target.elts) if isinstance(loop.target, ast.Tuple) else [])
        done: set[int] = set()
        for node in (n for stmt in loop.body for n in ast.walk(stmt)):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "add_argument" and node.args and isinstance(node.args[0], ast.Name)):
                continue
            position = next((i for i, n in enumerate(names) if isinstance(n, ast.Name)
                             and n.id == node.args[0].id), None)
            if position is None:
                continue
            done.add(id(node))
            for item in loop.iter.elts if isinstance(loop.iter, ast.List | ast.Tuple) else []:
                values = item.elts if isinstance(item, ast.Tuple) else [item]
                if len(values) != len(names):
                    continue
                substitute = dict(zip((n.id for n in names if isinstance(n, ast.Name)), values, strict=False))
                call = ast.Call(func=node.func, args=[substitute.get(a.id, a) if isinstance(a, ast.Name) else a
                                                      for a in node.args],
                                keywords=[ast.keyword(arg=k.arg, value=substitute.get(k.value.id, k.value)
                                                      if isinstance(k.value, ast.Name) else k.value)
                                          for k in node.keywords])
                self._call(call, bindings, mutations)
        return done

    def _get_kwargs(self, value: ast.expr) -> tuple[str, str | None] | None:
        field = None
        if isinstance(value, ast.Subscript):
            field = _str(value.slice)
            value = value.value
        if isinstance(value, ast.Call) and ast.unparse(value.func).rsplit(".", 1)[-1] in ("get_kwargs",
                                                                                           "_compute_kwargs"):
            if value.args:
                return ast.unparse(value.args[0]).rsplit(".", 1)[-1], field
        return None

    def _loop(self, loop: ast.For, bound: tuple[str, str | None], func: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        class_name = bound[0]
        if class_name == "cls":
            class_name = self._enclosing_class or ""
        for field in self.sources.fields(class_name):
            kind = self.sources.field_kind(class_name, field)
            extra = self._extra_flags(class_name, field)
            self.add([*extra, "--" + field.replace("_", "-")] if not extra else
                     ["--" + field.replace("_", "-"), *extra], kind)
        del loop, func

    _enclosing_class: str | None = None

    def _extra_flags(self, class_name: str, field: str) -> list[str]:
        out: list[str] = []
        for cls in self.sources.classes.get(class_name, []):
            for node in ast.walk(cls):
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target = node.targets[0]
                    if isinstance(target, ast.Subscript) and _str(target.slice) == "flags" \
                            and isinstance(target.value, ast.Subscript) and _str(target.value.slice) == field \
                            and isinstance(node.value, ast.List | ast.Tuple):
                        out.extend(s for s in (_str(e) for e in node.value.elts) if s)
        return out

    def _call(self, call: ast.Call, bindings: dict[str, tuple[str, str | None]],
              mutations: dict[tuple[str, str], dict[str, ast.expr | None]]) -> None:
        strings = [s for s in (_str(a) for a in call.args) if s and s.startswith("-")]
        if not strings:
            return
        kind: str | None = None
        explicit: dict[str, ast.expr | None] = {}
        for keyword in call.keywords:
            if keyword.arg is not None:
                explicit[keyword.arg] = keyword.value
                continue
            value = keyword.value
            overrides: dict[str, ast.expr | None] = {}
            if isinstance(value, ast.Dict):
                for k, v in zip(value.keys, value.values, strict=True):
                    if k is None:
                        value = v
                    elif _str(k):
                        overrides[_str(k) or ""] = v
            source = self._kwargs_source(value, bindings)
            if source is not None:
                var, class_name, field = source
                kind = self.sources.field_kind(class_name, field)
                changes = {**mutations.get((var, field), {}), **overrides}
                if "action" in changes:
                    action = changes["action"]
                    kind = _action_kind(action) if action is not None else kind
                if "nargs" in changes:
                    nargs = changes["nargs"]
                    kind = nargs_kind(nargs) if nargs is not None else ("v" if kind == "o" else kind)
            explicit.update(overrides)
        if "action" in explicit and explicit["action"] is not None:
            kind = _action_kind(explicit["action"]) or kind or "v"
        if "nargs" in explicit and explicit["nargs"] is not None and kind not in ("pair", "f"):
            kind = nargs_kind(explicit["nargs"])
        self.add(strings, kind or "v")

    def _kwargs_source(self, value: ast.expr,
                       bindings: dict[str, tuple[str, str | None]]) -> tuple[str, str, str] | None:
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and value.value.id in bindings:
            field = _str(value.slice)
            if field:
                return value.value.id, bindings[value.value.id][0], field
        if isinstance(value, ast.Name) and value.id in bindings and bindings[value.id][1]:
            class_name, field = bindings[value.id]
            return value.id, class_name, field or ""
        return None


def _parser_modules(sources: Sources) -> list[Path]:
    root = sources.root
    out = [p for p in (root / "vllm/engine/arg_utils.py", root / "vllm/entrypoints/cli/serve.py") if p in sources.trees]
    for path, tree in sources.trees.items():
        if "entrypoints" in path.parts and path.name == "cli_args.py":
            if any(isinstance(n, ast.FunctionDef) and n.name == "make_arg_parser" for n in tree.body):
                out.append(path)
    return out


def options_from_source(root: Path) -> dict[str, tuple[str, str | None]]:
    sources = Sources(root)
    collector = Collector(sources)
    for path in _parser_modules(sources):
        tree = sources.trees[path]
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                collector._enclosing_class = node.name
                for item in node.body:
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                        collector._function(item)
                collector._enclosing_class = None
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                collector._function(node)
        # classes whose add_cli_args is called from make_arg_parser but defined elsewhere in the module tree
        for call in ast.walk(tree):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) \
                    and call.func.attr == "add_cli_args" and isinstance(call.func.value, ast.Name):
                name = call.func.value.id
                for cls in sources.classes.get(name, [])[:1]:
                    collector._enclosing_class = name
                    for base_name in [name] + [ast.unparse(b).rsplit(".", 1)[-1] for b in cls.bases]:
                        for base in sources.classes.get(base_name, [])[:1]:
                            for item in base.body:
                                if isinstance(item, ast.FunctionDef) and item.name == "add_cli_args":
                                    collector._function(item)
                    collector._enclosing_class = None
    scripts = root / "vllm/scripts.py"
    if scripts in sources.trees:  # 0.6.6.post1-0.7.2: ``vllm serve`` adds --config to its own sub-parser here
        collector.receiver = "serve_parser"
        for node in sources.trees[scripts].body:
            if isinstance(node, ast.FunctionDef) and node.name == "main":
                collector._function(node)
        collector.receiver = None
    return collector.options


def environment_variables(root: Path) -> set[str]:
    """The keys of ``environment_variables`` in ``vllm/envs.py``: the names vLLM knows (and, from 0.17.0, the only
    ``VLLM_*`` names ``--fail-on-environ-validation`` lets through)."""
    path = root / "vllm/envs.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else (
            node.target if isinstance(node, ast.AnnAssign) else None)
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        if isinstance(target, ast.Name) and target.id == "environment_variables" and isinstance(value, ast.Dict):
            names.update(s for s in (_str(k) for k in value.keys if k is not None) if s)
    return names


def env_reads(root: Path, wheel: Path | None) -> dict[str, str]:
    """Every ``VLLM_*`` variable the release reads -> ``""`` where ``environment_variables`` lists it, else where it
    is read (``py:<module>``, ``so:<library>``: ``tools/vllm_env_reads.py``). ``wheel``: the release's wheel, for
    the compiled code (``None``: Python only)."""
    out = {name: "" for name in environment_variables(root) if name.startswith("VLLM_")}
    for name, where in vllm_env_reads.python_reads(root).items():
        out.setdefault(name, "py:" + where)
    if wheel is not None:
        for name, where in vllm_env_reads.compiled_reads(wheel).items():
            out.setdefault(name, "so:" + where)
    return dict(sorted(out.items()))


def env_from_source(root: Path) -> set[str]:
    """The names of :func:`env_reads` for the Python files only."""
    return set(env_reads(root, None))


def wheel_of(wheels: Path, version: str) -> Path | None:
    """The cached wheel of a release (``vllm-0.20.1-1-cp38-abi3-...whl`` has a build tag after the version)."""
    found = sorted(wheels.glob(f"vllm-{version}-*.whl"))
    return found[0] if found else None


# -- the reference fallback -----------------------------------------------------------------------------------------


def options_from_reference(reference: Path, version: str) -> dict[str, tuple[str, str | None]] | None:
    path = reference / "vllm-options" / f"opts_{version}.txt"
    if not path.exists():
        return None
    out: dict[str, tuple[str, str | None]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        strings = line.split()
        if not strings:
            continue
        canonical = strings[0]
        for s in strings:
            out.setdefault(s, ("?", None if s == canonical else canonical))
    return out


def env_from_reference(reference: Path, version: str) -> set[str] | None:
    path = reference / "vllm-env" / f"envs_{version}.txt"
    if not path.exists():
        return None
    return {line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}


# -- assembling the compact table -----------------------------------------------------------------------------------


def _ranges(present: list[tuple[int, Any]]) -> list[list[Any]]:
    """``[(index, payload), ...]`` -> ``[[first, last, *payload], ...]`` merging consecutive equal payloads."""
    out: list[list[Any]] = []
    for index, payload in present:
        if out and out[-1][1] == index - 1 and out[-1][2:] == list(payload):
            out[-1][1] = index
        else:
            out.append([index, index, *payload])
    return out


def assemble(per_version: dict[str, tuple[dict[str, tuple[str, str | None]], dict[str, str], str]]) -> dict[str, Any]:
    versions = sorted(per_version, key=version_key)
    options: dict[str, list[tuple[int, Any]]] = {}
    env: dict[str, list[tuple[int, Any]]] = {}
    for index, version in enumerate(versions):
        opts, envs, _ = per_version[version]
        for option, (kind, canonical) in sorted(opts.items()):
            options.setdefault(option, []).append((index, (kind,) if canonical is None else (kind, canonical)))
        for name, where in sorted(envs.items()):
            env.setdefault(name, []).append((index, (where,) if where else ()))
    return {
        "format": FORMAT,
        "generator": "tools/gen_vllm_tables.py",
        "note": ("vLLM serve options (engine + server flags, incl. config-dataclass options) and VLLM_* env vars "
                 "by version; option -> [[first, last, kind(, canonical)]] over indices into versions; kinds: "
                 "v value, o optional value, f flag, n negative flag, ? unknown; env var -> [[first, last(, "
                 "where)]], where (py:module or so:library) when the release reads it outside "
                 "envs.environment_variables only (--fail-on-environ-validation refuses it)"),
        "versions": versions,
        "sources": {v: per_version[v][2] for v in versions},
        "incomplete": [v for v in versions if per_version[v][2] != "wheel"],
        "options": {name: _ranges(present) for name, present in sorted(options.items())},
        "env": {name: _ranges(present) for name, present in sorted(env.items())},
    }


def dumps(table: dict[str, Any]) -> str:
    """The committed serialisation (``tools/tablejson.py``)."""
    return tablejson.dumps(table, nested=("options", "env", "renames"))


def write_extract(out_dir: Path, version: str, opts: dict[str, tuple[str, str | None]], envs: dict[str, str],
                  source: str) -> None:
    """One version's extraction as text: ``opt NAME KIND [CANONICAL]`` and ``env NAME [WHERE]`` lines (``WHERE``
    only for a variable read outside ``environment_variables``: ``py:<module>`` or ``so:<library>``)."""
    lines = [f"# vLLM {version}: {source} (tools/gen_vllm_tables.py extract)"]
    for name, (kind, canonical) in sorted(opts.items()):
        lines.append(f"opt {name} {kind}" + (f" {canonical}" if canonical else ""))
    lines.extend(f"env {name}" + (f" {where}" if where else "") for name, where in sorted(envs.items()))
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"{version}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def read_extract(path: Path) -> tuple[dict[str, tuple[str, str | None]], dict[str, str], str]:
    opts: dict[str, tuple[str, str | None]] = {}
    envs: dict[str, str] = {}
    source = "wheel"
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "#":
            source = "wheel" if ": wheel" in line else "reference"
        elif parts[0] == "opt":
            opts[parts[1]] = (parts[2], parts[3] if len(parts) > 3 else None)
        elif parts[0] == "env":
            envs[parts[1]] = parts[2] if len(parts) > 2 else ""
    return opts, envs, source


def extract(src: Path | None, wheels: Path | None, reference: Path | None, out_dir: Path,
            versions: list[str] | None) -> None:
    """Stage 2: per-version extraction files from unpacked wheels (and the wheels themselves, for what their compiled
    code reads), or from the reference lists where there is no wheel."""
    found: set[str] = set()
    if src is not None and src.is_dir():
        found |= {p.name for p in src.iterdir() if (p / "vllm/engine/arg_utils.py").exists()}
    if reference is not None:
        found |= {p.stem.removeprefix("opts_") for p in (reference / "vllm-options").glob("opts_*.txt")}
    for version in versions or sorted(found, key=version_key):
        root = src / version if src is not None else None
        if root is not None and (root / "vllm/engine/arg_utils.py").exists():
            wheel = wheel_of(wheels, version) if wheels is not None else None
            if wheel is None:
                raise SystemExit(f"vLLM {version}: no wheel in {wheels} (its compiled code is read for env vars too)")
            write_extract(out_dir, version, options_from_source(root), env_reads(root, wheel), "wheel")
            print(f"extracted {version}", file=sys.stderr)
            continue
        ref_opts = options_from_reference(reference, version) if reference else None
        ref_env = env_from_reference(reference, version) if reference else None
        if ref_opts is None:
            raise SystemExit(f"no source for vLLM {version}")
        write_extract(out_dir, version, ref_opts, dict.fromkeys(ref_env or set(), ""),
                      "reference add_argument list, kinds unknown")


def read_renames(path: Path) -> dict[str, list[str]]:
    """``renames.list``: old option or variable -> [replacement as shown, the option or variable it needs]."""
    out: dict[str, list[str]] = {}
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        old, shown, needs, _source = line.split("\t")
        out[old] = [shown, needs]
    return dict(sorted(out.items()))


def build(extract_dir: Path) -> dict[str, Any]:
    """Stage 3: the compact table from the extraction files (and the renames of ``renames.list``)."""
    per_version = {p.stem: read_extract(p) for p in extract_dir.glob("*.txt")}
    table = assemble(per_version)
    table["renames"] = read_renames(extract_dir / "renames.list")
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n", 1)[0])
    sub = parser.add_subparsers(dest="command", required=True)
    cache = artifacts.cache_dir()
    p_fetch = sub.add_parser("fetch", help="download (or find) the wheels in the artifact cache and unpack their "
                                           "Python files")
    p_fetch.add_argument("versions", nargs="*")
    p_extract = sub.add_parser("extract", help="read unpacked sources and wheels (or the reference lists) into "
                                               "tools/vllm-extract")
    p_extract.add_argument("--src", type=Path, default=cache / "src" / "vllm")
    p_extract.add_argument("--wheels", type=Path, default=cache / "pypi" / "vllm")
    p_extract.add_argument("--reference", type=Path)
    p_extract.add_argument("--out-dir", type=Path, default=EXTRACT_DIR)
    p_extract.add_argument("versions", nargs="*")
    p_build = sub.add_parser("build", help="write the compact table from the extraction files")
    p_build.add_argument("--extract-dir", type=Path, default=EXTRACT_DIR)
    p_build.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if args.command == "fetch":
        fetch(args.versions or sorted((p.stem for p in EXTRACT_DIR.glob("*.txt")), key=version_key))
    elif args.command == "extract":
        extract(args.src, args.wheels, args.reference, args.out_dir,
                args.versions or sorted((p.stem for p in EXTRACT_DIR.glob("*.txt")), key=version_key))
    else:
        tablejson.write(dumps(build(args.extract_dir)), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
