"""Output that echoes hostile input (issue 22, points 2 and 3): no line a GitHub Actions runner reads as a workflow
command, no raw control or bidirectional character reaches a terminal, and the escaping loses nothing.

The runner's rules are emulated as actions/runner writes them (``ActionCommand.TryParseV2`` / ``TryParse``): a line
(ended by LF, CR or CRLF, as .NET's ``ReadLine`` ends one) is a command when, after leading white space, it starts
with ``::NAME`` of a registered command and has a second ``::``; or when ``##[NAME`` of one appears anywhere in it.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relialint.base.printable import field, json_text, lines
from tests.cli_run import invoke

REGISTERED = {"error", "warning", "notice", "debug", "group", "endgroup", "add-mask", "stop-commands", "echo",
              "set-output", "set-env", "save-state", "add-path", "add-matcher", "remove-matcher"}


def runner_lines(output: str) -> list[str]:
    return re.split(r"\r\n|\r|\n", output)


def _unescape(text: str, pairs: tuple[tuple[str, str], ...]) -> str:
    for escaped, char in pairs:
        text = text.replace(escaped, char)
    return text


def v2_command(line: str) -> tuple[str, dict[str, str], str] | None:
    """``::name k=v,k=v::data`` as the runner parses it (``None``: not a command)."""
    message = line.lstrip()
    if not message.startswith("::"):
        return None
    end = message.find("::", 2)
    if end < 0:
        return None
    info = message[2:end]
    space = info.find(" ")
    name = info if space < 0 else info[:space]
    if name.lower() not in REGISTERED:
        return None
    properties: dict[str, str] = {}
    if space > 0:
        for pair in info[space + 1:].strip().split(","):
            key, _, value = pair.partition("=")
            if key and value:
                properties[key] = _unescape(value, (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","),
                                                    ("%25", "%")))
    return name, properties, _unescape(message[end + 2:], (("%0D", "\r"), ("%0A", "\n"), ("%25", "%")))


def v1_command(line: str) -> str | None:
    start = line.find("##[")
    if start < 0:
        return None
    close = line.find("]", start)
    if close < 0:
        return None
    name = line[start + 3:close].split(" ")[0]
    return name if name.lower() in REGISTERED else None


def commands(output: str) -> list[str]:
    """Every line of ``output`` a runner would act on."""
    return [line for line in runner_lines(output) if v2_command(line) is not None or v1_command(line) is not None]


def decode(text: str) -> str:
    """The inverse of ``field`` (and of the escapes ``lines`` adds): the escaping is reversible."""
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        following = text[i + 1] if i + 1 < len(text) else ""
        if char == "\\" and following == "\\":
            out.append("\\")
            i += 2
        elif char == "\\" and following in ("n", "r", "t"):
            out.append({"n": "\n", "r": "\r", "t": "\t"}[following])
            i += 2
        elif char == "\\" and following == "x" and re.fullmatch("[0-9a-f]{2}", text[i + 2:i + 4]):
            value = int(text[i + 2:i + 4], 16)
            out.append(chr(value) if value < 0x80 else chr(0xDC00 + value))
            i += 4
        elif char == "\\" and following == "u" and re.fullmatch("[0-9a-f]{4}", text[i + 2:i + 6]):
            out.append(chr(int(text[i + 2:i + 6], 16)))
            i += 6
        else:
            out.append(char)
            i += 1
    return "".join(out)


UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
HOSTILE = st.text(alphabet=st.one_of(
    st.sampled_from(["\\", "x", "u", "n", "r", "t", "1", "b", ":", "#", "[", "]", "\n", "\r", "\t", "\x1b", "\x07",
                     "\x7f", "\x85", "\x9b", "\u202e", "\u2066", "\u2028", "\udc80", "\udcff", "\ud800", " ",
                     "\u00a0", "%", ","]),
    st.characters(exclude_categories=())), max_size=40)


# -- the sanitising layer -------------------------------------------------------------------------------------------


@settings(max_examples=400)
@given(HOSTILE)
def test_field_escapes_every_unsafe_character_and_is_reversible(text: str) -> None:
    out = field(text)
    assert UNSAFE.search(out) is None
    assert decode(out) == text


@settings(max_examples=400)
@given(HOSTILE, HOSTILE)
def test_lines_leaves_no_workflow_command_and_keeps_what_field_escaped(first: str, second: str) -> None:
    line = f"{field(first)}{field(second)}: {field(second)}"
    out = lines(line)
    assert commands(out) == []
    assert "\n" not in out and UNSAFE.search(out) is None
    assert decode(out) == f"{first}{second}: {second}"


@settings(max_examples=400)
@given(HOSTILE)
def test_lines_is_the_safety_net_for_raw_text(text: str) -> None:
    out = lines(text)
    assert commands(out) == []
    assert UNSAFE.search(out.replace("\n", "")) is None
    assert lines(out) == out


@settings(max_examples=300)
@given(HOSTILE)
def test_json_text_keeps_the_data_exact(text: str) -> None:
    if re.search("[\ud800-\udfff]", text):
        text = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")  # JSON output writes them as U+FFFD
    out = json_text(json.dumps({"path": text, "message": text}, indent=2, ensure_ascii=False))
    assert json.loads(out) == {"path": text, "message": text}
    assert commands(out) == []
    assert re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]",
                     out) is None


def test_examples_of_each_escape() -> None:
    assert field("a\nb\rc\td\x1b]52;c;aGk=\x07\x7f\x9b\u202eZ\udc80") == \
        "a\\nb\\rc\\td\\x1b]52;c;aGk=\\x07\\x7f\\u009b\\u202eZ\\x80"
    assert field("C:\\new \\ ok\\") == "C:\\\\new \\ ok\\\\"
    assert lines("::error file=x::y\n  ::warning::z\nkeep ##[error]w ##[") == \
        "\\x3a:error file=x::y\n  \\x3a:warning::z\nkeep #\\x23[error]w #\\x23["
    assert lines("\x1b[1mbold\x1b[0m \x1b]52;c;aGk=\x07 \x1b[2J", color=True) == \
        "\x1b[1mbold\x1b[0m \\x1b]52;c;aGk=\\x07 \\x1b[2J"
    assert lines("\x1b[1mbold\x1b[0m") == "\\x1b[1mbold\\x1b[0m"


# -- check, text and github, on hostile file names, contents and reasons --------------------------------------------

ROOT_COMMAND = "::error file=x,line=1::pwned.sh"
IN_NAME = "b##[warning]y.sh"
NEWLINE = "n\n::error::l.sh"
TERMINAL = "esc\x1b]52;c;aGk=\x07\x1b[2J\rX\u202e.sh"


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository whose file names, contents and ignore reasons hold workflow commands and terminal escapes."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ROOT_COMMAND).write_text("vllm serve m --##[error]X\n")
    (tmp_path / IN_NAME).write_text("vllm serve m \\\n  --foo 1  # relialint: ignore[RL507] ##[error]bad "
                                    "\x1b]52;c;SGVsbG8=\x07 reason\n")
    (tmp_path / NEWLINE).write_text("vllm serve m --bar\n")
    (tmp_path / TERMINAL).write_text("vllm serve m --baz\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _check(*args: str) -> str:
    # a pinned version: an option no release has is definite there (with the version unknown, a release beyond the
    # tables could have it), so the run fails and every format reports
    result = invoke([".", "--select", "RL507", "--show-ignored", "--engine-version", "0.30.0", *args])
    assert result.exception is None and result.exit_code == 1, result.output
    return result.stdout


def test_text_output_of_hostile_names_contents_and_reasons(hostile: Path) -> None:
    out = _check()
    assert commands(out) == []
    assert UNSAFE.search(out.replace("\n", "")) is None
    rest = "is not an option of vLLM 0.30.0 (no close option): vLLM refuses to start (\"unrecognized arguments\")"
    first = [line for line in out.splitlines() if not line.startswith("  ")]
    assert first == [
        f"\\x3a:error file=x,line=1::pwned.sh:1:14: RL507 [major] `--#\\x23[error]X` {rest}",
        f"esc\\x1b]52;c;aGk=\\x07\\x1b[2J\\rX\\u202e.sh:1:14: RL507 [major] `--baz` {rest}",
        f"n\\n::error::l.sh:1:14: RL507 [major] `--bar` {rest}",
        "b#\\x23[warning]y.sh:2:3: RL507 [major] suppressed by inline (b#\\x23[warning]y.sh:2): #\\x23[error]bad "
        "\\x1b]52;c;SGVsbG8=\\x07 reason",
        "4 files, 4 deployments: 3 definite, 0 possible, 0 errors, 1 suppressed",
    ]
    assert [decode(line.split(":1:14:")[0]) for line in first[:3]] == [ROOT_COMMAND, TERMINAL, NEWLINE]


def test_github_output_of_hostile_names_contents_and_reasons(hostile: Path) -> None:
    out = _check("--format", "github")
    parsed = [v2_command(line) for line in runner_lines(out)]
    annotations = [p for p in parsed if p is not None]
    # the runner reads exactly relialint's three annotations, each on the right file (CR and LF exact, other
    # controls visible), and nothing else
    assert [(name, props["file"]) for name, props, _ in annotations] == [
        ("warning", ROOT_COMMAND), ("warning", "esc\\x1b]52;c;aGk=\\x07\\x1b[2J\rX\\u202e.sh"), ("warning", NEWLINE)]
    assert annotations[0][2].startswith("`--#\\x23[error]X` is not an option")
    others = [line for line, p in zip(runner_lines(out), parsed, strict=True) if p is None and line]
    assert commands("\n".join(others)) == []
    assert others == ["b#\\x23[warning]y.sh:2:3: RL507 suppressed by inline (b#\\x23[warning]y.sh:2): "
                      "#\\x23[error]bad \\x1b]52;c;SGVsbG8=\\x07 reason",
                      "relialint: 4 files, 3 definite, 0 possible, 0 errors, 1 suppressed"]
    assert "\x1b" not in out and "\u202e" not in out


def test_json_and_sarif_keep_exact_names_and_nothing_a_runner_reads(hostile: Path) -> None:
    for fmt in ("json", "sarif"):
        out = _check("--format", fmt)
        assert commands(out) == []
        assert "\u202e" not in out and "##[" not in out
    doc = json.loads(_check("--format", "json"))
    assert sorted(f["path"] for f in doc["findings"]) == sorted([ROOT_COMMAND, TERMINAL, NEWLINE])
    assert doc["suppressed"][0]["reason"] == "##[error]bad \x1b]52;c;SGVsbG8=\x07 reason"


def test_a_hostile_name_given_on_the_command_line_and_in_errors(tmp_path: Path) -> None:
    folder = tmp_path / "x\x1b]52;c;aGk=\x07##[error]"
    folder.mkdir()
    (folder / "bad.yaml").write_text("services: [\n")
    result = invoke([str(folder / "bad.yaml"), str(folder / "missing\r::error::x.sh")])
    assert result.exit_code == 2
    assert commands(result.output) == [] and "\x1b" not in result.output and "\r" not in result.output
    shown = field(str(folder)).replace("##[", "#\\x23[")
    assert f"{shown}/missing\\r::error::x.sh:1:1: error: no such file or folder" in result.stdout.splitlines()


# -- the other commands -----------------------------------------------------------------------------------------------


def test_unknown_configuration_key_with_terminal_escapes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "serve.sh").write_text("vllm serve m\n")
    (tmp_path / ".relialint.toml").write_text('"evil\\u001b]52;c;aGk=\\u0007\\u001b[2J##[error]" = 1\n')
    monkeypatch.chdir(tmp_path)
    result = invoke(["serve.sh"])
    assert (result.exit_code, result.stderr) == (2, ".relialint.toml:1:1: error: invalid configuration: "
                                                    "evil\\x1b]52;c;aGk=\\x07\\x1b[2J#\\x23[error]: unknown setting\n")


def test_baseline_code_with_terminal_escapes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "serve.sh").write_text("vllm serve m --foo\n")
    (tmp_path / "baseline.json").write_text(json.dumps({"version": 1, "entries": [
        {"code": "RL507\x1b]52;c;aGk=\x07\x1b[2J", "path": "serve.sh", "about": "x", "count": 1}]}))
    monkeypatch.chdir(tmp_path)
    result = invoke(["serve.sh", "--select", "RL0,RL507", "--baseline", "baseline.json", "--engine-version", "0.30.0"])
    assert result.exit_code == 1
    assert "baseline.json:1:1: RL004 [minor] baseline entry RL507\\x1b]52;c;aGk=\\x07\\x1b[2J in serve.sh (x): 1 of " \
           "1 finding no longer found; rewrite the baseline with --write-baseline so that it only shrinks" \
           in result.stdout.splitlines()
    assert "\x1b" not in result.output


def test_facts_text_and_json_escape_what_they_echo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name = "s\x1b[2J##[error].sh"
    (tmp_path / name).write_text("vllm serve 'm\x1b]52;c;aGk=\x07::x' --served-model-name '\u202eevil'\n")
    monkeypatch.chdir(tmp_path)
    text = invoke(["facts", name])
    assert text.exit_code == 0 and commands(text.output) == [] and UNSAFE.search(text.stdout.replace("\n", "")) is None
    assert text.stdout.splitlines()[0] == "s\\x1b[2J#\\x23[error].sh:1: vllm (shell)"
    value, where = "m\\x1b]52;c;aGk=\\x07::x", "s\\x1b[2J#\\x23[error].sh:1:12"
    assert f"  {'model.name':<34} {value:<28} {'flag':<12} {where}" in text.stdout.splitlines()
    served = "\\u202eevil"
    assert f"  {'flag.vllm.served-model-name':<34} {served:<28} {'flag':<12} {where[:-2]}31" in text.stdout.splitlines()
    raw = invoke(["facts", name, "--format", "json"])
    assert commands(raw.stdout) == [] and "\u202e" not in raw.stdout
    doc = json.loads(raw.stdout)
    assert doc["deployments"][0]["path"] == name
    assert doc["deployments"][0]["facts"]["model.name"]["value"] == "m\x1b]52;c;aGk=\x07::x"


def test_validate_escapes_record_paths_and_messages(tmp_path: Path) -> None:
    folder = tmp_path / "records"
    folder.mkdir()
    (folder / "RL900-\x1b]52;c;aGk=\x07##[error].yaml").write_text("id: [\n")
    result = invoke(["validate", str(folder)])
    assert result.exit_code == 2
    assert commands(result.output) == [] and "\x1b" not in result.output
    assert any(line.startswith(f"{folder}/RL900-\\x1b]52;c;aGk=\\x07#\\x23[error].yaml:")
               for line in result.stdout.splitlines())


def test_usage_errors_escape_the_arguments_they_quote(tmp_path: Path) -> None:
    result = invoke(["check", str(tmp_path), "--bogus\x1b]52;c;aGk=\x07"])
    assert result.exit_code == 2
    assert "\x1b" not in result.output and commands(result.output) == []
    assert result.stderr.splitlines()[-1] == "relialint: error: unrecognized arguments: --bogus\\x1b]52;c;aGk=\\x07"
