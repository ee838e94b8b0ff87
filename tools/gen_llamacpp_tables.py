#!/usr/bin/env python3
"""Generate relialint's llama.cpp option tables by build (``src/relialint/data/llamacpp_flags.json``).

Two steps, so that the table rebuilds offline and the repository holds facts, not llama.cpp's code:

``extract`` reads one ``common/arg.cpp`` (the copy of llama.cpp vendored in a llama-cpp-python sdist on PyPI; its
``CHANGELOG.md`` names the upstream commit) and writes ``tools/llamacpp-extract/options-<label>.txt``: one line per
option that ``llama-server`` accepts (``LLAMA_EXAMPLE_SERVER`` or ``LLAMA_EXAMPLE_COMMON``, not excluded for the
server), with its spellings, negative spellings, the kind of its handler (``void``, ``bool`` with negatives,
``string``, ``int``, ``str_str``: two values), its ``LLAMA_ARG_*`` variable and, for the options whose values the
parser enumerates (``CHECKED_VALUES``), the words it accepts; and, in the header, how the build reads a variable
(:func:`env_rules`): the values that apply a switch's variable, the words a boolean's variable takes, and whether a
boolean's ``LLAMA_ARG_NO_*`` variable is read as its negative::

    pip download --no-deps --no-binary :all: llama-cpp-python==0.3.7 -d /tmp/lcpp
    tar -xzf /tmp/lcpp/llama_cpp_python-0.3.7.tar.gz --wildcards '*/vendor/llama.cpp/common/arg.cpp'
    python tools/gen_llamacpp_tables.py extract ARG_CPP --commit 794fe23f29fb... --build 4579 \
        --source "llama-cpp-python 0.3.7 sdist" --build-source "ggml-ci log: build: 4579 (794fe23f)"

``build`` turns every ``options-*.txt`` into the JSON table (``tests/test_flags.py`` fails when it is stale)::

    python tools/gen_llamacpp_tables.py build

A build number is ``git rev-list --count HEAD`` of the commit; where no source gives it, the extraction records the
bracket between the neighbouring commits whose number is known (``--build 5764-8941``), and the checks treat the
table as lying somewhere in it.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tablejson

FORMAT = 3
HERE = Path(__file__).resolve().parent
EXTRACT = HERE / "llamacpp-extract"
OUT = HERE.parent / "src/relialint/data/llamacpp_flags.json"
BUILDS_TSV = HERE / "llamacpp-builds.tsv"
# Options whose accepted values the table records (the parser rejects anything else).
CHECKED_VALUES = {"--split-mode", "--cache-type-k", "--cache-type-v", "--flash-attn", "--gpu-layers"}
# The llama.cpp release scheme (``v0.3.0``): what is known about where the releases lie in the build numbering.
RELEASES: dict[str, Any] = {
    "first_dev_build": 10335,
    "first_dev_source": ("ggml-org/llama.cpp PR #26839 (cmake: introduce semantic versioning, 2026-08-10): the "
                         "version string of a development build was 0.1.0-dev-b10335"),
    "dev_source": ("a table's dev is the version its CMakeLists.txt sets (LLAMA_VERSION_MAJOR/MINOR/PATCH; master "
                   "builds add -dev, a release tag vX.Y.Z is built without it): master says X.Y.Z from the commit "
                   "that bumps the version to X.Y.Z (ggml-org/llama.cpp PR #27498 bumped it to 0.2.0) until the next "
                   "bump, so a release older than X.Y.Z predates the table and one at or above X.Y.Z is placed at "
                   "or after the last table with an older version and before the first with its version or newer"),
}

# -- extraction from common/arg.cpp ---------------------------------------------------------------------------------


def _skip_string(text: str, i: int) -> int:
    """``i`` at an opening quote (or the R of a raw string); returns the index after the literal."""
    if text[i] == "R" and text[i + 1] == '"':
        close = text.index("(", i)
        delim = text[i + 2:close]
        return text.index(")" + delim + '"', close) + len(delim) + 2
    quote = text[i]
    i += 1
    while text[i] != quote:
        i += 2 if text[i] == "\\" else 1
    return i + 1


def _close(text: str, i: int) -> int:
    """``i`` just after an opening bracket; returns the index of its matching close."""
    depth = 1
    while depth:
        c = text[i]
        if c in "\"'" or (c == "R" and text[i + 1] == '"' and not (text[i - 1].isalnum() or text[i - 1] == "_")):
            i = _skip_string(text, i)
            continue
        if text.startswith("//", i):
            i = text.index("\n", i)
            continue
        if text.startswith("/*", i):
            i = text.index("*/", i) + 2
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        i += 1
    return i - 1


def _split(args: str) -> list[str]:
    """Top-level comma split of a C++ argument list."""
    parts: list[str] = []
    depth = 0
    start = i = 0
    while i < len(args):
        c = args[i]
        if c in "\"'" or (c == "R" and i + 1 < len(args) and args[i + 1] == '"'):
            i = _skip_string(args, i)
            continue
        if args.startswith("//", i):
            end = args.find("\n", i)
            args = args[:i] + args[end if end >= 0 else len(args):]
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(args[start:i].strip())
            start = i + 1
        i += 1
    parts.append(args[start:].strip())
    return parts


def _strings(text: str) -> list[str]:
    return re.findall(r'"((?:[^"\\]|\\.)*)"', text)


def _kind(lambda_text: str) -> str:
    head = lambda_text[:lambda_text.index(")") + 1]
    params = _split(head[head.index("(") + 1:-1])
    if len(params) == 1:
        return "void"
    if len(params) == 3:
        return "str_str"
    second = params[1]
    if "std::string" in second:
        return "string"
    if re.search(r"\bint\b", second):
        return "int"
    if re.search(r"\bbool\b", second):
        return "bool"
    raise ValueError(f"unknown handler signature: {head}")


def _helper_words(text: str) -> dict[str, list[str]]:
    """The words of ``is_truthy`` / ``is_falsey`` / ``is_autoy`` as this build defines them."""
    words: dict[str, list[str]] = {}
    for name in ("is_truthy", "is_falsey", "is_autoy"):
        match = re.search(r"bool\s+(?:common_arg_utils::)?" + name + r"\s*\([^)]*\)\s*\{([^}]*)\}", text)
        if match:
            words[name] = _strings(match.group(1))
    return words


def _kv_types(text: str) -> list[str]:
    match = re.search(r"kv_cache_types\s*=\s*\{([^}]*)\}", text)
    if not match:
        return []
    return [name.lower() for name in re.findall(r"GGML_TYPE_(\w+)", match.group(1))]


def _values(body: str, kind: str, helpers: dict[str, list[str]], kv_types: list[str]) -> tuple[list[str], bool]:
    """The words a handler accepts and whether it also takes an integer (``std::stoi`` on what is left)."""
    words: list[str] = []
    for name, helper_words in helpers.items():
        if name + "(" in body:
            words += helper_words
    if "kv_cache_type_from_str" in body:
        words += kv_types
    words += re.findall(r'==\s*"([^"]*)"', body)
    integer = kind == "int" or "std::stoi" in body
    return list(dict.fromkeys(words)), integer


def env_rules(text: str) -> dict[str, str]:
    """How this build's parser reads an option's variable (``common_params_parse_ex``, the loop after "handle
    environment variables", and ``common_arg::get_value_from_env``), as header lines of the extraction:

    - ``env_switch``: the values for which a switch (a ``void`` handler) is applied; any other value is ignored
      (``value == "1" || value == "true"`` in the early builds, ``is_truthy(value)`` later);
    - ``env_bool``: the words a boolean's variable takes (``parse_bool_value``: anything else throws), ``-`` where
      the loop has no boolean handler;
    - ``env_negative``: ``LLAMA_ARG_NO_`` where a boolean's variable with ``LLAMA_ARG_`` replaced by that prefix is
      read first and means false whatever its value, ``-`` where not."""
    start = text.index("handle environment variables")
    block = text[start:text.index("handle command line arguments", start)]
    helpers = _helper_words(text)
    switch = re.search(r"opt\.handler_void\s*&&\s*\(?(.*?)\)\s*\{", block, re.S)
    if switch is None:
        raise ValueError("no switch handler in the environment loop")
    words = helpers.get("is_truthy", []) if "is_truthy(" in switch.group(1) else _strings(switch.group(1))
    boolean = "parse_bool_value(" in block
    negative = re.search(r'string_replace_all\(\s*neg_env\s*,\s*"LLAMA_ARG_"\s*,\s*"(LLAMA_ARG_NO_)"', text)
    return {"env_switch": " ".join(words),
            "env_bool": " ".join(helpers.get("is_truthy", []) + helpers.get("is_falsey", [])) if boolean else "-",
            "env_negative": negative.group(1) if negative else "-"}


def extract(text: str) -> list[dict[str, Any]]:
    start = text.index("common_params_context common_params_parser_init")
    helpers = _helper_words(text)
    kv_types = _kv_types(text)
    options: dict[tuple[str, ...], dict[str, Any]] = {}
    for match in re.finditer(r"add_opt\s*\(\s*common_arg\s*\(", text[start:]):
        open_at = start + match.end()
        close = _close(text, open_at)
        outer_close = _close(text, text.index("(", start + match.start()) + 1)
        chain = text[close + 1:outer_close]
        parts = _split(text[open_at:close])
        spellings = _strings(parts[0])
        negatives = _strings(parts[1]) if parts[1].startswith("{") else []
        lam = parts[-1]
        kind = _kind(lam)
        examples = re.search(r"set_examples\s*\(\s*\{([^}]*)\}", chain)
        excludes = re.search(r"set_excludes\s*\(\s*\{([^}]*)\}", chain)
        in_server = examples is None or bool(re.search(r"LLAMA_EXAMPLE_(SERVER|COMMON)\b", examples.group(1)))
        if excludes and re.search(r"LLAMA_EXAMPLE_SERVER\b", excludes.group(1)):
            in_server = False
        if not in_server:
            continue
        env = re.search(r'set_env\s*\(\s*"([^"]+)"', chain)
        entry: dict[str, Any] = {"spellings": spellings, "neg": negatives, "kind": kind,
                                 "env": env.group(1) if env else None}
        long = next((s for s in spellings if s.startswith("--")), spellings[0])
        if long in CHECKED_VALUES and kind != "void":
            entry["values"], entry["int"] = _values(lam, kind, helpers, kv_types)
        options[tuple(spellings)] = entry
    return list(options.values())


def render_extract(options: list[dict[str, Any]], header: dict[str, str]) -> str:
    lines = [f"# {key}: {value}" for key, value in header.items()]
    for opt in options:
        parts = [" ".join(opt["spellings"])]
        if opt["neg"]:
            parts.append("neg: " + " ".join(opt["neg"]))
        parts.append("kind: " + opt["kind"])
        parts.append("env: " + (opt["env"] or "-"))
        if "values" in opt:
            parts.append("values: " + " ".join(opt["values"]) + (" +int" if opt["int"] else ""))
        lines.append(" | ".join(parts))
    return "\n".join(lines) + "\n"


# -- the table ------------------------------------------------------------------------------------------------------

KINDS = {"void": "f", "bool": "f", "string": "v", "int": "v", "str_str": "2"}


def parse_extract(text: str) -> tuple[dict[str, str], list[dict[str, Any]]]:
    header: dict[str, str] = {}
    options: list[dict[str, Any]] = []
    for line in text.splitlines():
        if line.startswith("#"):
            key, _, value = line[1:].partition(":")
            header[key.strip()] = value.strip()
            continue
        if not line.strip():
            continue
        parts = [p.strip() for p in line.split("|")]
        opt: dict[str, Any] = {"spellings": parts[0].split(), "neg": []}
        for part in parts[1:]:
            key, _, value = part.partition(":")
            value = value.strip()
            if key == "neg":
                opt["neg"] = value.split()
            elif key == "kind":
                opt["kind"] = value
            elif key == "env":
                opt["env"] = None if value == "-" else value
            elif key == "values":
                words = value.split()
                opt["int"] = "+int" in words
                opt["values"] = [w for w in words if w != "+int"]
        options.append(opt)
    return header, options


def _build_range(text: str) -> list[int]:
    lo, _, hi = text.partition("-")
    return [int(lo), int(hi or lo)]


def _refined(header: dict[str, str], known: dict[str, Any]) -> tuple[str, list[int], str]:
    """A table's label, build and build source, narrowed by ``tools/llamacpp-builds.tsv`` (the build each
    llama-cpp-python sdist vendors, read from the sdists' own clones: ``tools/llamacpp_builds.py``) where its row
    for the table's sdist names the table's commit and lies within the header's bracket; a build known exactly is
    labelled ``b<N>``."""
    label, build, source = header["label"], _build_range(header["build"]), header["build_source"]
    found = re.match(r"llama-cpp-python (\S+) sdist", header["source"])
    row = known.get(found.group(1)) if found else None
    if row is None or not row.commit.startswith(header["commit"]) or [row.lo, row.hi] == build \
            or not build[0] <= row.lo <= row.hi <= build[1]:
        return label, build, source
    if row.lo == row.hi and label.startswith("@"):
        label = f"b{row.lo}"
    return label, [row.lo, row.hi], f"tools/llamacpp-builds.tsv: {row.source}"


def assemble(files: list[Path], builds_tsv: Path | None = BUILDS_TSV) -> dict[str, Any]:
    import llamacpp_builds

    known = {row.version: row for row in llamacpp_builds.parse(builds_tsv.read_text(encoding="utf-8"))} \
        if builds_tsv is not None and builds_tsv.exists() else {}
    builds: list[dict[str, Any]] = []
    tables: list[tuple[dict[str, str], list[dict[str, Any]]]] = []
    for path in files:
        header, options = parse_extract(path.read_text(encoding="utf-8"))
        tables.append((header, options))
    # llama-cpp-python's releases vendor ever newer commits of llama.cpp's master: their order is the builds' order
    tables.sort(key=lambda t: tuple(int(n) for n in re.findall(r"\d+", t[0]["source"].split()[1])))
    options_out: dict[str, list[list[Any]]] = {}
    env_out: dict[str, list[list[Any]]] = {}
    values_out: dict[str, list[list[Any]]] = {}
    for index, (header, options) in enumerate(tables):
        label, build, build_source = _refined(header, known)
        builds.append({"label": label, "build": build, "commit": header["commit"],
                       "source": header["source"], "build_source": build_source,
                       **({"dev": header["dev"]} if "dev" in header else {}),
                       "env_switch": header["env_switch"].split(),
                       "env_bool": [] if header["env_bool"] == "-" else header["env_bool"].split()})
        negative = None if header["env_negative"] == "-" else header["env_negative"]
        for opt in options:
            long = next((s for s in opt["spellings"] if s.startswith("--")), opt["spellings"][0])
            kind = KINDS[opt["kind"]]
            for spelling in opt["spellings"]:
                _add(options_out, spelling, index, [kind, None if spelling == long else long])
            for spelling in opt["neg"]:
                _add(options_out, spelling, index, ["n", long])
            if opt.get("env"):
                _add(env_out, opt["env"], index, [long, opt["kind"]])
                if negative and opt["neg"]:  # the LLAMA_ARG_NO_* form of a boolean: read first, always false
                    _add(env_out, opt["env"].replace("LLAMA_ARG_", negative, 1), index, [long, "neg"])
            if "values" in opt:
                _add(values_out, long, index, [opt["values"], opt["int"]])
    return {
        "format": FORMAT,
        "generator": "tools/gen_llamacpp_tables.py",
        "note": ("llama-server options of llama.cpp common/arg.cpp by build. builds: the tabled builds, oldest first "
                 "([first, last] build number: equal where known, the bracket where not); options: spelling -> "
                 "[[first index, last index, kind, canonical]] with kinds v value, 2 two values, f flag, n negative "
                 "flag; env: variable name -> [[first, last, option, handler]] with handlers void (a switch, "
                 "applied only for the build's env_switch values, any other value ignored), bool (env_bool words, "
                 "any other value stops the start-up), int (std::stoi), string, str_str, neg (a boolean's "
                 "LLAMA_ARG_NO_* form: any value sets it false); values: option -> [[first, last, accepted words, "
                 "also an integer]]"),
        "builds": builds,
        "releases": RELEASES,
        "options": dict(sorted(options_out.items())),
        "env": dict(sorted(env_out.items())),
        "values": dict(sorted(values_out.items())),
    }


def _add(table: dict[str, list[list[Any]]], key: str, index: int, payload: list[Any]) -> None:
    ranges = table.setdefault(key, [])
    if ranges and ranges[-1][1] == index - 1 and ranges[-1][2:] == payload:
        ranges[-1][1] = index
    elif not ranges or ranges[-1][1] != index:
        ranges.append([index, index, *payload])


def dumps(table: dict[str, Any]) -> str:
    """The committed serialisation (``tools/tablejson.py``)."""
    return tablejson.dumps(table, nested=("options", "env", "values"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n", 1)[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_extract = sub.add_parser("extract")
    p_extract.add_argument("arg_cpp", type=Path)
    p_extract.add_argument("--commit", required=True)
    p_extract.add_argument("--build", required=True, help="the build number, or lo-hi where only bracketed")
    p_extract.add_argument("--source", required=True)
    p_extract.add_argument("--build-source", required=True)
    p_extract.add_argument("--dev", help="the version its CMakeLists.txt sets (0.1.0 for 0.1.0-dev)")
    p_extract.add_argument("--label", help="file label (default: b<build> or @<commit[:9]>)")
    p_build = sub.add_parser("build")
    p_build.add_argument("--dir", type=Path, default=EXTRACT)
    p_build.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if args.command == "extract":
        label = args.label or (f"b{args.build}" if "-" not in args.build else f"@{args.commit[:9]}")
        text = args.arg_cpp.read_text(encoding="utf-8")
        options = extract(text)
        header = {"label": label, "commit": args.commit, "build": args.build, "source": args.source,
                  "build_source": args.build_source}
        if args.dev:
            header["dev"] = args.dev
        header.update(env_rules(text))
        (EXTRACT / f"options-{label.lstrip('@')}.txt").write_text(render_extract(options, header), encoding="utf-8")
        return 0
    files = sorted(args.dir.glob("options-*.txt"))
    tablejson.write(dumps(assemble(files)), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
