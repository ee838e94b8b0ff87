"""The ``VLLM_*`` environment variables a vLLM wheel reads outside ``envs.environment_variables``.

``tools/gen_vllm_tables.py`` lists, per release, the names of ``envs.environment_variables`` plus what this module
finds; nothing here imports or runs vLLM.

**Python** (:func:`python_reads`, with :mod:`ast`, every module of the package): the first argument of
``os.getenv``/``getenv``/``os.putenv``/``os.unsetenv``, of ``get``/``setdefault``/``pop`` on the environment, the key
of ``os.environ[...]`` (read, assigned or deleted), the left side of ``... in os.environ``. The environment is
``os.environ``, ``environ`` imported from ``os``, or a name bound to either or to a copy of it
(``env = os.environ.copy()``: vLLM sets the variable for a process it starts). The name may be written as a string,
or as a name bound to one in the function, in the module or in the module it is imported from
(``env_key = "VLLM_BATCH_INVARIANT"; os.getenv(env_key, "0")``, 0.11.1). A function that passes one of its
parameters to such a read is a wrapper, and a call of it with a ``VLLM_*`` string in that position is a read too
(wrappers of wrappers as well). A variable vLLM only assigns counts: a worker or a kernel of vLLM reads it.
A ``VLLM_*`` string used otherwise (a default value such as ``"VLLM_OBJECT_STORAGE_SHM_BUFFER"``, the names a Ray
executor leaves out of what it copies to workers) is not a read.

**Compiled code** (:func:`compiled_reads`, every ELF shared object of the wheel): a string that is exactly a
``VLLM_*`` name, NUL-terminated and starting a string (the byte before it is NUL or the start of the section), in a
read-only data section (``.rodata*``) of a library whose dynamic symbol table imports ``getenv`` or
``secure_getenv`` (or ``setenv``/``putenv``: it sets the variable for the code it calls). Compiled code has no other
use for a bare variable name: a message that names it carries it inside a longer string (``"Invalid
VLLM_CUSTOM_ALLREDUCE_ALGO: "`` in the same library is not a string of its own). The all-reduce kernel
(``csrc/custom_all_reduce.cuh``: ``std::getenv("VLLM_CUSTOM_ALLREDUCE_ALGO")``) is in ``vllm/_C.abi3.so`` from
0.10.2. A compiler may merge a string into the tail of a longer one that ends with it (``-fmerge-constants``): such
a name would be missed here (none is known).
"""

from __future__ import annotations

import ast
import re
import struct
import zipfile
from collections.abc import Iterator
from pathlib import Path

NAME = re.compile(r"VLLM_[A-Z0-9_]+")
_ENV_CALLS = {"getenv", "putenv", "unsetenv"}
_ENV_METHODS = {"get", "setdefault", "pop"}

# -- Python -----------------------------------------------------------------------------------------------------------


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


class _Module:
    """One parsed module: its tree, string constants at module level and names imported from other modules."""

    def __init__(self, name: str, path: str, tree: ast.Module, package: bool) -> None:
        self.name = name
        self.path = path
        self.tree = tree
        self.constants: dict[str, str] = {}
        self.imports: dict[str, tuple[str, str]] = {}  # local name -> (module, name)
        self.os_names: set[str] = set()  # names imported from os: getenv, environ
        base = name if package else name.rpartition(".")[0]
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                value = _text(node.value)
                if value is not None:
                    self.constants[node.targets[0].id] = value
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                value = _text(node.value)
                if value is not None:
                    self.constants[node.target.id] = value
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = node.module or ""
                if node.level:
                    anchor = base.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)] if node.level > 1 else anchor
                    source = ".".join([*anchor, source] if source else anchor)
                for alias in node.names:
                    local = alias.asname or alias.name
                    if source == "os":
                        self.os_names.add(alias.name if alias.asname is None else local)
                        if alias.name in _ENV_CALLS | {"environ"}:
                            self.imports[local] = ("os", alias.name)
                    else:
                        self.imports[local] = (source, alias.name)


def _text(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


Parsed = tuple["_Module", list["_Function"]]


def _modules(root: Path, package: str = "vllm", markers: tuple[str, ...] = ("VLLM_",),
             memo: dict[tuple[str, str], Parsed] | None = None) -> Iterator[Parsed]:
    """The modules of ``root/package`` that may read a variable (their text holds one of ``markers`` or names the
    environment), each with its scopes. ``memo`` (path and text -> the parse) spares parsing a module again that an
    earlier release had unchanged; it is left holding this release's modules only."""
    fresh: dict[tuple[str, str], Parsed] = {}
    for path in sorted((root / package).rglob("*.py")):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if not any(m in text for m in (*markers, "environ", "getenv", "putenv")):
            continue
        key = (path.relative_to(root).as_posix(), text)
        done = memo.get(key) if memo is not None else None
        if done is None:
            try:
                tree = ast.parse(text)
            except (SyntaxError, ValueError):
                continue
            module = _Module(_module_name(root, path), key[0], tree, path.name == "__init__.py")
            done = (module, _scopes(module))
        fresh[key] = done
        yield done
    if memo is not None:
        memo.clear()
        memo.update(fresh)


class _Scope:
    """What a read's key can be resolved with: the module, and the function's own single string assignments."""

    def __init__(self, module: _Module, local: dict[str, str], environs: set[str]) -> None:
        self.module = module
        self.local = local
        self.environs = environs


def _environ_expr(node: ast.expr, environs: set[str], module: _Module | None) -> bool:
    """``os.environ``, ``environ`` from ``os``, a name bound to it, or a copy (``.copy()``, ``dict(...)``)."""
    if isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name) \
            and node.value.id == "os":
        return True
    if isinstance(node, ast.Name):
        return node.id in environs or (module is not None and module.imports.get(node.id) == ("os", "environ"))
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr == "copy" and not node.args:
            return _environ_expr(node.func.value, environs, module)
        if isinstance(node.func, ast.Name) and node.func.id == "dict" and len(node.args) == 1:
            return _environ_expr(node.args[0], environs, module)
    return False


def _env_call(func: ast.expr, module: _Module) -> bool:
    if isinstance(func, ast.Attribute) and func.attr in _ENV_CALLS and isinstance(func.value, ast.Name) \
            and func.value.id == "os":
        return True
    return isinstance(func, ast.Name) and module.imports.get(func.id, ("", ""))[0] == "os" \
        and module.imports[func.id][1] in _ENV_CALLS


def _called_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _keys(node: ast.AST, scope: _Scope, wrappers: dict[str, int]) -> Iterator[ast.expr]:
    """The expressions a node reads as a variable name, if it is a read."""
    module = scope.module
    if isinstance(node, ast.Call):
        environ_method = isinstance(node.func, ast.Attribute) and node.func.attr in _ENV_METHODS \
            and _environ_expr(node.func.value, scope.environs, module)
        if node.args and (_env_call(node.func, module) or environ_method):
            yield node.args[0]
        else:
            name = _called_name(node.func)
            position = wrappers.get(name) if name is not None else None
            if position is not None and 0 <= position < len(node.args):
                yield node.args[position]
    elif isinstance(node, ast.Subscript) and _environ_expr(node.value, scope.environs, module):
        yield node.slice
    elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.In | ast.NotIn) \
            and _environ_expr(node.comparators[0], scope.environs, module):
        yield node.left


def _resolve(key: ast.expr, scope: _Scope, modules: dict[str, _Module]) -> str | None:
    text = _text(key)
    if text is not None:
        return text
    if not isinstance(key, ast.Name):
        return None
    if key.id in scope.local:
        return scope.local[key.id]
    if key.id in scope.module.constants:
        return scope.module.constants[key.id]
    source = scope.module.imports.get(key.id)
    if source is not None and source[0] in modules:
        return modules[source[0]].constants.get(source[1])
    return None


class _Function:
    """One scope: a function (``name``, ``params``) or a module's code outside its functions (``name`` None), with
    the nodes that can be reads, its names bound once to a string and its names bound to the environment."""

    def __init__(self, name: str | None, params: list[str]) -> None:
        self.name = name
        self.params = params
        self.sites: list[ast.AST] = []
        self.strings: dict[str, list[str | None]] = {}
        self.environs: set[str] = set()


def _scopes(module: _Module) -> list[_Function]:
    """Every scope of a module, in one walk (a lambda belongs to the scope it is written in)."""
    out = [_Function(None, [])]
    stack: list[tuple[ast.AST, _Function]] = [(node, out[0]) for node in reversed(module.tree.body)]
    while stack:
        node, scope = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            inner = _Function(node.name, [a.arg for a in [*node.args.posonlyargs, *node.args.args]])
            out.append(inner)
            stack.extend((child, scope) for child in reversed(node.decorator_list))
            stack.extend((child, inner) for child in reversed(node.body))
            continue
        if isinstance(node, ast.Call | ast.Subscript | ast.Compare):
            scope.sites.append(node)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and scope.name is not None:
            scope.strings.setdefault(node.targets[0].id, []).append(_text(node.value))
            if _environ_expr(node.value, set(), module):
                scope.environs.add(node.targets[0].id)
        stack.extend((child, scope) for child in reversed(list(ast.iter_child_nodes(node))))
    return out


def python_reads(root: Path, package: str = "vllm", name_pattern: re.Pattern[str] = NAME,
                 markers: tuple[str, ...] = ("VLLM_",),
                 memo: dict[tuple[str, str], Parsed] | None = None) -> dict[str, str]:
    """``VLLM_*`` name -> the first module (path inside the wheel) that reads it, for the package under ``root``.

    ``package``, ``name_pattern`` and ``markers`` (text that makes a module worth parsing) serve another engine's
    wheel the same way (``tools/gen_sglang_tables.py``: ``sglang``, ``SGLANG_*``, ``SGL_*`` and other names)."""
    parsed = list(_modules(root, package, markers, memo))
    modules = {m.name: m for m, _ in parsed}
    scopes: list[tuple[str | None, _Scope, list[str], list[ast.AST]]] = []  # function, scope, parameters, sites
    for module, functions in parsed:
        for function in functions:
            local = {k: v[0] for k, v in function.strings.items() if len(v) == 1 and v[0] is not None}
            scopes.append((function.name, _Scope(module, local, function.environs), function.params, function.sites))
    # wrappers: functions that read the environment with one of their parameters, to a fixed point
    wrappers: dict[str, int] = {}
    changed = True
    while changed:
        changed = False
        for name, scope, params, sites in scopes:
            if name is None or name in wrappers or not params:
                continue
            for node in sites:
                key = next((k for k in _keys(node, scope, wrappers) if isinstance(k, ast.Name) and k.id in params),
                           None)
                if key is not None:
                    wrappers[name] = params.index(key.id) - (1 if params[0] in ("self", "cls") else 0)
                    changed = True
                    break
    found: dict[str, str] = {}
    for _, scope, _, sites in scopes:
        for node in sites:
            for key in _keys(node, scope, wrappers):
                name = _resolve(key, scope, modules)
                if name is not None and name_pattern.fullmatch(name):
                    found.setdefault(name, scope.module.path)
    return dict(sorted(found.items()))


# -- compiled code ----------------------------------------------------------------------------------------------------

_ENV_SYMBOLS = {b"getenv", b"secure_getenv", b"setenv", b"putenv"}
_SHT_DYNSYM = 11
_STRING = re.compile(rb"(?:(?<=\x00)|^)(VLLM_[A-Z0-9_]+)\x00")


class _Section:
    def __init__(self, name: bytes, kind: int, offset: int, size: int, link: int) -> None:
        self.name = name
        self.kind = kind
        self.offset = offset
        self.size = size
        self.link = link


def _sections(data: bytes) -> list[_Section] | None:
    """The section headers of a 64-bit little-endian ELF file (the wheels are x86_64 Linux); ``None`` otherwise."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = []
    for i in range(shnum):
        name, kind, _flags, _addr, offset, size, link = struct.unpack_from("<IIQQQQI", data, shoff + i * shentsize)
        headers.append((name, kind, offset, size, link))
    names = headers[shstrndx]
    out = []
    for name, kind, offset, size, link in headers:
        start = names[2] + name
        out.append(_Section(data[start:data.index(b"\x00", start)], kind, offset, size, link))
    return out


def _imports(data: bytes, sections: list[_Section]) -> set[bytes]:
    """The undefined symbols of the dynamic symbol table: what the library calls in other libraries."""
    out: set[bytes] = set()
    for section in sections:
        if section.kind != _SHT_DYNSYM:
            continue
        strings = sections[section.link]
        for at in range(section.offset, section.offset + section.size, 24):
            name, _info, _other, shndx = struct.unpack_from("<IBBH", data, at)
            if shndx == 0 and name:
                start = strings.offset + name
                out.add(data[start:data.index(b"\x00", start)])
    return out


def library_reads(data: bytes, string: re.Pattern[bytes] = _STRING) -> set[str]:
    """The ``VLLM_*`` names one shared object reads (module docstring: a string of its own in ``.rodata*`` of a
    library that imports ``getenv``)."""
    sections = _sections(data)
    if sections is None or not _imports(data, sections) & _ENV_SYMBOLS:
        return set()
    names: set[str] = set()
    for section in sections:
        if section.name.startswith(b".rodata"):
            chunk = data[section.offset:section.offset + section.size]
            names.update(m.group(1).decode() for m in string.finditer(chunk))
    return names


def compiled_reads(wheel: Path, string: re.Pattern[bytes] = _STRING) -> dict[str, str]:
    """``VLLM_*`` name -> the first shared object of the wheel (path inside it) that reads it (``string``: the
    pattern of a NUL-terminated name, group 1 the name, for another engine's wheel)."""
    found: dict[str, str] = {}
    with zipfile.ZipFile(wheel) as archive:
        for info in archive.infolist():
            if not re.search(r"\.so(\.\d+)*$", info.filename):
                continue
            for name in sorted(library_reads(archive.read(info), string)):
                found.setdefault(name, info.filename)
    return dict(sorted(found.items()))
