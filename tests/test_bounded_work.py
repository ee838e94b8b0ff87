"""Hostile input, round two (issue 22, "Bounded work"): each crafted input is read in work linear in its size and
ends with a located message, never an internal error.

Work is counted, never timed on the clock: the words or spans a reader makes, the bytes an edit copies, and CPU
seconds of this process with a margin of 10 to 1,000 times over what the input takes (each input takes minutes
when the protection is removed, and well under a second with it). ``bench/bench_hostile.py`` shows the slopes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relialint.base import bounds
from relialint.readers.located import FileResult
from relialint.readers.opener import MemoryOpener
from tests.cli_run import invoke
from tests.work import cpu


def located(result: FileResult) -> list[tuple[int, int, str]]:
    return [(e.line, e.column, e.message) for e in result.errors]


# -- env files ------------------------------------------------------------------------------------------------------


def test_an_unterminated_quote_over_100000_lines_is_read_once() -> None:
    from relialint.readers import envfile

    text = 'A="\n' + "x\n" * 100_000 + 'B=1\n'
    # about 0.1 s; quadratic (each line appended to a copy of the value), over 10 s
    result = cpu(2, lambda: envfile.read(text, ".env", MemoryOpener({})))
    assert located(result) == [(1, 3, "unterminated quote")]
    (var,) = result.commands[0].env
    assert (var.name, var.value, var.span.end_line) == ("A", "\n" + "x\n" * 100_000 + "B=1\n", 100_003)


def test_a_value_with_100000_spaces_is_read_once() -> None:
    from relialint.readers import envfile

    text = "A=x" + " " * 100_000 + "y  \nB=2\n"
    # milliseconds; a lazy value before trailing blanks backtracks over every blank: minutes
    result = cpu(2, lambda: envfile.read(text, ".env", MemoryOpener({})))
    assert [(v.name, v.value) for v in result.commands[0].env] == [("A", "x" + " " * 100_000 + "y"), ("B", "2")]


@pytest.mark.parametrize(("text", "values", "ends"), [
    ('A="one\\"\ntwo"\nB=2\n', [("A", 'one"\ntwo'), ("B", "2")], [2, 3]),
    ('A="one\\\\"\nB=2\n', [("A", "one\\"), ("B", "2")], [1, 2]),  # an escaped backslash: the quote closes
    ("A='it''s\nB=2\n", [("A", "it"), ("B", "2")], [1, 2]),
    ('A="x\\\n"\nB=2\n', [("A", "x\\\n"), ("B", "2")], [2, 3]),  # a backslash at the line end escapes the break
    ("A='\r\nx\r\n'\r\n", [("A", "\nx\n")], [3]),
])
def test_quoted_values_over_lines(text: str, values: list[tuple[str, str]], ends: list[int]) -> None:
    from relialint.readers import envfile

    env, errors = envfile.parse(text, ".env")
    assert ([(v.name, v.value) for v in env], [v.span.end_line for v in env], errors) == (values, ends, [])


# -- commands of many words -----------------------------------------------------------------------------------------


def test_a_systemd_exec_start_continued_to_the_end_of_the_file_reads_10000_words(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from relialint.readers import systemd, yamlwords

    spans = 0
    real = yamlwords.Src.sub_span

    def counted(self: yamlwords.Src, *args: Any) -> Any:
        nonlocal spans
        spans += 1
        return real(self, *args)

    monkeypatch.setattr(yamlwords.Src, "sub_span", counted)
    text = "[Service]\nExecStart=/usr/bin/vllm serve m \\\n" + "  --x y \\\n" * 200_000
    # about 0.5 s; 18 s and 366 MB without the bound
    result = cpu(10, lambda: systemd.read(text, "vllm.service", MemoryOpener({})))
    (command,) = result.commands
    assert len(command.argv) == bounds.MAX_WORDS + 1
    assert command.argv[-1].text is None and command.argv[-1].splice
    assert (command.argv[-1].span.line, command.argv[-1].span.column) == (5001, 7)
    assert located(result) == [(5001, 7, "a command of more than 10000 words; the rest of it is not read")]
    assert spans <= bounds.MAX_WORDS + 1  # one span per word read: 400,003 without the bound


def test_every_reader_keeps_a_command_to_10000_words(tmp_path: Path) -> None:
    items = ["--x", "y"] * 6_000
    compose = tmp_path / "compose.yaml"
    line = f'    command: ["m", {", ".join(items)}]'
    compose.write_text(f"services:\n  llm:\n    image: vllm/vllm-openai:v0.30.0\n{line}\n")
    result = invoke([str(compose), "--format", "json", "--select", "RL303", "--gpu", "A100"])
    doc = json.loads(result.output)
    column = len('    command: ["m", ' + ", ".join(items[:9_999]) + ", ") + 1  # the 10,001st word
    assert [(w["line"], w["column"], w["message"]) for w in doc["warnings"]] == [
        (4, column, "a command of more than 10000 words; the rest of it is not read")]
    assert (result.exit_code, doc["errors"]) == (0, [])


# -- probe ----------------------------------------------------------------------------------------------------------

HUGE = "9" * 400
CSV_HEADER = "index, name, uuid, temperature.gpu, power.draw [W], power.limit [W], clocks_event_reasons.active, " \
             "utilization.gpu [%]\n"


def _csv_row(index: int, temperature: str = "57", power: str = "692.53 W") -> str:
    return f"{index}, NVIDIA H200, GPU-{index:08d}, {temperature}, {power}, 700.00 W, 0x0000000000000004, 99 %\n"


def _xml(gpus: int, temperature: str = "57 C", power: str = "692.53 W") -> str:
    body = "".join(
        f'<gpu id="{i:08X}:00:06.0"><product_name>NVIDIA H200</product_name><uuid>GPU-{i:08d}</uuid>'
        f"<temperature><gpu_temp>{temperature}</gpu_temp></temperature>"
        f"<gpu_power_readings><average_power_draw>{power}</average_power_draw>"
        "<current_power_limit>700.00 W</current_power_limit></gpu_power_readings>"
        "<utilization><gpu_util>99 %</gpu_util></utilization></gpu>\n" for i in range(gpus))
    return f'<?xml version="1.0" ?>\n<nvidia_smi_log>\n<driver_version>580.159.04</driver_version>\n{body}' \
           "</nvidia_smi_log>\n"


def _amd_json(gpus: int, value: str = "640") -> str:
    return "[\n" + ",\n".join(
        f'  {{"gpu": {i},\n   "power": {{"socket_power": {{"value": {value}, "unit": "W"}}}},\n'
        f'   "clock": {{"gfx_0": {{"clk": {{"value": 1650, "unit": "MHz"}}}}}},\n'
        f'   "temperature": {{"hotspot": {{"value": {value}, "unit": "C"}}}}}}' for i in range(gpus)) + "\n]\n"


@pytest.mark.parametrize(("name", "text"), [
    ("q.csv", CSV_HEADER + _csv_row(0, HUGE, f"{HUGE} W")),
    ("q.xml", _xml(1, f"{HUGE} C", f"{HUGE} W")),
    ("metric.json", _amd_json(1, HUGE)),
    ("metric.csv", f"gpu,socket_power,hotspot,gfx_0_clk\n0,{HUGE},{HUGE},1650\n"),
])
def test_a_400_digit_value_in_a_capture_is_unknown(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    result = invoke(["probe", "--from-nvidia-smi", str(path), "--format", "json"])
    assert (result.exception, result.exit_code in (0, 1), json.loads(result.stdout)["errors"]) == (None, True, [])
    from relialint.run.probing import ProbeOptions, probe

    host, _ = probe(ProbeOptions(files=[path]))
    assert host.facts.get("gpu.count").value == 1  # type: ignore[union-attr]
    assert host.facts.get("runtime.temperature_c") is None and host.facts.get("runtime.power_draw_w") is None


def test_probe_writes_only_what_check_reads(tmp_path: Path) -> None:
    capture = tmp_path / "q.csv"
    capture.write_text(CSV_HEADER + _csv_row(0, power=f"{HUGE} W"))
    written = tmp_path / "facts.json"
    assert invoke(["probe", "--from-nvidia-smi", str(capture), "--write-facts", str(written)]).exit_code in (0, 1)
    assert "inf" not in written.read_text()
    script = tmp_path / "serve.sh"
    script.write_text("vllm serve m\n")
    result = invoke(["check", str(script), "--facts", str(written)])
    assert result.exit_code in (0, 1), result.output


def test_a_facts_file_never_holds_a_number_that_is_not_finite() -> None:
    from relialint.core.facts import Fact, FactSet
    from relialint.probe.factsfile import render

    facts = FactSet({"runtime.power_draw_w": Fact(float("inf"), "probe"), "gpu.count": Fact(2, "probe")})
    assert json.loads(render(facts, ".json", []))["facts"] == {"gpu.count": 2}
    assert render(facts, ".toml", []).splitlines()[-1] == '"gpu.count" = 2'


@pytest.mark.parametrize(("name", "capture"), [
    ("q.csv", CSV_HEADER + "".join(_csv_row(i) for i in range(20_000))),
    ("q.xml", '<?xml version="1.0" ?>\n<nvidia_smi_log>\n' + "".join(
        f'<gpu id="{i}"><uuid>GPU-{i:08d}</uuid><utilization><gpu_util>99 %</gpu_util></utilization></gpu>\n'
        for i in range(20_000)) + "</nvidia_smi_log>\n"),
    ("metric.json", _amd_json(20_000)),
])
def test_probe_time_is_linear_in_the_gpus(tmp_path: Path, name: str, capture: str) -> None:
    from relialint.run.probing import ProbeOptions, probe

    path = tmp_path / name
    path.write_text(capture)
    # a few seconds; comparing every GPU with every sample: 4e8 steps, over a minute
    (host, run) = cpu(30, lambda: probe(ProbeOptions(files=[path])))
    assert (run.errors, len(host.gpus)) == ([], capture.count("GPU-") or 20_000)


@pytest.mark.parametrize(("args", "message"), [
    (["--duration", "inf"], "Invalid value for '--duration': 'inf' is not a finite number."),
    (["--duration", "1", "--interval", "nan"], "Invalid value for '--interval': 'nan' is not a finite number."),
])
def test_probe_durations_are_finite(args: list[str], message: str) -> None:
    result = invoke(["probe", *args])
    assert (result.exit_code, result.stderr.splitlines()[-1]) == (2, f"relialint: error: {message}")


# -- facts files ----------------------------------------------------------------------------------------------------


def test_30000_keys_of_a_facts_file_are_located_in_one_pass() -> None:
    from relialint.probe import factsfile

    text = json.dumps({"facts": {f"key.{i}": i for i in range(30_000)}}, indent=1)
    # a fraction of a second; each key searched for from the top: over a minute
    read = cpu(5, lambda: factsfile.read_text_as(text, "facts.json", ".json"))
    assert [(e.key, e.line, e.column) for e in read.entries[::10_000]] == [
        ("key.0", 3, 3), ("key.10000", 10_003, 3), ("key.20000", 20_003, 3)]


@pytest.mark.parametrize(("name", "text", "error"), [
    ("big.toml", '[facts]\n"gpu.count" = ' + "1" * 5000 + "\n",
     "big.toml:2:15: integer of more than 4300 digits; not read"),
    ("big.json", '{"facts": {"gpu.count": ' + "1" * 5000 + "}}",
     "big.json:1:25: integer of more than 4300 digits; not read"),
])
def test_a_5000_digit_integer_in_a_facts_file_is_located(tmp_path: Path, name: str, text: str, error: str) -> None:
    (tmp_path / name).write_text(text)
    (tmp_path / "serve.sh").write_text("vllm serve m\n")
    result = invoke(["check", str(tmp_path / "serve.sh"), "--facts", str(tmp_path / name)])
    assert (result.exit_code, result.stderr.splitlines()[-1]) == (2, f"relialint: error: {tmp_path}/{error}")


def test_a_configured_facts_file_that_fails_is_one_error_and_the_files_are_linted(tmp_path: Path) -> None:
    (tmp_path / ".relialint.toml").write_text('gpu = "A100"\nfacts = "facts.json"\n')
    (tmp_path / "facts.json").write_text('{"facts": {"gpu.count": "two"}}\n')
    for name in ("a.sh", "b.sh", "c.sh"):
        (tmp_path / name).write_text("vllm serve m --max-model-length 4096\n")
    result = invoke([str(tmp_path), "--format", "json", "--select", "RL507"])
    doc = json.loads(result.output)
    assert result.exit_code == 2
    assert [(Path(e["path"]).name, e["line"], e["column"], e["message"]) for e in doc["errors"]] == [
        ("facts.json", 1, 12, "gpu.count takes an integer, not 'two' (a facts file the configuration names; its "
                              "facts are not used)")]
    # an option no tabled release has: possible with the version unknown (a release beyond the tables may have it)
    assert [(f["code"], f["certainty"], Path(f["path"]).name) for f in doc["findings"]] == [
        ("RL507", "possible", "a.sh"), ("RL507", "possible", "b.sh"), ("RL507", "possible", "c.sh")]


# -- configuration globs --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("pattern", "path"), [
    ("**/" * 30 + "x", "a/" * 2000 + "y"),
    ("*a" * 30 + "b", "a" * 4000),
    ("deploy/" + "*?" * 20 + "!", "deploy/" + "x" * 4000),
    ("**" + "/**" * 25 + "/*.sh", "d/" * 1500 + "serve.py"),
])
def test_globs_match_in_linear_time(pattern: str, path: str) -> None:
    from relialint.run.config import glob_match

    # a fraction of a second; a backtracking regular expression: exponential in the stars
    hit = cpu(5, lambda: glob_match(pattern, path))
    assert hit is False


def _reference(pattern: str, rel: str) -> bool:
    """The globs' meaning as a backtracking regular expression: exact, and fast enough on short inputs."""
    pattern = pattern.strip().removeprefix("./")
    anchored = "/" in pattern.rstrip("/")
    if pattern.endswith("/"):
        pattern += "**"
    parts = re.split(r"(\*\*/|\*\*|\*|\?)", pattern)
    table = {"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}
    body = "".join(table.get(p, re.escape(p)) for p in parts)
    regex = re.compile(body if anchored else f"(?:.*/)?{body}")
    names = rel.split("/")
    return any(regex.fullmatch("/".join(names[:n])) for n in range(1, len(names) + 1))


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="ab/*?.", max_size=8), st.text(alphabet="ab/.", max_size=10))
def test_globs_mean_what_they_meant(pattern: str, rel: str) -> None:
    from relialint.run.config import glob_match

    assert glob_match(pattern, rel) is _reference(pattern, rel)


def test_a_hostile_exclude_pattern_in_a_configuration(tmp_path: Path) -> None:
    (tmp_path / ".relialint.toml").write_text('gpu = "A100"\nexclude = ["' + "**/" * 30 + 'skip.sh"]\n'
                                              '[[overrides]]\npaths = ["' + "*a" * 30 + 'b"]\nselect = ["RL1"]\n')
    deep = tmp_path.joinpath(*["a"] * 60)
    deep.mkdir(parents=True)
    (deep / "skip.sh").write_text("vllm serve m --max-model-length 4096\n")
    (deep / ("a" * 200 + ".sh")).write_text("vllm serve m --max-model-length 4096\n")
    # a second or two; minutes with backtracking
    result = cpu(30, lambda: invoke([str(tmp_path), "--format", "json", "--select", "RL507"]))
    doc = json.loads(result.output)
    assert [Path(f["path"]).name for f in doc["findings"]] == ["a" * 200 + ".sh"]
