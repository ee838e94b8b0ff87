"""Configuration: ``[tool.relialint]`` in ``pyproject.toml`` or ``.relialint.toml``, the nearest to a file wins.

Discovery walks from the linted file's folder upward; in one folder ``.relialint.toml`` wins over
``pyproject.toml``, and a ``pyproject.toml`` without ``[tool.relialint]`` is passed over. Settings are validated by
pydantic models; an invalid file raises ``ConfigError`` with the file, line, column and key, which the command line
turns into exit code 2. ``tomllib`` gives no positions, so keys are located by scanning the TOML text.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Literal, Union

from relialint.base import bounds
from relialint.base.errors import RelialintError, never_none
from relialint.base.globs import Glob
from relialint.base.globs import glob_match as glob_match  # where the tests and callers have found it
from relialint.base.plain import Frozen, replace
from relialint.disk import read_text

if TYPE_CHECKING:
    from relialint.run.config_schema import Settings, Suppression, _Common

CONFIG_NAMES = (".relialint.toml", "pyproject.toml")
FailOn = Literal["blocker", "major", "minor", "never"]
FactValue = Union[str, bool, int, float]


class ConfigError(RelialintError, ValueError):
    """An invalid configuration file, located."""

    def __init__(self, path: str, line: int, column: int, message: str) -> None:
        super().__init__(f"{path}:{line}:{column}: {message}")
        self.path, self.line, self.column, self.message = path, line, column, message


class TargetSpec(Frozen):
    """One target of a run: a GPU and, optionally, more facts (from configuration or the command line)."""

    name: str | None = None
    gpu: str | None = None
    engine_version: str | None = None
    os: str | None = None
    facts: dict[str, FactValue]
    facts_file: str | None = None
    """A facts file (``facts = "FILE"``), resolved against the configuration's folder."""

    _fields = ("name", "gpu", "engine_version", "os", "facts", "facts_file")

    def __init__(self, name: str | None = None, gpu: str | None = None, engine_version: str | None = None,
                 os: str | None = None, facts: dict[str, FactValue] | None = None,
                 facts_file: str | None = None) -> None:
        self.name = name
        self.gpu = gpu
        self.engine_version = engine_version
        self.os = os
        self.facts = {} if facts is None else facts
        self.facts_file = facts_file

    def label(self) -> str:
        return self.name or self.gpu or "target"


def _spec(target: Any) -> TargetSpec:
    return TargetSpec(target.name, target.gpu, target.engine_version, target.os, dict(target.facts))


class Config:
    """A loaded configuration file."""

    path: Path
    settings: Settings
    text: str
    section: str

    def __init__(self, path: Path, settings: Settings, text: str, section: str) -> None:
        self.path = path
        self.settings = settings
        self.text = text
        self.section = section
        self._root: Path | None = None
        self._relative: dict[str, str | None] = {}
        self._globs: dict[str, Glob] = {}

    @property
    def root(self) -> Path:
        return self.path.parent

    def relative(self, file: Path) -> str | None:
        """``file`` relative to the configuration's folder (POSIX), or ``None`` when it lies outside. Each file is
        resolved once (a run asks for each file twice: excluded? then its settings), the folder once."""
        key = str(file)
        if key not in self._relative:
            if self._root is None:
                self._root = self.root.resolve()
            try:
                self._relative[key] = PurePosixPath(file.resolve().relative_to(self._root).as_posix()).as_posix()
            except ValueError:
                self._relative[key] = None
        return self._relative[key]

    def matches(self, pattern: str, rel: str) -> bool:
        """``globs.glob_match``, each glob compiled once for the run (its steps learnt over every file)."""
        glob = self._globs.get(pattern)
        if glob is None:
            glob = self._globs[pattern] = Glob(pattern)
        return glob.match(rel)

    def excluded(self, file: Path) -> bool:
        rel = self.relative(file)
        return rel is not None and any(self.matches(p, rel) for p in self.settings.exclude)

    def locate(self, *loc: str | int) -> tuple[int, int]:
        return locate(self.text, self.section, loc)


class Effective:
    """The settings that apply to one file once overrides are merged (the command line comes on top in lint)."""

    config: Config | None = None
    targets: list[TargetSpec]
    select: list[str]
    ignore: list[str]
    fail_on: FailOn | None = None
    strict: bool | None = None
    suppressions: list[tuple[int, Suppression]]

    def __init__(self, config: Config | None = None, targets: list[TargetSpec] | None = None,
                 select: list[str] | None = None, ignore: list[str] | None = None, fail_on: FailOn | None = None,
                 strict: bool | None = None, suppressions: list[tuple[int, Suppression]] | None = None) -> None:
        self.config = config
        self.targets = [] if targets is None else targets
        self.select = [] if select is None else select
        self.ignore = [] if ignore is None else ignore
        self.fail_on = fail_on
        self.strict = strict
        self.suppressions = [] if suppressions is None else suppressions


# -- discovery ------------------------------------------------------------------------------------------------------


def find(start: Path, cache: dict[str, str | None] | None = None) -> Path | None:
    """The configuration file nearest to ``start`` (a file or folder), walking upward."""
    folder = start if start.is_dir() else start.parent
    cache = {} if cache is None else cache
    asked = "\0" + str(folder)  # the answer for a folder as given: the files of one folder resolve it once
    if asked in cache:
        known = cache[asked]
        return Path(known) if known is not None else None
    folder = folder.resolve() if folder.exists() else Path.cwd().joinpath(folder).resolve()
    found: str | None = None
    for current in (folder, *folder.parents):
        key = str(current)
        if key not in cache:
            cache[key] = _in_folder(key)
        found = cache[key]
        if found is not None:
            break
    cache[asked] = found
    return Path(found) if found is not None else None


def _in_folder(folder: str) -> str | None:
    for name in CONFIG_NAMES:
        candidate = Path(folder) / name
        if not candidate.is_file():
            continue
        if name == "pyproject.toml":
            text, _ = read_text(candidate, str(candidate))
            if text is None or not re.search(r"^\s*\[\[?\s*tool\.relialint\b", text, re.M):
                continue
        return str(candidate)
    return None


def load(path: Path) -> Config:
    """Read and validate one configuration file; ``ConfigError`` when it is not valid."""
    display = str(path)
    text, error = read_text(path, display)
    if text is None:
        error = never_none(error, "read_text gives an error where it gives no text")
        raise ConfigError(display, error.line, error.column, f"cannot read configuration: {error.message}")
    if bounds.depth(text, toml=True) > bounds.MAX_DEPTH:
        raise ConfigError(display, 1, 1, f"invalid TOML: arrays or tables nested deeper than {bounds.MAX_DEPTH} levels")
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        line, column = (int(m.group(1)), int(m.group(2))) if m else (1, 1)
        raise ConfigError(display, line, column, f"invalid TOML: {str(exc).split(' (at line')[0]}") from exc
    except ValueError as exc:  # an integer past Python's conversion limit
        line, column = bounds.long_integer_at(text) or (1, 1)
        raise ConfigError(display, line, column, f"invalid TOML: integer of more than {bounds.MAX_INT_DIGITS} "
                                                 "digits") from exc
    if path.name == "pyproject.toml":
        section = "tool.relialint"
        table = data.get("tool", {}).get("relialint", {})
    else:
        section = ""
        table = data
    if not isinstance(table, dict):
        raise ConfigError(display, *locate(text, "", ("tool", "relialint")), "[tool.relialint] must be a table")
    from pydantic import ValidationError

    from relialint.run.config_schema import Settings

    try:
        settings = Settings.model_validate(table)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = tuple(first["loc"])
        loc = tuple(part for part in loc if not (isinstance(part, str) and part in ("str", "TargetSettings"))
                    and not (isinstance(part, str) and part.startswith(("function-", "union["))))
        line, column = locate(text, section, loc)
        key = ".".join(str(p) for p in loc) or section or "configuration"
        raise ConfigError(display, line, column, f"{key}: {_message(first)}") from exc
    config = Config(path, settings, text, section)
    _check_values(config)
    return config


def _message(error: Any) -> str:
    message = str(error["msg"])
    if error["type"] == "extra_forbidden":
        return "unknown setting"
    return message.removeprefix("Value error, ")


def _check_values(config: Config) -> None:
    """GPU names and fact keys/values are checked here so that the error points into the configuration."""
    from relialint.core import hardware
    from relialint.core.facts import FactValueError, parse_value, spec_for

    def gpu(name: str | None, *loc: str | int) -> None:
        if name is None:
            return
        try:
            hardware.resolve(name)
        except hardware.UnknownGpu as exc:
            raise ConfigError(str(config.path), *config.locate(*loc), f"{'.'.join(map(str, loc))}: {exc}") from exc

    def facts(values: dict[str, FactValue], *loc: str | int) -> None:
        for key, value in values.items():
            spec = spec_for(key)
            where = config.locate(*loc, key)
            if spec is None:
                raise ConfigError(str(config.path), *where, f"{'.'.join(map(str, (*loc, key)))}: unknown fact")
            try:
                parse_value(spec, fact_text(value))
            except FactValueError as exc:
                raise ConfigError(str(config.path), *where, f"{'.'.join(map(str, (*loc, key)))}: {exc}") from exc

    def facts_file(name: str, *loc: str | int) -> None:
        if not (config.root / name).is_file():
            raise ConfigError(str(config.path), *config.locate(*loc), f"{'.'.join(map(str, loc))}: no facts file "
                              f"{name!r} (a path relative to the configuration file)")

    def common(block: _Common, *loc: str | int) -> None:
        gpu(block.gpu, *loc, "gpu")
        if isinstance(block.facts, str):
            facts_file(block.facts, *loc, "facts")
        else:
            facts(block.facts, *loc, "facts")
        if block.engine_version is not None:
            facts({"engine.version": block.engine_version}, *loc, "engine-version")
        for i, target in enumerate(block.targets or []):
            if isinstance(target, str):
                gpu(target, *loc, "targets", i)
            else:
                gpu(target.gpu, *loc, "targets", i, "gpu")
                facts(target.facts, *loc, "targets", i, "facts")

    common(config.settings)
    for i, override in enumerate(config.settings.overrides):
        common(override, "overrides", i)


def fact_text(value: FactValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# -- per-file settings ----------------------------------------------------------------------------------------------


def effective(config: Config | None, file: Path) -> Effective:
    """The configuration's settings for ``file``: top level, then each matching override in order."""
    out = Effective(config=config, targets=[TargetSpec()])
    if config is None:
        return out
    rel = config.relative(file)
    blocks: list[_Common] = [config.settings]
    if rel is not None:
        blocks.extend(o for o in config.settings.overrides if any(config.matches(p, rel) for p in o.paths))
    base = TargetSpec()
    targets: list[TargetSpec] | None = None
    for block in blocks:
        updates: dict[str, Any] = {}
        if block.gpu is not None:
            updates["gpu"] = block.gpu
            targets = None
        if block.engine_version is not None:
            updates["engine_version"] = block.engine_version
        if block.os is not None:
            updates["os"] = block.os
        if isinstance(block.facts, str):
            updates["facts_file"] = str(config.root / block.facts)
        elif block.facts:
            updates["facts"] = {**base.facts, **block.facts}
        base = replace(base, **updates)
        if block.targets is not None:
            targets = [TargetSpec(gpu=t) if isinstance(t, str) else _spec(t) for t in block.targets]
        if block.select is not None:
            out.select = list(block.select)
        if block.ignore is not None:
            out.ignore = list(block.ignore)
        out.ignore.extend(block.extend_ignore)
        if block.fail_on is not None:
            out.fail_on = block.fail_on
        if block.strict is not None:
            out.strict = block.strict
    if targets:
        out.targets = [TargetSpec(t.name, t.gpu or base.gpu, t.engine_version or base.engine_version,
                                  t.os or base.os, {**base.facts, **t.facts}, base.facts_file) for t in targets]
    else:
        out.targets = [base]
    if rel is not None:
        out.suppressions = [(i, s) for i, s in enumerate(config.settings.suppress)
                            if any(config.matches(p, rel) for p in s.paths)]
    return out


class Finder:
    """Configuration for each linted file over one run; every file is found and read once per run."""

    def __init__(self, explicit: Path | None = None, isolated: bool = False) -> None:
        self.explicit, self.isolated = explicit, isolated
        self._folders: dict[str, str | None] = {}
        self._loaded: dict[str, Config] = {}
        self._for: dict[str, Config | None] = {}
        self._cwd: Path | None = None

    def _load(self, path: Path) -> Config:
        if str(path) not in self._loaded:  # one configuration for the many files under it: resolved once
            key = str(path.resolve())
            if key not in self._loaded:
                self._loaded[key] = load(path)
            self._loaded[str(path)] = self._loaded[key]
        return self._loaded[str(path)]

    def config_for(self, file: Path) -> Config | None:
        if self.isolated:
            return None
        if self.explicit is not None:
            return self._load(self.explicit)
        key = str(file)
        if key not in self._for:  # asked twice a file (excluded? then its settings)
            found = find(file, self._folders)
            if found is None:
                self._for[key] = None
            else:
                if self._cwd is None:
                    self._cwd = Path.cwd().resolve()
                cwd = self._cwd
                self._for[key] = self._load(found.relative_to(cwd) if found.is_relative_to(cwd) else found)
        return self._for[key]


# -- locating keys in TOML text -------------------------------------------------------------------------------------

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")


def _key_re(key: str) -> re.Pattern[str]:
    return re.compile(rf"^(\s*)(?:\"{re.escape(key)}\"|'{re.escape(key)}'|{re.escape(key)})\s*=")


def _norm(name: str) -> str:
    return ".".join(part.strip().strip("\"'") for part in name.split("."))


def locate(text: str, section: str, loc: tuple[str | int, ...]) -> tuple[int, int]:
    """The 1-based line and column of a key in TOML text, given the table ``section`` and a pydantic-style ``loc``
    (``("overrides", 1, "gpu")``). Falls back to the nearest enclosing thing found, then to line 1."""
    lines = text.splitlines()
    tables: list[tuple[str, bool, int]] = []  # (name, is_array, line index)
    for i, line in enumerate(lines):
        m = _HEADER.match(line)
        if m:
            tables.append((_norm(m.group(2)), m.group(1) == "[[", i))

    def body(start: int) -> range:
        following = [t[2] for t in tables if t[2] > start]
        return range(start + 1, min(following) if following else len(lines))

    def find_key(rng: range, key: str) -> tuple[int, int] | None:
        pattern = _key_re(key)
        for i in rng:
            m = pattern.match(lines[i])
            if m:
                return i + 1, len(m.group(1)) + 1
        return None

    prefix = section
    scope: range = range(0, tables[0][2] if tables else len(lines)) if not section else range(0)
    for name, _array, start in tables:
        if name == section:
            scope = body(start)
            break
    best: tuple[int, int] = (1, 1)
    for name, _array, start in tables:
        if name == section:
            best = (start + 1, 1)
    parts = [str(p) if not isinstance(p, int) else p for p in loc]
    i = 0
    while i < len(parts):
        part = parts[i]
        if isinstance(part, int):
            i += 1
            continue
        nxt = parts[i + 1] if i + 1 < len(parts) else None
        full = f"{prefix}.{part}" if prefix else part
        hit = find_key(scope, part)
        if hit is not None:
            best = hit
            if isinstance(nxt, int):
                # an inline array of tables or values: look for the rest after the key's line
                rest = [str(p) for p in parts[i + 2:] if not isinstance(p, int)]
                if rest:
                    for j in range(hit[0] - 1, len(lines)):
                        m = re.search(rf"(?:^|[{{,\s])({re.escape(rest[0])})\s*=", lines[j])
                        if m:
                            return j + 1, m.start(1) + 1
                return best
            if nxt is not None:
                # an inline table on one line: ``facts = { "gpu.count" = 2 }``
                m = re.search(rf"[{{,\s][\"']?{re.escape(str(nxt))}[\"']?\s*=", lines[hit[0] - 1])
                if m:
                    return hit[0], m.start() + 2
            return best
        if isinstance(nxt, int):
            headers = [t for t in tables if t[0] == full and t[1]]
            if nxt < len(headers):
                best = (headers[nxt][2] + 1, 1)
                scope = body(headers[nxt][2])
                prefix = full
                i += 2
                continue
            return best
        sub = [t for t in tables if t[0] == full and not t[1]]
        if sub:
            best = (sub[0][2] + 1, 1)
            scope = body(sub[0][2])
            prefix = full
            i += 1
            continue
        return best
    return best
