"""The command line: a thin click layer that parses options, runs, and returns an exit code."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from relialint import __version__

FAIL_LEVELS = {"blocker": 3, "major": 2, "minor": 1, "never": 99}


class DefaultGroup(click.Group):
    """``relialint serve-cmd.sh`` means ``relialint check serve-cmd.sh``."""

    def invoke(self, ctx: click.Context) -> Any:
        """The last-resort handler: an unexpected exception is one line on stderr and exit 2, never a traceback
        and never exit 1 (the code for findings). Errors in one file are caught per file in ``lint``."""
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit, KeyboardInterrupt):
            raise
        except BrokenPipeError:
            sys.exit(2)
        except (Exception, RecursionError, MemoryError) as exc:
            click.echo(f"relialint: internal error ({type(exc).__name__}); nothing was reported. Please report it "
                       "with the input that caused it.", err=True)
            sys.exit(2)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            args = ["check", *args]
        elif not args:
            args = ["--help"]
        return super().parse_args(ctx, args)


@click.group(cls=DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="relialint")
def main() -> None:
    """Lint LLM-serving deployment configs (vLLM, llama.cpp) against known silent failures."""


def _usage_exit(exc: Exception) -> NoReturn:
    """Invalid configuration (located) or a bad option: one line on stderr, exit 2."""
    from relialint.config import ConfigError

    if isinstance(exc, ConfigError):
        click.echo(f"{exc.path}:{exc.line}:{exc.column}: error: invalid configuration: {exc.message}", err=True)
    else:
        click.echo(f"relialint: error: {exc}", err=True)
    sys.exit(2)


def _split(values: tuple[str, ...]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def _not_empty(option: str, *values: str) -> None:
    for value in values:
        if not value.strip():
            raise click.UsageError(f"{option} takes a value, not an empty string")


def _working_directory() -> None:
    try:
        os.getcwd()
    except OSError:
        raise click.UsageError("the working directory no longer exists; run relialint from an existing folder") \
            from None


def _facts(values: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in values:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise click.UsageError(f"--fact takes KEY=VALUE, not {item!r}")
        out[key.strip()] = value.strip()
    return out


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--gpu", multiple=True,
              help="target GPU: product name, compute capability (sm_90) or AMD target (gfx1151); repeat it to "
                   "check every target (--gpu H100 --gpu B200)")
@click.option("--engine-version", help="engine version when the files do not pin it (0.30.0, b6327)")
@click.option("--os", "os_name", type=click.Choice(["linux", "windows", "macos"]), help="host OS")
@click.option("--fact", "fact", multiple=True, metavar="KEY=VALUE", help="any fact of the vocabulary")
@click.option("--facts", "facts_file", type=click.Path(dir_okay=False), metavar="FILE",
              help="target facts from a file: relialint probe --write-facts output (.json, .toml) or a vllm "
                   "collect-env dump")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "sarif", "github"]), default="text",
              show_default=True)
@click.option("--select", multiple=True, help="record ids or prefixes (RL1, RL105), comma separated")
@click.option("--ignore", multiple=True, help="record ids or prefixes to leave out")
@click.option("--fail-on", type=click.Choice(list(FAIL_LEVELS)), default=None,
              help="lowest severity of a definite finding that makes the exit code 1  [default: major]")
@click.option("--strict/--no-strict", default=None, help="possible findings count toward the exit code too")
@click.option("--show-possible", is_flag=True,
              help="list every possible finding, not only those something in the file points at")
@click.option("--records", "records_dirs", multiple=True, type=click.Path(exists=True, file_okay=False),
              help="a folder of your own records, used beside the shipped ones")
@click.option("--config", "config_file", type=click.Path(dir_okay=False),
              help="use this configuration file instead of the nearest pyproject.toml / .relialint.toml")
@click.option("--isolated", is_flag=True, help="read no configuration file")
@click.option("--no-inline-ignores", is_flag=True, help="apply no `# relialint: ignore[...]` comment (audits)")
@click.option("--show-ignored", is_flag=True, help="also list what was suppressed, by what and why")
@click.option("--baseline", "baseline", type=click.Path(dir_okay=False),
              help="report only findings that are not in this baseline file")
@click.option("--write-baseline", "write_baseline", type=click.Path(dir_okay=False),
              help="record today's findings in this baseline file and exit 0")
@click.option("--stdin-filename", metavar="NAME", help="with `-` as the path: read standard input as this file")
def check(paths: tuple[str, ...], gpu: tuple[str, ...], engine_version: str | None, os_name: str | None,
          fact: tuple[str, ...], facts_file: str | None, fmt: str, select: tuple[str, ...], ignore: tuple[str, ...],
          fail_on: str | None, strict: bool | None, show_possible: bool, records_dirs: tuple[str, ...],
          config_file: str | None, isolated: bool, no_inline_ignores: bool, show_ignored: bool, baseline: str | None,
          write_baseline: str | None, stdin_filename: str | None) -> None:
    """Lint deployment files (the default command)."""
    from relialint.config import ConfigError
    from relialint.lint import Options, Target, UsageError, lint_paths, lint_text
    from relialint.report import formatter

    facts = _facts(fact)
    _not_empty("--gpu", *gpu)
    _not_empty("--engine-version", *(engine_version,) if engine_version is not None else ())
    _working_directory()
    given = Path(facts_file) if facts_file else None
    targets = [Target(g, engine_version, os_name, facts, facts_file=given) for g in gpu]
    options = Options(Target(gpu[0] if gpu else None, engine_version, os_name, facts, facts_file=given),
                      _split(select), _split(ignore), [Path(d) for d in records_dirs], targets=targets,
                      config_file=Path(config_file) if config_file else None, isolated=isolated,
                      inline_ignores=not no_inline_ignores, baseline=Path(baseline) if baseline else None,
                      fail_on=fail_on, strict=strict, show_possible=show_possible)
    if "-" in paths and (len(paths) != 1 or not stdin_filename):
        raise click.UsageError("`-` reads standard input: give it alone, with --stdin-filename NAME")
    try:
        if paths == ("-",):
            assert stdin_filename is not None
            from relialint.readers import detect
            from relialint.readers.located import bounded, decode

            if sys.stdin is None:
                raise click.UsageError("`-` reads standard input, but standard input is closed")
            data, error = bounded(sys.stdin.buffer, stdin_filename)
            text = None
            if data is not None:
                text, error = decode(data, stdin_filename)
            kind = detect.kind_by_name(Path(stdin_filename)) or detect.kind_by_content(text or "") or "shell"
            run = lint_text(text or "", stdin_filename, kind, options)
            if error is not None:
                run.errors.append(error)
        else:
            run = lint_paths(list(paths), options)
    except (ConfigError, UsageError) as exc:
        _usage_exit(exc)
    if write_baseline:
        from relialint.suppress import write_baseline as write

        try:
            count = write(Path(write_baseline), run)
        except OSError as exc:
            click.echo(f"relialint: error: cannot write the baseline {write_baseline}: {exc.strerror or 'failed'}",
                       err=True)
            sys.exit(2)
        click.echo(f"relialint: wrote {count} finding{'s' if count != 1 else ''} to {write_baseline}", err=True)
        sys.exit(2 if run.errors else 0)
    color = fmt == "text" and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    # file names that are not valid UTF-8 reach here as lone surrogates: written as U+FFFD, never an encoding crash
    out = formatter(fmt)(run, color, show_ignored).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    sys.stdout.buffer.write(out.encode("utf-8"))
    sys.stdout.flush()
    sys.exit(2 if run.errors else (1 if run.failing else 0))


def _records() -> list[dict[str, Any]]:
    from relialint.lint import Options, load_records

    records, errors = load_records(Options())
    for error in errors:
        click.echo(f"{error.path}:{error.line}:{error.column}: error: {error.message}", err=True)
    return records


@main.command()
@click.argument("record_id")
def explain(record_id: str) -> None:
    """Show a record in full (by id or slug)."""
    from relialint.kb.describe import explain as render

    for record in _records():
        if record_id.upper() == record["id"] or record_id == record["slug"]:
            click.echo(render(record), nl=False)
            return
    click.echo(f"relialint: error: no record {record_id!r}; `relialint records` lists them", err=True)
    sys.exit(2)


@main.command()
@click.argument("query", required=False)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def records(query: str | None, fmt: str) -> None:
    """List or search the catalogue, with each record's source and where its defect stands upstream."""
    from relialint import record_url
    from relialint.kb.upstream import sources, status

    found = []
    for record in _records():
        haystack = json.dumps(record).lower()
        if query and query.lower() not in haystack:
            continue
        found.append(record)
    if fmt == "json":
        rows = [{"id": r["id"], "slug": r["slug"], "title": r["title"], "severity": r["severity"],
                 "impact": r["impact"], "engines": r.get("engines") or [], "trigger": bool(r.get("trigger")),
                 "runtime_trigger": bool(r.get("runtime_trigger")), "url": record_url(r["id"]),
                 "sources": [s.as_json() for s in sources(r)], "upstream": status(r).as_json()} for r in found]
        click.echo(json.dumps({"records": rows}, indent=2))
        return
    for r in found:
        kind = "trigger" if r.get("trigger") else ("runtime" if r.get("runtime_trigger") else "knowledge")
        click.echo(f"{r['id']}  {r['severity']:<7}  {r['impact']:<14}  {kind:<9}  {r['title']}")
        origin = "; ".join(s.label + (f" {s.url}" if s.kind == "tracker" else "") for s in sources(r)) or "none given"
        click.echo(f"       source: {origin}  |  upstream: {status(r).text}")
    click.echo(f"{len(found)} record{'s' if len(found) != 1 else ''}")


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--gpu")
@click.option("--engine-version")
@click.option("--os", "os_name", type=click.Choice(["linux", "windows", "macos"]))
@click.option("--fact", "fact", multiple=True, metavar="KEY=VALUE")
@click.option("--facts", "facts_file", type=click.Path(dir_okay=False), metavar="FILE",
              help="target facts from a file (probe --write-facts output or a vllm collect-env dump)")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def facts(paths: tuple[str, ...], gpu: str | None, engine_version: str | None, os_name: str | None,
          fact: tuple[str, ...], facts_file: str | None, fmt: str) -> None:
    """Every deployment found and every fact, with where it came from."""
    from relialint.config import ConfigError
    from relialint.facts import json_value, render
    from relialint.lint import Options, Target, UsageError, lint_paths

    _not_empty("--gpu", *(gpu,) if gpu is not None else ())
    _not_empty("--engine-version", *(engine_version,) if engine_version is not None else ())
    _working_directory()
    try:
        target = Target(gpu, engine_version, os_name, _facts(fact),
                        facts_file=Path(facts_file) if facts_file else None)
        run = lint_paths(list(paths), Options(target, select=["-none-"]))
    except (ConfigError, UsageError) as exc:
        _usage_exit(exc)
    deployments = []
    for d in run.deployments:
        entry: dict[str, Any] = {"path": d.path, "line": d.span.line, "engine": d.engine, "kind": d.kind,
                                 "facts": {}}
        for key, f in d.facts.items():
            item: dict[str, Any] = {"value": json_value(f.value), "origin": f.origin}
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
    errors = [{"path": e.path, "line": e.line, "column": e.column, "message": e.message} for e in run.errors]
    if fmt == "json":
        click.echo(json.dumps({"deployments": deployments, "errors": errors}, indent=2, ensure_ascii=False))
    else:
        for e in run.errors:
            click.echo(f"{e.path}:{e.line}:{e.column}: error: {e.message}")
        for entry in deployments:
            click.echo(f"{entry['path']}:{entry['line']}: {entry['engine']} ({entry['kind']})")
            for key, item in entry["facts"].items():
                where = f"{item['path']}:{item['line']}:{item['column']}" if "path" in item else ""
                value = render(item["value"]) if not isinstance(item["value"], str) else item["value"]
                note = f"  ({item['note']})" if "note" in item else ""
                click.echo(f"  {key:<34} {value:<28} {item['origin']:<12} {where}{note}")
            for line in entry.get("notes", []):
                click.echo(f"  note: {line}")
    sys.exit(2 if run.errors else 0)


@main.command()
@click.argument("dirs", nargs=-1, type=click.Path())
def validate(dirs: tuple[str, ...]) -> None:
    """Validate record files (schema, semantic checks, examples); the shipped ones by default."""
    from relialint.kb.loader import load_dir, shipped_dir
    from relialint.kb.validate import validate_dirs

    folders = [Path(d) for d in dirs] or [shipped_dir()]
    known = {r.record.id for r in load_dir(shipped_dir()).records} if dirs else set()
    problems = validate_dirs(folders, known)
    for p in problems:
        click.echo(f"{p.path}:{p.line}:{p.column}: {p.code} {p.message}")
    count = sum(len(list(f.glob("*.y*ml"))) for f in folders if f.is_dir())
    click.echo(f"{count} record file{'s' if count != 1 else ''}, {len(problems)} problem"
               f"{'s' if len(problems) != 1 else ''}")
    sys.exit(2 if problems else 0)


@main.command()
@click.option("--from-nvidia-smi", "files", multiple=True, type=click.Path(dir_okay=False), metavar="FILE",
              help="read captures instead of NVML: nvidia-smi -q -x, nvidia-smi --query-gpu ... --format=csv, "
                   "nvidia-smi --version / conf-compute, amd-smi or rocm-smi output; several captures in order count "
                   "as samples (repeatable)")
@click.option("--duration", type=click.FloatRange(min=0), default=0.0, show_default=True, metavar="S",
              help="with NVML: sample the counters over S seconds (0: one snapshot)")
@click.option("--interval", type=click.FloatRange(min=0.05), default=1.0, show_default=True, metavar="S",
              help="with --duration: seconds between samples")
@click.option("--write-facts", "write_facts", type=click.Path(dir_okay=False), metavar="FILE",
              help="write the host's facts to FILE (.json or .toml) for relialint check --facts")
@click.option("--fact", "fact", multiple=True, metavar="KEY=VALUE",
              help="a fact no counter reads (host.psu_degraded=true); the probe's readings win")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "sarif", "github"]), default="text",
              show_default=True)
@click.option("--select", multiple=True, help="record ids or prefixes (RL2), comma separated")
@click.option("--ignore", multiple=True, help="record ids or prefixes to leave out")
@click.option("--fail-on", type=click.Choice(list(FAIL_LEVELS)), default="major", show_default=True,
              help="lowest severity of a definite finding that makes the exit code 1")
@click.option("--strict", is_flag=True, help="possible findings count toward the exit code too")
@click.option("--show-possible", is_flag=True,
              help="list every possible finding, not only those a reading points at (an idle snapshot)")
def probe(files: tuple[str, ...], duration: float, interval: float, write_facts: str | None, fact: tuple[str, ...],
          fmt: str, select: tuple[str, ...], ignore: tuple[str, ...], fail_on: str, strict: bool,
          show_possible: bool) -> None:
    """Facts and runtime findings from a GPU host (NVML, or captures given with --from-nvidia-smi)."""
    from relialint.lint import UsageError
    from relialint.probe import run as probe_run
    from relialint.probe.nvml import NvmlUnavailable
    from relialint.report import formatter

    options = probe_run.ProbeOptions([Path(f) for f in files], duration, interval, _facts(fact), _split(select),
                                     _split(ignore), fail_on, strict, show_possible)
    if files and duration:
        raise click.UsageError("--duration samples NVML on this host; with --from-nvidia-smi, give several captures "
                               "in time order instead")
    if write_facts and Path(write_facts).suffix.lower() not in (".json", ".toml"):
        raise click.UsageError(f"--write-facts {write_facts}: the file name ends in .json or .toml")
    try:
        host, run = probe_run.probe(options)
    except (UsageError, NvmlUnavailable) as exc:
        _usage_exit(exc)
    if write_facts:
        from relialint.probe.factsfile import write

        try:
            write(Path(write_facts), host.facts, list(files))
        except OSError as exc:
            _usage_exit(ValueError(f"--write-facts {write_facts}: {exc.strerror or exc}"))
        click.echo(f"relialint: wrote {len(host.facts.facts)} facts to {write_facts}", err=True)
    color = fmt == "text" and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    sys.stdout.write(formatter(fmt)(run, color, False))
    sys.exit(2 if run.errors else (1 if run.failing else 0))


@main.command()
def lsp() -> None:
    """Run the language server over stdio (for editors)."""
    from relialint.lsp import main as serve

    serve()


@main.command()
def schema() -> None:
    """Print the record JSON Schema."""
    from relialint.kb.model import json_schema

    click.echo(json.dumps(json_schema(), indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
