"""The command line: a thin argparse layer that parses options, runs, and returns an exit code.

``relialint FILE...`` means ``relialint check FILE...``. Only the parser of the command being run is built. Every
usage error is the command's usage line and one ``relialint: error: ...`` line on stderr, exit 2.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import stat
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple, NoReturn

from relialint import __version__
from relialint.base.errors import InternalError, RelialintError, UsageError
from relialint.base.printable import field, json_text, lines

FAIL_LEVELS = {"blocker": 3, "major": 2, "minor": 1, "never": 99}
OS_NAMES = ("linux", "windows", "macos")
HELP = "Show this message and exit."


class Formatter(argparse.HelpFormatter):
    """argparse's help, with the ``Usage:`` heading relialint has always printed."""

    def add_usage(self, usage: str | None, actions: Any, groups: Any, prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, "Usage: " if prefix is None else prefix)


class Parser(argparse.ArgumentParser):
    """An argparse parser whose errors are raised as ``UsageError`` (printed once, by ``main``, after the usage
    line)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message, command_line=True)


def _parser(name: str, usage: str, doc: str) -> Parser:
    return Parser(prog=f"relialint {name}", usage=f"relialint {name} {usage}", description=doc, add_help=False,
                  allow_abbrev=False, formatter_class=Formatter)


def _choices(values: Sequence[str]) -> str:
    return "[" + "|".join(values) + "]"


def _add_choice(parser: Parser, option: str, dest: str, values: Sequence[str], default: str | None,
                help_text: str | None = None) -> None:
    """An option with a fixed set of values (checked by ``_check_choice`` with the message the CLI has always given)."""
    shown = f"[default: {default}]" if default is not None else ""
    parser.add_argument(option, dest=dest, metavar=_choices(values), default=default,
                        help="  ".join(part for part in (help_text, shown) if part) or None)


def _add_many(parser: Parser, option: str, dest: str, metavar: str = "TEXT", help_text: str | None = None) -> None:
    """A repeatable option: every value, in order."""
    parser.add_argument(option, dest=dest, action="append", default=None, metavar=metavar, help=help_text)


# -- value checks after parsing: the messages the CLI has always given -------------------------------------------


def _invalid(option: str, message: str) -> NoReturn:
    raise UsageError(f"Invalid value for '{option}': {message}", command_line=True)


def _check_choice(option: str, value: str | None, values: Sequence[str]) -> None:
    if value is not None and value not in values:
        _invalid(option, f"{value!r} is not one of {', '.join(map(repr, values))}.")


def _check_path(option: str, value: str | None, *, folder: bool = False) -> None:
    """``--records`` names an existing readable folder; a file option (``--facts``, ``--config``, ...) is not a
    folder and, where it exists, is readable."""
    if value is None:
        return
    name = "Directory" if folder else "File"
    try:
        st = os.stat(value)
    except OSError:
        if folder:
            _invalid(option, f"{name} {value!r} does not exist.")
        return
    if folder and stat.S_ISREG(st.st_mode):
        _invalid(option, f"{name} {value!r} is a file.")
    if not folder and stat.S_ISDIR(st.st_mode):
        _invalid(option, f"{name} {value!r} is a directory.")
    if not os.access(value, os.R_OK):
        _invalid(option, f"{name} {value!r} is not readable.")


def _check_float(option: str, value: str, minimum: float) -> float:
    try:
        number = float(value)
    except ValueError:
        _invalid(option, f"{value!r} is not a valid float.")
    if not math.isfinite(number):
        _invalid(option, f"{value!r} is not a finite number.")
    if number < minimum:
        _invalid(option, f"{number} is not in the range x>={minimum}.")
    return number


def _split(values: Sequence[str] | None) -> list[str]:
    return [part.strip() for value in values or () for part in value.split(",") if part.strip()]


def _not_empty(option: str, *values: str) -> None:
    for value in values:
        if not value.strip():
            raise UsageError(f"{option} takes a value, not an empty string", command_line=True)


def _working_directory() -> None:
    try:
        os.getcwd()
    except OSError:
        raise UsageError("the working directory no longer exists; run relialint from an existing folder",
                         command_line=True) from None


def _facts(values: Sequence[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in values or ():
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise UsageError(f"--fact takes KEY=VALUE, not {item!r}", command_line=True)
        out[key.strip()] = value.strip()
    return out


def _writable(what: str, target: str) -> None:
    """A target that will not be written (a symlink, a FIFO: ``safewrite``) stops the command before it works."""
    from relialint.base.safewrite import refusal

    why = refusal(Path(target))
    if why is not None:
        prefix = f"{what} {field(target)}" if what.startswith("--") else f"cannot write {what} {field(target)}"
        _echo(f"relialint: error: {prefix}: {why}", err=True)
        sys.exit(2)


def _add_follow_outside(parser: Parser) -> None:
    parser.add_argument("--follow-outside", action=argparse.BooleanOptionalAction, default=None,
                        help="read files outside the project root that linted files name (--env-file, env_file, "
                             "EnvironmentFile, --config) or symlink to; off by default [configuration: "
                             "follow-outside]")


def _echo(text: str = "", *, err: bool = False, nl: bool = True) -> None:
    """Write human-readable text: echoed strings were passed through ``field`` where they were put in; ``lines``
    makes sure no line reads as a workflow command and no raw control character is left (``printable``)."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:  # closed when relialint started (`2>&-`): nowhere to say it
        return
    stream.write(lines(text) + ("\n" if nl else ""))
    stream.flush()


def _echo_json(document: object, *, sort_keys: bool = False, ensure_ascii: bool = False) -> None:
    """Write one JSON document: exact data, with nothing a terminal or a CI runner acts on (``printable.json_text``); a
    file name that is not UTF-8 is written with U+FFFD, never an encoding crash."""
    text = json_text(json.dumps(document, indent=2, ensure_ascii=ensure_ascii, sort_keys=sort_keys))
    sys.stdout.write(text.encode("utf-8", "surrogateescape").decode("utf-8", "replace") + "\n")
    sys.stdout.flush()


# -- the options check and upgrade share ----------------------------------------------------------------------------


class RunHelp(NamedTuple):
    """What differs between check's and upgrade's shared options: their help texts and output formats."""

    facts: str
    formats: tuple[str, ...]
    fail_on: str
    strict: str
    show_possible: str


def _add_run_options(p: Parser, help_texts: RunHelp) -> None:
    """The target, selection, output, exit-code and configuration options of a run over files (check, upgrade)."""
    _add_choice(p, "--os", "os_name", OS_NAMES, None, "host OS")
    _add_many(p, "--fact", "fact", "KEY=VALUE", "any fact of the vocabulary")
    p.add_argument("--facts", dest="facts_file", metavar="FILE", help=help_texts.facts)
    _add_choice(p, "--format", "fmt", help_texts.formats, "text")
    _add_many(p, "--select", "select", help_text="record ids or prefixes (RL1, RL105), comma separated")
    _add_many(p, "--ignore", "ignore", help_text="record ids or prefixes to leave out")
    _add_choice(p, "--fail-on", "fail_on", list(FAIL_LEVELS), None, help_texts.fail_on)
    p.add_argument("--strict", action=argparse.BooleanOptionalAction, default=None, help=help_texts.strict)
    p.add_argument("--show-possible", action="store_true", help=help_texts.show_possible)
    _add_many(p, "--records", "records_dirs", "DIRECTORY", "a folder of your own records, used beside the shipped "
                                                           "ones")
    p.add_argument("--config", dest="config_file", metavar="FILE",
                   help="use this configuration file instead of the nearest pyproject.toml / .relialint.toml")
    p.add_argument("--isolated", action="store_true", help="read no configuration file")
    _add_follow_outside(p)


# -- check --------------------------------------------------------------------------------------------------------


def check_parser() -> Parser:
    p = _parser("check", "[OPTIONS] PATHS...", "Lint deployment files (the default command).")
    p.add_argument("paths", nargs="*", metavar="PATHS",
                   help="files and folders to lint; `-` reads standard input (with --stdin-filename); with --since, "
                        "the working directory by default")
    _add_many(p, "--gpu", "gpu", help_text="target GPU: product name, compute capability (sm_90) or AMD target "
                                           "(gfx1151); repeat it to check every target (--gpu H100 --gpu B200)")
    p.add_argument("--engine-version", metavar="TEXT", help="engine version when the files do not pin it (0.30.0, "
                                                            "b8502)")
    _add_run_options(p, RunHelp(
        facts="target facts from a file: relialint probe --write-facts output (.json, .toml) or a vllm collect-env "
              "dump",
        formats=("text", "json", "sarif", "github"),
        fail_on="lowest severity of a definite finding that makes the exit code 1  [default: major]",
        strict="possible findings count toward the exit code too",
        show_possible="list every possible finding, not only those something in the file points at"))
    p.add_argument("--no-inline-ignores", action="store_true",
                   help="apply no `# relialint: ignore[...]` comment (audits)")
    p.add_argument("--show-ignored", action="store_true", help="also list what was suppressed, by what and why")
    p.add_argument("--baseline", metavar="FILE", help="report only findings that are not in this baseline file")
    p.add_argument("--write-baseline", metavar="FILE",
                   help="record today's findings in this baseline file and exit 0")
    p.add_argument("--stdin-filename", metavar="NAME", help="with `-` as the path: read standard input as this file")
    p.add_argument("--since", metavar="REF", help="lint only the files changed since the git revision REF (and the "
                                                  "files that read them); a moved engine version reports the "
                                                  "upgrade's delta on its line")
    return p


def check(args: argparse.Namespace) -> int:
    """Lint deployment files (the default command)."""
    _check_choice("--os", args.os_name, OS_NAMES)
    _check_choice("--format", args.fmt, ("text", "json", "sarif", "github"))
    _check_choice("--fail-on", args.fail_on, list(FAIL_LEVELS))
    _check_path("--facts", args.facts_file)
    for folder in args.records_dirs or ():
        _check_path("--records", folder, folder=True)
    for option, value in (("--config", args.config_file), ("--baseline", args.baseline),
                          ("--write-baseline", args.write_baseline)):
        _check_path(option, value)

    from relialint.report import formatter
    from relialint.run.lint import Options, Target, lint_paths, lint_text

    since: str | None = args.since
    paths: list[str] = args.paths or ([] if since is None else ["."])
    if not paths:
        raise UsageError("the following arguments are required: PATHS", command_line=True)
    gpu: list[str] = args.gpu or []
    engine_version: str | None = args.engine_version
    stdin_filename: str | None = args.stdin_filename
    facts = _facts(args.fact)
    _not_empty("--gpu", *gpu)
    _not_empty("--engine-version", *(engine_version,) if engine_version is not None else ())
    _working_directory()
    if args.write_baseline:
        _writable("the baseline", args.write_baseline)
    given = Path(args.facts_file) if args.facts_file else None
    targets = [Target(g, engine_version, args.os_name, facts, facts_file=given) for g in gpu]
    options = Options(Target(gpu[0] if gpu else None, engine_version, args.os_name, facts, facts_file=given),
                      _split(args.select), _split(args.ignore), [Path(d) for d in args.records_dirs or ()],
                      targets=targets, config_file=Path(args.config_file) if args.config_file else None,
                      isolated=args.isolated, inline_ignores=not args.no_inline_ignores,
                      baseline=Path(args.baseline) if args.baseline else None, fail_on=args.fail_on,
                      strict=args.strict, show_possible=args.show_possible, follow_outside=args.follow_outside)
    stdin_name = _stdin_name(paths, stdin_filename)
    if since is not None:
        from relialint.run.since import lint_since

        if stdin_name is not None:
            raise UsageError("--since reads the files from the git repository; it does not take `-`",
                             command_line=True)
        run = lint_since(since, paths, options)
    elif stdin_name is not None:
        from relialint.disk import bounded
        from relialint.readers import detect
        from relialint.readers.located import decode

        if sys.stdin is None:
            raise UsageError("`-` reads standard input, but standard input is closed", command_line=True)
        data, error = bounded(sys.stdin.buffer, stdin_name)
        text = None
        if data is not None:
            text, error = decode(data, stdin_name)
        kind = detect.kind_by_name(Path(stdin_name)) or detect.kind_by_content(text or "") or "shell"
        run = lint_text(text or "", stdin_name, kind, options)
        if error is not None:
            run.errors.append(error)
    else:
        run = lint_paths(paths, options)
    if args.write_baseline:
        from relialint.run.suppress import write_baseline as write

        try:
            count = write(Path(args.write_baseline), run)
        except OSError as exc:
            _echo(f"relialint: error: cannot write the baseline {field(args.write_baseline)}: "
                  f"{exc.strerror or 'failed'}", err=True)
            return 2
        _echo(f"relialint: wrote {count} finding{'s' if count != 1 else ''} to {field(args.write_baseline)}",
              err=True)
        return 2 if run.errors else 0
    color = args.fmt == "text" and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    # file names that are not valid UTF-8 reach here as lone surrogates: written as U+FFFD, never an encoding crash
    out = formatter(args.fmt)(run, color, args.show_ignored).encode("utf-8", "surrogateescape").decode("utf-8",
                                                                                                        "replace")
    sys.stdout.buffer.write(out.encode("utf-8"))
    sys.stdout.flush()
    return 2 if run.errors else (1 if run.failing else 0)


def _stdin_name(paths: list[str], stdin_filename: str | None) -> str | None:
    """The name standard input is linted under when the one path is ``-`` (``--stdin-filename``), else ``None``."""
    if "-" not in paths:
        return None
    if len(paths) != 1 or not stdin_filename:
        raise UsageError("`-` reads standard input: give it alone, with --stdin-filename NAME", command_line=True)
    return stdin_filename


# -- upgrade ------------------------------------------------------------------------------------------------------

UPGRADE_FORMATS = ("text", "json", "sarif", "github")


def upgrade_parser() -> Parser:
    p = _parser("upgrade", "[OPTIONS] PATHS... --to VERSION",
                "What silently changes for each deployment when its engine moves to another release.")
    p.add_argument("paths", nargs="+", metavar="PATHS", help="files and folders to read, as check finds them")
    p.add_argument("--to", dest="to", metavar="VERSION", required=True,
                   help="the release to move to (0.23.0, b6000), or `latest`: the newest release relialint's tables "
                        "describe for each deployment's engine")
    p.add_argument("--from", dest="old", metavar="VERSION",
                   help="the release the deployments run today, where the files do not say it or say it wrong "
                        "(default: the version each file pins; unknown: judged over every version it allows)")
    _add_many(p, "--gpu", "gpu", help_text="target GPU (as check; repeat it to check every target)")
    _add_run_options(p, RunHelp(
        facts="target facts from a file (as check)",
        formats=UPGRADE_FORMATS,
        fail_on="lowest severity of a finding the upgrade introduces that makes the exit code 1  [default: major]",
        strict="possible findings the upgrade introduces count toward the exit code too",
        show_possible="list every possible item, not only those something in the file points at"))
    return p


def upgrade(args: argparse.Namespace) -> int:
    """What silently changes for each deployment when its engine moves to another release."""
    _check_choice("--os", args.os_name, OS_NAMES)
    _check_choice("--format", args.fmt, UPGRADE_FORMATS)
    _check_choice("--fail-on", args.fail_on, list(FAIL_LEVELS))
    _check_path("--facts", args.facts_file)
    _check_path("--config", args.config_file)
    for folder in args.records_dirs or ():
        _check_path("--records", folder, folder=True)
    from relialint.report import upgrade_formatter
    from relialint.run.lint import Options, Target
    from relialint.run.upgrade import Request, upgrade_paths

    gpu: list[str] = args.gpu or []
    _not_empty("--gpu", *gpu)
    _not_empty("--to", args.to)
    _not_empty("--from", *(args.old,) if args.old is not None else ())
    _working_directory()
    given = Path(args.facts_file) if args.facts_file else None
    facts = _facts(args.fact)
    options = Options(Target(gpu[0] if gpu else None, None, args.os_name, facts, facts_file=given),
                      _split(args.select), _split(args.ignore), [Path(d) for d in args.records_dirs or ()],
                      targets=[Target(g, None, args.os_name, facts, facts_file=given) for g in gpu],
                      config_file=Path(args.config_file) if args.config_file else None, isolated=args.isolated,
                      fail_on=args.fail_on, strict=args.strict, show_possible=args.show_possible,
                      follow_outside=args.follow_outside)
    run = upgrade_paths(list(args.paths), options, Request(args.to, args.old))
    color = args.fmt == "text" and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    out = upgrade_formatter(args.fmt)(run, color).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    sys.stdout.buffer.write(out.encode("utf-8"))
    sys.stdout.flush()
    return 2 if run.errors else (1 if run.failing else 0)


# -- explain, records ---------------------------------------------------------------------------------------------


def _records() -> list[dict[str, Any]]:
    from relialint.run.lint import Options, load_records

    records, errors = load_records(Options())
    for error in errors:
        _echo(f"{field(error.path)}:{error.line}:{error.column}: error: {field(error.message)}", err=True)
    return records


def explain_parser() -> Parser:
    p = _parser("explain", "[OPTIONS] RECORD_ID", "Show a record in full (by id or slug).")
    p.add_argument("record_id", metavar="RECORD_ID", help="a record id (RL101) or slug")
    return p


def explain(args: argparse.Namespace) -> int:
    """Show a record in full (by id or slug)."""
    from relialint.kb.describe import explain as render

    record_id: str = args.record_id
    for record in _records():
        if record_id.upper() == record["id"] or record_id == record["slug"]:
            _echo(render(record), nl=False)
            return 0
    _echo(f"relialint: error: no record {record_id!r}; `relialint records` lists them", err=True)
    return 2


def records_parser() -> Parser:
    p = _parser("records", "[OPTIONS] [QUERY]",
                "List or search the catalogue, with each record's source and where its defect stands upstream.")
    p.add_argument("query", nargs="?", metavar="QUERY", help="text to look for in the records (all of them without it)")
    p.add_argument("--engine", metavar="NAME", help="only the records of one engine (its engine.name value, such "
                   "as sglang, or its name in prose) and the engine-independent records, which apply to it too")
    _add_choice(p, "--format", "fmt", ("text", "json"), "text")
    return p


def _engine_name(option: str, value: str) -> str:
    """An engine relialint ships that takes a version, by its ``engine.name`` (case ignored) or its label."""
    from relialint.engines.registry import default_registry

    engines = default_registry().versioned()
    for engine in engines:
        if value.lower() in (engine.name.lower(), engine.label.lower()):
            return engine.name
    _check_choice(option, value, [engine.name for engine in engines])
    return value


def _per_engine(found: list[dict[str, Any]]) -> str:
    """How many of the records name each engine, and how many are engine-independent."""
    from relialint.engines.registry import default_registry

    registry = default_registry()
    parts = [f"{registry.label(e.name)} {n}" for e in registry.versioned()
             if (n := sum(1 for r in found if e.name in (r.get("engines") or [])))]
    parts.append(f"engine-independent {sum(1 for r in found if not r.get('engines'))}")
    both = sum(1 for r in found if len(r.get("engines") or []) > 1)
    return ", ".join(parts) + (f"; {both} name{'s' if both == 1 else ''} more than one engine" if both else "")


def records(args: argparse.Namespace) -> int:
    """List or search the catalogue, with each record's source and where its defect stands upstream."""
    _check_choice("--format", args.fmt, ("text", "json"))
    from relialint import record_url
    from relialint.kb.upstream import sources, status

    query: str | None = args.query
    engine = _engine_name("--engine", args.engine) if args.engine is not None else None
    found = []
    for record in _records():
        if engine is not None and record.get("engines") and engine not in record["engines"]:
            continue
        haystack = json.dumps(record).lower()
        if query and query.lower() not in haystack:
            continue
        found.append(record)
    if args.fmt == "json":
        rows = [{"id": r["id"], "slug": r["slug"], "title": r["title"], "severity": r["severity"],
                 "impact": r["impact"], "engines": r.get("engines") or [], "trigger": bool(r.get("trigger")),
                 "runtime_trigger": bool(r.get("runtime_trigger")), "url": record_url(r["id"]),
                 "reach": (r.get("reach") or {}).get("estimate"),
                 "sources": [s.as_json() for s in sources(r)], "upstream": status(r).as_json()} for r in found]
        _echo_json({"records": rows}, ensure_ascii=True)
        return 0
    for r in found:
        kind = "trigger" if r.get("trigger") else ("runtime" if r.get("runtime_trigger") else "knowledge")
        _echo(f"{r['id']}  {r['severity']:<7}  {r['impact']:<14}  {kind:<9}  {r['title']}")
        origin = "; ".join(s.label + (f" {s.url}" if s.kind == "tracker" else "") for s in sources(r)) or "none given"
        _echo(f"       source: {origin}  |  upstream: {status(r).text}")
    summary = f"{len(found)} record{'s' if len(found) != 1 else ''}"
    if engine is not None:
        from relialint.engines.registry import default_registry

        own = sum(1 for r in found if r.get("engines"))
        summary += f" ({own} of {default_registry().label(engine)}, {len(found) - own} engine-independent)"
    elif found:
        summary += f" ({_per_engine(found)})"
    _echo(summary)
    return 0


# -- facts --------------------------------------------------------------------------------------------------------


def facts_parser() -> Parser:
    p = _parser("facts", "[OPTIONS] PATHS...", "Every deployment found and every fact, with where it came from.")
    p.add_argument("paths", nargs="+", metavar="PATHS", help="files and folders to read")
    p.add_argument("--gpu", metavar="TEXT")
    p.add_argument("--engine-version", metavar="TEXT")
    _add_choice(p, "--os", "os_name", OS_NAMES, None)
    _add_many(p, "--fact", "fact", "KEY=VALUE")
    p.add_argument("--facts", dest="facts_file", metavar="FILE",
                   help="target facts from a file (probe --write-facts output or a vllm collect-env dump)")
    _add_choice(p, "--format", "fmt", ("text", "json"), "text")
    _add_follow_outside(p)
    return p


def facts(args: argparse.Namespace) -> int:
    """Every deployment found and every fact, with where it came from."""
    _check_choice("--os", args.os_name, OS_NAMES)
    _check_path("--facts", args.facts_file)
    _check_choice("--format", args.fmt, ("text", "json"))
    from relialint.base.secrets import secret_name
    from relialint.core.facts import json_value, render, shown
    from relialint.engines.registry import default_registry
    from relialint.run.lint import Options, Target, lint_paths

    gpu: str | None = args.gpu
    engine_version: str | None = args.engine_version
    _not_empty("--gpu", *(gpu,) if gpu is not None else ())
    _not_empty("--engine-version", *(engine_version,) if engine_version is not None else ())
    _working_directory()
    target = Target(gpu, engine_version, args.os_name, _facts(args.fact),
                    facts_file=Path(args.facts_file) if args.facts_file else None)
    run = lint_paths(list(args.paths), Options(target, select=["-none-"], follow_outside=args.follow_outside))
    deployments = []
    for d in run.deployments:
        entry: dict[str, Any] = {"path": d.path, "line": d.span.line, "engine": d.engine, "kind": d.kind,
                                 "facts": {}}
        if d.unseen is not None:
            entry["launch"] = {"seen": False, "why": d.unseen}  # extends the contract: absent where it is seen
        for key, f in d.facts.items():
            secret = f.value is not None and not isinstance(f.value, bool) and secret_name(key)  # a flag: none
            item: dict[str, Any] = {"value": shown(key, f.value) if secret else json_value(f.value),
                                    "origin": f.origin}
            if secret:
                item["redacted"] = True  # a secret: that it is set, never its value (docs/bad-input.md)
            if f.path is not None:
                item.update({"path": f.path, "line": f.line, "column": f.column})
            if f.note:
                item["note"] = f.note
            if f.source is not None:
                item["source"] = {"path": f.source[0], "line": f.source[1], "column": f.source[2]}
            entry["facts"][key] = item
        if d.notes:
            entry["notes"] = list(d.notes)
        deployments.append(entry)
    errors: list[dict[str, Any]] = [{"path": e.path, "line": e.line, "column": e.column, "message": e.message}
                                    for e in run.errors]
    warnings: list[dict[str, Any]] = [{"path": w.path, "line": w.line, "column": w.column, "message": w.message}
                                      for w in run.warnings]
    # the files that gave no deployment, with what they hold: "no deployment found" is a result, never silence
    empty = [{"path": path, "kind": kind, "saw": saw} for path, kind, saw, found in run.looked_at if not found]
    if args.fmt == "json":
        _echo_json({"deployments": deployments, "errors": errors, **({"warnings": warnings} if warnings else {}),
                    "no_deployment": empty})
    else:
        for kind, problems in (("error", errors), ("warning", warnings)):
            for e in problems:
                _echo(f"{field(e['path'])}:{e['line']}:{e['column']}: {kind}: {field(e['message'])}")
        for entry in deployments:
            unseen = ", launch not in the file" if "launch" in entry else ""
            _echo(f"{field(entry['path'])}:{entry['line']}: {entry['engine']} ({entry['kind']}{unseen})")
            for key, item in entry["facts"].items():
                where = f"{field(item['path'])}:{item['line']}:{item['column']}" if "path" in item else ""
                value = render(item["value"]) if not isinstance(item["value"], str) else item["value"]
                note = f"  ({field(item['note'])})" if "note" in item else ""
                _echo(f"  {field(key):<34} {field(value):<28} {item['origin']:<12} {where}{note}")
            for line in entry.get("notes", []):
                _echo(f"  note: {field(line)}")
        if not deployments:
            _echo("no deployment found")
        engines = " or ".join(engine.name for engine in default_registry() if engine.takes_version)
        for item in empty:
            why = {"skipped": "", "env": "; an env file launches nothing by itself (it is read where a launch loads "
                                         "it: env_file:, --env-file, EnvironmentFile=)"}.get(item["kind"],
                                                                                            f"; none runs {engines}")
            _echo(f"{field(item['path'])}: no deployment: {field(item['saw'])}{why}")
    return 2 if run.errors else 0


# -- validate, schema, lsp ----------------------------------------------------------------------------------------


def validate_parser() -> Parser:
    p = _parser("validate", "[OPTIONS] [DIRS]...",
                "Validate record files (schema, semantic checks, examples); the shipped ones by default.")
    p.add_argument("dirs", nargs="*", metavar="DIRS", help="folders of record files")
    return p


def validate(args: argparse.Namespace) -> int:
    """Validate record files (schema, semantic checks, examples); the shipped ones by default."""
    from relialint.kb.loader import load_dir, shipped_dir
    from relialint.run.examples import validate_dirs

    dirs: list[str] = args.dirs
    folders = [Path(d) for d in dirs] or [shipped_dir()]
    known = {r.record.id for r in load_dir(shipped_dir()).records} if dirs else set()
    problems = validate_dirs(folders, known)
    for p in problems:
        _echo(f"{field(p.path)}:{p.line}:{p.column}: {p.code} {field(p.message)}")
    count = sum(len(list(f.glob("*.y*ml"))) for f in folders if f.is_dir())
    _echo(f"{count} record file{'s' if count != 1 else ''}, {len(problems)} problem"
          f"{'s' if len(problems) != 1 else ''}")
    return 2 if problems else 0


def lsp_parser() -> Parser:
    return _parser("lsp", "[OPTIONS]", "Run the language server over stdio (for editors).")


def lsp(args: argparse.Namespace) -> int:
    """Run the language server over stdio (for editors)."""
    from relialint.lsp.server import main as serve

    serve()
    return 0


def schema_parser() -> Parser:
    return _parser("schema", "[OPTIONS]", "Print the record JSON Schema.")


def schema(args: argparse.Namespace) -> int:
    """Print the record JSON Schema."""
    from relialint.kb.model import json_schema

    _echo_json(json_schema(), sort_keys=True, ensure_ascii=True)
    return 0


# -- probe --------------------------------------------------------------------------------------------------------


def probe_parser() -> Parser:
    p = _parser("probe", "[OPTIONS]", "Facts and runtime findings from a GPU host (NVML, or captures given with "
                                      "--from-nvidia-smi).")
    _add_many(p, "--from-nvidia-smi", "files", "FILE",
              "read captures instead of NVML: nvidia-smi -q -x, nvidia-smi --query-gpu ... --format=csv, nvidia-smi "
              "--version / conf-compute, amd-smi or rocm-smi output; several captures in order count as samples "
              "(repeatable)")
    p.add_argument("--duration", default="0.0", metavar="S",
                   help="with NVML: sample the counters over S seconds (0: one snapshot)  [default: 0.0; x>=0]")
    p.add_argument("--interval", default="1.0", metavar="S",
                   help="with --duration: seconds between samples  [default: 1.0; x>=0.05]")
    p.add_argument("--write-facts", metavar="FILE",
                   help="write the host's facts to FILE (.json or .toml) for relialint check --facts")
    _add_many(p, "--fact", "fact", "KEY=VALUE",
              "a fact no counter reads (host.runs_benchmarks=true, host.psu_offline=3); the probe's readings win")
    _add_choice(p, "--format", "fmt", ("text", "json", "sarif", "github"), "text")
    _add_many(p, "--select", "select", help_text="record ids or prefixes (RL2), comma separated")
    _add_many(p, "--ignore", "ignore", help_text="record ids or prefixes to leave out")
    _add_choice(p, "--fail-on", "fail_on", list(FAIL_LEVELS), "major",
                "lowest severity of a definite finding that makes the exit code 1")
    p.add_argument("--strict", action="store_true", help="possible findings count toward the exit code too")
    p.add_argument("--show-possible", action="store_true",
                   help="list every possible finding, not only those a reading points at (an idle snapshot)")
    return p


def probe(args: argparse.Namespace) -> int:
    """Facts and runtime findings from a GPU host (NVML, or captures given with --from-nvidia-smi)."""
    files: list[str] = args.files or []
    for file in files:
        _check_path("--from-nvidia-smi", file)
    duration = _check_float("--duration", args.duration, 0)
    interval = _check_float("--interval", args.interval, 0.05)
    _check_path("--write-facts", args.write_facts)
    _check_choice("--format", args.fmt, ("text", "json", "sarif", "github"))
    _check_choice("--fail-on", args.fail_on, list(FAIL_LEVELS))
    from relialint.report import formatter
    from relialint.run import probing as probe_run

    write_facts: str | None = args.write_facts
    options = probe_run.ProbeOptions([Path(f) for f in files], duration, interval, _facts(args.fact),
                                     _split(args.select), _split(args.ignore), args.fail_on, args.strict,
                                     args.show_possible)
    if files and duration:
        raise UsageError("--duration samples NVML on this host; with --from-nvidia-smi, give several captures in "
                         "time order instead", command_line=True)
    if write_facts and Path(write_facts).suffix.lower() not in (".json", ".toml"):
        raise UsageError(f"--write-facts {write_facts}: the file name ends in .json or .toml", command_line=True)
    if write_facts:
        _writable("--write-facts", write_facts)
    host, run = probe_run.probe(options)
    if write_facts:
        from relialint.probe.factsfile import write

        try:
            write(Path(write_facts), host.facts, list(files))
        except OSError as exc:
            raise UsageError(f"--write-facts {write_facts}: {exc.strerror or exc}") from exc
        _echo(f"relialint: wrote {len(host.facts.facts)} facts to {field(write_facts)}", err=True)
    color = args.fmt == "text" and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    sys.stdout.write(formatter(args.fmt)(run, color, False))
    sys.stdout.flush()
    return 2 if run.errors else (1 if run.failing else 0)


# -- the group ----------------------------------------------------------------------------------------------------

Command = tuple[Callable[[], Parser], Callable[[argparse.Namespace], int]]
COMMANDS: dict[str, Command] = {
    "check": (check_parser, check),
    "explain": (explain_parser, explain),
    "facts": (facts_parser, facts),
    "lsp": (lsp_parser, lsp),
    "probe": (probe_parser, probe),
    "records": (records_parser, records),
    "schema": (schema_parser, schema),
    "upgrade": (upgrade_parser, upgrade),
    "validate": (validate_parser, validate),
}


def group_help() -> str:
    lines = ["Usage: relialint [OPTIONS] COMMAND [ARGS]...", "       relialint PATHS... [OPTIONS]   (check)", "",
             "Lint LLM-serving deployment configs (vLLM, llama.cpp, SGLang) against known silent failures.", "",
             "options:", "  --version   Show the version and exit.", f"  -h, --help  {HELP}", "", "commands:"]
    for name, (_, run) in COMMANDS.items():
        lines.append(f"  {name:<9} {(run.__doc__ or '').splitlines()[0]}")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command line (``sys.argv[1:]`` by default) and return its exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        _echo(group_help(), nl=False)
        return 0
    if args[0] == "--version":
        _echo(f"relialint, version {__version__}")
        return 0
    name = args[0] if args[0] in COMMANDS else "check"
    rest = args[1:] if args[0] in COMMANDS else args
    closed = _closed_streams(name)
    if closed:
        _echo(f"relialint: error: {closed} is closed; relialint {name} needs it", err=True)
        return 2
    build, run = COMMANDS[name]
    parser = build()
    parser.add_argument("-h", "--help", action="help", help=HELP)
    try:
        namespace = parser.parse_intermixed_args(rest)
        return _last_resort(run, namespace)
    except RelialintError as exc:
        return _report(exc, parser, name)


def _report(exc: RelialintError, parser: Parser, name: str) -> int:
    """The one place an error relialint raised on purpose reaches the user, never as a traceback: exit 2. A bad
    command line gets the command's usage line first; invalid configuration is located in its file; any other error
    is one line with its message."""
    if isinstance(exc, InternalError):
        return _internal_error(exc)
    if isinstance(exc, UsageError):
        if exc.command_line:
            _echo(parser.format_usage() + f"Try 'relialint {name} -h' for help.", err=True)
    else:
        from relialint.run.config import ConfigError  # not imported for a usage error: nothing of the pipeline is

        if isinstance(exc, ConfigError):
            _echo(f"{field(str(exc.path))}:{exc.line}:{exc.column}: error: invalid configuration: "
                  f"{field(exc.message)}", err=True)
            return 2
    _echo(f"relialint: error: {field(str(exc))}", err=True)
    return 2


def _closed_streams(name: str) -> str | None:
    """The standard stream a command needs that was closed when relialint started (``>&-``, ``<&-``): standard
    output for every command that reports, standard input too for the language server (``check -`` says so
    itself, with its usage)."""
    if sys.stdout is None:
        return "standard output"
    if name == "lsp" and sys.stdin is None:
        return "standard input"
    return None


def _last_resort(run: Callable[[argparse.Namespace], int], namespace: argparse.Namespace) -> int:
    """An unexpected exception is one line on stderr and exit 2, never a traceback and never exit 1 (the code for
    findings). Errors in one file are caught per file in ``lint``; the errors relialint raises on purpose go to
    ``main`` (:func:`_report`)."""
    try:
        return run(namespace)
    except InternalError as exc:
        return _internal_error(exc)
    except (RelialintError, SystemExit, KeyboardInterrupt):
        raise
    except BrokenPipeError:
        return 2
    except (Exception, RecursionError, MemoryError) as exc:
        return _internal_error(exc)


def _internal_error(exc: BaseException) -> int:
    _echo(f"relialint: internal error ({type(exc).__name__}); nothing was reported. Please report it with the "
          "input that caused it.", err=True)
    return 2


if __name__ == "__main__":
    sys.exit(main())
