"""Hostile input (issue 14): each class of crafted input gives a located message and exit 0, 1 or 2, never a
traceback, within a bound of CPU time and under a 2 GiB address-space limit, and the other files of the run are
still linted and reported.

Every case runs the real command line in a subprocess under ``resource`` limits: CPU seconds, counted by the
kernel (``RLIMIT_CPU``: a loaded machine makes a run slower, not dearer), never the time on the clock. The bounds
are generous; a case whose protection is gone runs past them and is ended, and its exit status fails the test.
Speed itself is measured in ``bench/``.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.work import HANG_S, limit_cpu

ROOT = Path(__file__).resolve().parents[1]
MEMORY_LIMIT = 2 << 30
CPU_LIMIT_S = 30
"""CPU seconds one run may spend: every case takes a few at most (the slowest, 5 MB on standard input, about 4 on a
loaded 2-core machine); an unprotected case takes minutes."""
# the vehicle: RL120 (an FP8 KV cache with sleep mode on 0.7.0-0.11.2, on an H100 whose FlashAttention 3 takes
# it), pointing at the --kv-cache-dtype token
GOOD = ('services:\n  llm:\n    image: vllm/vllm-openai:v0.10.2\n'
        '    command: ["Qwen/Qwen2.5-72B-Instruct", "--kv-cache-dtype", "fp8", "--enable-sleep-mode"]\n')
GOOD_FINDING = ("RL120", "compose.yaml", 4, 44)
SELECT = ["--select", "RL120", "--gpu", "H100"]
SELECT_V = [*SELECT, "--engine-version", "0.10.2"]  # for files that pin no version themselves
SERVE = "vllm serve m --kv-cache-dtype fp8 --enable-sleep-mode\n"


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    limit_cpu(CPU_LIMIT_S)()


def without_file_privileges() -> list[str]:
    """The prefix that runs a command without the privileges that bypass file permissions: none for a user, and
    for root (CI runs as root) util-linux's ``setpriv`` dropping the capabilities DAC_OVERRIDE, DAC_READ_SEARCH and
    FOWNER, so that a mode-000 file or a read-only folder refuses root as it refuses a user."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root, and setpriv (util-linux) is absent to drop the privileges that bypass file "
                    "permissions")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner"]


def relialint(*args: str, cwd: Path | None = None, stdin: Any = subprocess.DEVNULL,
              input_bytes: bytes | None = None, prefix: tuple[str, ...] = ()) -> tuple[int, str, str]:
    """Run the command line in a subprocess with the memory and time limits; never a traceback."""
    proc = subprocess.run([*prefix, sys.executable, "-m", "relialint", *args], cwd=cwd, capture_output=True,
                          timeout=HANG_S, preexec_fn=_limits,
                          stdin=None if input_bytes is not None else stdin, input=input_bytes,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    out, err = proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err and "Traceback" not in out, err
    assert proc.returncode in (0, 1, 2), (proc.returncode, err)  # -24 (SIGXCPU): past the CPU limit
    return proc.returncode, out, err


@pytest.fixture
def good(tmp_path: Path) -> Path:
    folder = tmp_path / "good"
    folder.mkdir()
    (folder / "compose.yaml").write_text(GOOD)
    return folder


def lint_json(*args: str, cwd: Path | None = None) -> tuple[int, dict[str, Any]]:
    code, out, err = relialint(*args, "--format", "json", cwd=cwd)
    assert out, err
    return code, json.loads(out)


def findings(doc: dict[str, Any]) -> list[tuple[str, str, int, int]]:
    return [(f["code"], Path(f["path"]).name, f["line"], f["column"]) for f in doc["findings"]]


def located(entries: list[dict[str, Any]]) -> list[tuple[str, int, int, str]]:
    return [(Path(e["path"]).name, e["line"], e["column"], e["message"]) for e in entries]


def with_good(bad: Path, good: Path, expected_error: tuple[str, int, int, str] | None,
              *extra: str) -> dict[str, Any]:
    """Lint ``bad`` beside the good compose file: the error (if any) is reported and the good finding kept."""
    code, doc = lint_json(str(bad), str(good), *SELECT, *extra)
    assert GOOD_FINDING in findings(doc)
    if expected_error is None:
        assert doc["errors"] == []
        assert code == 1
    else:
        assert located(doc["errors"]) == [expected_error]
        assert code == 2
    return doc


# -- tracebacks -----------------------------------------------------------------------------------------------------


def test_01_integer_of_4301_digits_in_yaml(tmp_path: Path, good: Path) -> None:
    bad = tmp_path / "compose.yaml"
    bad.write_text("services:\n  llm:\n    image: vllm/vllm-openai:v0.30.0\n    command: [" + "1" * 4301 + "]\n")
    with_good(bad, good, ("compose.yaml", 4, 15, "integer of more than 4300 digits; not read"))


def test_01_integer_of_4301_digits_in_toml(tmp_path: Path) -> None:
    (tmp_path / ".relialint.toml").write_text('gpu = "A100"\nx = ' + "1" * 4301 + "\n")
    (tmp_path / "serve.sh").write_text("vllm serve m\n")
    code, _, err = relialint("serve.sh", cwd=tmp_path)
    assert (code, err) == (2, ".relialint.toml:2:5: error: invalid configuration: invalid TOML: integer of more "
                              "than 4300 digits\n")


def test_02_float_infinity_as_an_integer_option(tmp_path: Path, good: Path) -> None:
    bad = tmp_path / "serve.sh"
    bad.write_text("vllm serve m --tensor-parallel-size 1e999\n")
    with_good(bad, good, None)


@pytest.mark.parametrize("name, text", [
    ("serve.sh", "vllm serve m --speculative-config '" + "[" * 1100 + "]" * 1100 + "'\n"),
    ("Dockerfile", "FROM vllm/vllm-openai:v0.30.0\nCMD " + "[" * 1100 + "]" * 1100 + "\n"),
])
def test_03_json_nested_1100_deep(tmp_path: Path, good: Path, name: str, text: str) -> None:
    bad = tmp_path / name
    bad.write_text(text)
    code, doc = lint_json(str(bad), str(good), *SELECT)
    assert GOOD_FINDING in findings(doc)
    assert doc["errors"] == []
    assert code == 1


def test_03_baseline_nested_1100_deep(tmp_path: Path, good: Path) -> None:
    baseline = tmp_path / "baseline.json"
    baseline.write_text("[" * 1100 + "]" * 1100)
    code, _, err = relialint(str(good), "--baseline", str(baseline))
    assert (code, err) == (2, f"relialint: error: {baseline}: not a relialint baseline (invalid JSON: JSON nested "
                              "deeper than 100 levels)\n")


def test_04_conflicting_dotted_options(tmp_path: Path, good: Path) -> None:
    bad = tmp_path / "serve.sh"
    bad.write_text("vllm serve m --speculative-config.method 1 --speculative-config.method.x 2\n")
    with_good(bad, good, None)


def test_05_a_chain_of_1000_from_stages(tmp_path: Path, good: Path) -> None:
    folder = tmp_path / "chain"
    folder.mkdir()
    (folder / "Dockerfile").write_text(
        "FROM vllm/vllm-openai:v0.10.2 AS s0\n" + "".join(f"FROM s{i} AS s{i + 1}\n" for i in range(1000))
        + 'CMD ["m", "--kv-cache-dtype", "fp8", "--enable-sleep-mode"]\n')
    code, doc = lint_json(str(folder / "Dockerfile"), str(good), *SELECT)
    assert findings(doc) == [("RL120", "Dockerfile", 1002, 11), GOOD_FINDING]
    assert (code, doc["errors"]) == (1, [])


def test_06_toml_with_1000_nested_arrays(tmp_path: Path) -> None:
    (tmp_path / ".relialint.toml").write_text("x = " + "[" * 1000 + "]" * 1000 + "\n")
    (tmp_path / "serve.sh").write_text("vllm serve m\n")
    code, _, err = relialint("serve.sh", cwd=tmp_path)
    assert (code, err) == (2, ".relialint.toml:1:1: error: invalid configuration: invalid TOML: arrays or tables "
                              "nested deeper than 100 levels\n")


def test_07_file_name_of_300_characters(tmp_path: Path, good: Path) -> None:
    with_good(tmp_path / ("a" * 300 + ".sh"), good, ("a" * 300 + ".sh", 1, 1, "cannot read: File name too long"))


def test_07_file_name_with_invalid_utf8_under_sarif(tmp_path: Path) -> None:
    name = os.fsdecode(b"bad\xff.sh")
    (tmp_path / name).write_text(SERVE)
    code, out, _ = relialint(name, "--format", "sarif", *SELECT_V, cwd=tmp_path)
    doc = json.loads(out)
    results = doc["runs"][0]["results"]
    assert code == 1
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for r in results] == \
        [("RL120", "bad%FF.sh")]


def test_08_deleted_working_directory(tmp_path: Path, good: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    proc = subprocess.run(f'cd "{gone}" && rmdir "{gone}" && exec "{sys.executable}" -m relialint "{good}"',
                          shell=True, capture_output=True, timeout=HANG_S, preexec_fn=_limits,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert (proc.returncode, proc.stderr.decode().splitlines()[-1]) == (
        2, "relialint: error: the working directory no longer exists; run relialint from an existing folder")


def test_08_standard_input_closed() -> None:
    proc = subprocess.run(f'exec "{sys.executable}" -m relialint - --stdin-filename x.sh <&-', shell=True,
                          capture_output=True, timeout=HANG_S, preexec_fn=_limits,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert "Traceback" not in proc.stderr.decode()
    assert (proc.returncode, proc.stderr.decode().splitlines()[-1]) == (
        2, "relialint: error: `-` reads standard input, but standard input is closed")


@pytest.mark.parametrize("target, reason", [
    ("missing/baseline.json", "No such file or directory"),
    ("/dev/full", "not a regular file (a device); not written"),  # refused before the run (issue 22)
])
def test_08_write_baseline_fails(tmp_path: Path, good: Path, target: str, reason: str) -> None:
    path = target if target.startswith("/") else str(tmp_path / target)
    code, _, err = relialint(str(good), "--write-baseline", path)
    assert (code, err) == (2, f"relialint: error: cannot write the baseline {path}: {reason}\n")


def test_08_write_baseline_to_a_read_only_folder(tmp_path: Path, good: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    code, _, err = relialint(str(good), "--write-baseline", str(folder / "b.json"),
                             prefix=tuple(without_file_privileges()))
    assert (code, err) == (2, f"relialint: error: cannot write the baseline {folder / 'b.json'}: Permission denied\n")


def _record(folder: Path, old: str = "", new: str = "") -> Path:
    """A copy of RL120 as a user's record RL199 in ``folder`` (with its witness result), one text replaced. An id
    outside the catalogue's older records states its reach (KB021), so the copy gets one."""
    text = (ROOT / "records" / "RL120-fp8-kv-cache-sleep-level2-gibberish.yaml").read_text(encoding="utf-8")
    text = text.replace("id: RL120", "id: RL199", 1).replace("related: [RL115, RL123, RL124]", "related: []", 1)
    text += "reach: {estimate: 3, searched: 2026-12-02, queries: [{text: '--kv-cache-dtype fp8', hits: 3}]}\n"
    if old:
        assert old in text
        text = text.replace(old, new, 1)
    folder.mkdir(exist_ok=True)
    path = folder / "RL199-fp8-kv-cache-sleep-level2-gibberish.yaml"
    path.write_text(text, encoding="utf-8")
    witness = (ROOT / "records" / "witnesses" / "RL120.json").read_text(encoding="utf-8")
    (folder / "witnesses").mkdir(exist_ok=True)
    (folder / "witnesses" / "RL199.json").write_text(witness.replace('"record": "RL120"', '"record": "RL199"', 1),
                                                     encoding="utf-8")
    return path


def test_09_validate_an_example_in_a_sub_folder(tmp_path: Path) -> None:
    _record(tmp_path / "records", "    format: shell\n", "    format: shell\n    filename: deploy/scripts/serve.sh\n")
    code, out, _ = relialint("validate", str(tmp_path / "records"))
    assert (code, out) == (0, "1 record file, 0 problems\n")


# -- memory and time ------------------------------------------------------------------------------------------------

DOUBLING = "A0=xxxxxxxxxx\n" + "".join(f"A{i}=${{A{i - 1}}}${{A{i - 1}}}\n" for i in range(1, 41))
EXPANSION = ("variable expansion past its bound (values over 65536 characters, more than 100000 substitutions or "
             "16777216 characters in all); the values involved are unknown")


@pytest.mark.parametrize("name, text, warned", [
    (".env", DOUBLING, ".env"),
    ("serve.sh", DOUBLING + "vllm serve m --max-model-len $A40\n", "serve.sh"),
    ("Dockerfile", "FROM vllm/vllm-openai:v0.30.0\nENV A0=xxxxxxxxxx\n"
     + "".join(f"ENV A{i}=${{A{i - 1}}}${{A{i - 1}}}\n" for i in range(1, 41)), "Dockerfile"),
    ("compose.yaml", 'services:\n  llm:\n    image: vllm/vllm-openai:v0.30.0\n    command: ["m", "${A40}"]\n',
     "compose.yaml"),
    ("serve.bat", "set A0=xxxxxxxxxx\r\n" + "".join(f"set A{i}=%A{i - 1}%%A{i - 1}%\r\n" for i in range(1, 41))
     + "llama-server.exe -m %A40%\r\n", "serve.bat"),
    ("serve.ps1", '$A0 = "xxxxxxxxxx"\n' + "".join(f'$A{i} = "$A{i - 1}$A{i - 1}"\n' for i in range(1, 41))
     + "& llama-server.exe -m $A40\n", "serve.ps1"),
])
def test_10_variables_that_double_on_each_line(tmp_path: Path, good: Path, name: str, text: str,
                                               warned: str) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    if name == "compose.yaml":
        (folder / ".env").write_text(DOUBLING)
    (folder / name).write_text(text)
    code, doc = lint_json(str(folder / name), str(good), *SELECT)
    assert GOOD_FINDING in findings(doc)
    assert (code, doc["errors"]) == (1, [])
    assert located(doc["warnings"]) == [(warned, 1, 1, EXPANSION)]


def test_11_character_devices(tmp_path: Path, good: Path) -> None:
    with_good(Path("/dev/zero"), good, ("zero", 1, 1, "not a regular file (a device); not read"))
    folder = tmp_path / "walked"
    folder.mkdir()
    (folder / "serve.sh").symlink_to("/dev/urandom")
    # a symlink out of the walked folder is not followed (issue 22); followed on request, the device is refused
    code, doc = lint_json(str(folder), str(good), *SELECT)
    assert (code, findings(doc), doc["errors"]) == (1, [GOOD_FINDING], [])
    assert located(doc["warnings"]) == [("serve.sh", 1, 1, f"symlink to a file outside the project root {folder}, "
                                         "so not read: --follow-outside or follow-outside = true in the configuration "
                                         "reads it")]
    with_good(folder, good, ("serve.sh", 1, 1, "not a regular file (a device); not read"), "--follow-outside")
    script = tmp_path / "run.sh"
    script.write_text("docker run --env-file /dev/zero vllm/vllm-openai:v0.10.2 m --kv-cache-dtype fp8 "
                      "--enable-sleep-mode\n")
    code, doc = lint_json(str(script), str(good), *SELECT)
    assert (code, findings(doc)) == (1, [GOOD_FINDING, ("RL120", "run.sh", 1, 60)])


@pytest.mark.parametrize("option", ["--config", "--baseline"])
def test_11_device_as_config_or_baseline(good: Path, option: str) -> None:
    code, _, err = relialint(str(good), option, "/dev/zero")
    expected = {"--config": "/dev/zero:1:1: error: invalid configuration: cannot read configuration: not a regular "
                            "file (a device); not read\n",
                "--baseline": "relialint: error: /dev/zero: cannot read baseline: not a regular file (a device); "
                              "not read\n"}[option]
    assert (code, err) == (2, expected)


def test_11_standard_input_is_bounded() -> None:
    with open("/dev/zero", "rb") as zero:
        code, out, _ = relialint("-", "--stdin-filename", "x.sh", stdin=zero)
    assert code == 2
    assert out.splitlines()[0] == "x.sh:1:1: error: file too large (more than 5242880 bytes; the limit is 5242880)"


def test_11_a_large_script_on_standard_input() -> None:
    """4.9 MB of commands (90,000): the first 10,000 commands are read and 256 deployments evaluated, each bound
    said once, in seconds rather than minutes."""
    script = (SERVE * 90_000).encode()
    code, out, _ = relialint("-", "--stdin-filename", "x.sh", "--format", "json", *SELECT_V, input_bytes=script)
    doc = json.loads(out)
    assert (code, doc["errors"], doc["summary"]["deployments"], doc["summary"]["definite"]) == (1, [], 256, 256)
    assert located(doc["warnings"]) == [
        ("x.sh", 10001, 1, "more than 10000 commands in one file; from here on they are not read"),
        ("x.sh", 257, 1, "more than 256 deployments in one file; from here on they are not linted")]
    code, out, _ = relialint("-", "--stdin-filename", "x.sh", "--format", "json", *SELECT_V,
                             input_bytes=script + b"x" * 400_000)
    assert (code, located(json.loads(out)["errors"])) == (
        2, [("x.sh", 1, 1, "file too large (more than 5242880 bytes; the limit is 5242880)")])


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    folder = tmp_path / "fifo"
    folder.mkdir()
    path = folder / "serve.sh"
    os.mkfifo(path)
    return path


def test_12_fifo_named_or_walked(fifo: Path, good: Path) -> None:
    with_good(fifo, good, ("serve.sh", 1, 1, "not a regular file (a FIFO); not read"))
    with_good(fifo.parent, good, ("serve.sh", 1, 1, "not a regular file (a FIFO); not read"))


@pytest.mark.parametrize("option, expected", [
    ("--config", "{fifo}:1:1: error: invalid configuration: cannot read configuration: not a regular file (a FIFO); "
                 "not read\n"),
    ("--baseline", "relialint: error: {fifo}: cannot read baseline: not a regular file (a FIFO); not read\n"),
])
def test_12_fifo_as_config_or_baseline(fifo: Path, good: Path, option: str, expected: str) -> None:
    assert relialint(str(good), option, str(fifo)) == (2, "", expected.format(fifo=fifo))


def test_12_fifo_as_env_file_and_dotenv(tmp_path: Path, good: Path) -> None:
    folder = tmp_path / "app"
    folder.mkdir()
    os.mkfifo(folder / ".env")
    (folder / "compose.yaml").write_text(GOOD.replace('"fp8",', '"${KV:-fp8}",'))
    (folder / "run.sh").write_text("docker run --env-file .env vllm/vllm-openai:v0.10.2 m --kv-cache-dtype fp8 "
                                   "--enable-sleep-mode\n")
    code, doc = lint_json(str(folder / "compose.yaml"), str(folder / "run.sh"), *SELECT)
    assert code == 1
    assert findings(doc) == [("RL120", "compose.yaml", 4, 44), ("RL120", "run.sh", 1, 55)]
    assert located(doc["warnings"]) == [
        ("compose.yaml", 1, 1, ".env cannot be read: not a regular file (a FIFO); not read; its variables are "
                               "unknown"),
        ("run.sh", 1, 23, "--env-file .env: not a regular file (a FIFO); not read; its variables are unknown")]


def test_12_fifo_in_a_records_folder(tmp_path: Path, good: Path) -> None:
    records = tmp_path / "records"
    records.mkdir()
    os.mkfifo(records / "RL199-x.yaml")
    code, doc = lint_json(str(good), "--records", str(records), *SELECT)
    assert code == 2
    assert located(doc["errors"]) == [("RL199-x.yaml", 1, 1, "KB001 not a regular file (a FIFO); not read")]
    assert findings(doc) == [GOOD_FINDING]


WORDS = "a command of more than 10000 words; the rest of it is not read"


@pytest.mark.parametrize("name, text, warnings", [
    ("long-line.sh", "vllm serve m " + "--x y " * 140_000 + "--kv-cache-dtype fp8\n", [(1, 30006, WORDS)]),
    ("quote/.env", 'A="' + "x" * 200_000 + "\n", [(1, 3, "unterminated quote")]),
    ("unit/vllm.service", "[Service]\nExecStart=/usr/bin/vllm serve m \\\n" + "  --x y \\\n" * 100_000
     + "  --kv-cache-dtype fp8\n", [(5001, 7, WORDS)]),
    ("image/Dockerfile", "FROM vllm/vllm-openai:v0.30.0\nRUN echo \\\n" + "  y \\\n" * 200_000 + "  z\n", []),
])
def test_13_long_lines_and_continuations_finish(tmp_path: Path, good: Path, name: str, text: str,
                                               warnings: list[tuple[int, int, str]]) -> None:
    """Each within the CPU limit (a second or two; quadratic parsing: minutes); a command of 200,000 words is
    read to its first 10,000 (read whole, it costs ten times as much CPU)."""
    bad = tmp_path / name
    bad.parent.mkdir(parents=True, exist_ok=True)
    bad.write_text(text)
    code, doc = lint_json(str(bad), str(good), *SELECT)
    assert GOOD_FINDING in findings(doc)
    assert (code, doc["errors"]) == (1, [])
    assert [(w["line"], w["column"], w["message"]) for w in doc["warnings"]] == warnings


def test_14_catastrophic_pattern_in_a_user_record(tmp_path: Path, good: Path) -> None:
    records = tmp_path / "records"
    path = _record(records, 'matches: "^fp8"', 'matches: "^(a+)+$"')
    code, out, _ = relialint("validate", str(records))
    assert code == 2
    assert (f"{path}:64:9: KB002 trigger.when.all.1: Value error, matches: the pattern has a repeated group that "
            "itself repeats or alternates (catastrophic backtracking); records may use only patterns that cannot "
            "backtrack without bound") in out.splitlines()
    code, doc = lint_json(str(good), "--records", str(records), *SELECT)
    assert code == 2
    assert findings(doc) == [GOOD_FINDING]
    assert any("catastrophic backtracking" in e["message"] for e in doc["errors"])


# -- security -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("filename, reason", [
    ("{outside}/evil.sh", "must be a relative path"),
    ("../../evil.sh", "must not hold `..`, `.` or an empty part"),
])
def test_16_validate_writes_only_inside_its_own_folder(tmp_path: Path, filename: str, reason: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    name = filename.format(outside=outside)
    records = tmp_path / "records"
    path = _record(records, "    format: shell\n", f"    format: shell\n    filename: {name}\n")
    code, out, _ = relialint("validate", str(records))
    assert code == 2
    assert f"{path}:108:5: KB010 example 'an RL rollout server on 0.10.2 on an H100' should fires: filename " \
           f"{name!r}: {reason}" in out.splitlines()
    assert list(outside.iterdir()) == []
    assert not (tmp_path / "evil.sh").exists()


def test_17_github_annotations_cannot_inject_commands(tmp_path: Path) -> None:
    folder = tmp_path / "x\n::error file=evil::pwned"
    folder.mkdir()
    (folder / "serve.sh").write_text(SERVE)
    code, out, _ = relialint(str(folder / "serve.sh"), "--format", "github", *SELECT_V)
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("::error file=") and "%0A%3A%3Aerror file=evil%3A%3Apwned" in lines[0]
    assert lines[1] == "relialint: 1 file, 1 definite, 0 possible, 0 errors"


# -- wrong without crashing ------------------------------------------------------------------------------------------


def test_18_duplicate_yaml_keys_are_an_error(tmp_path: Path, good: Path) -> None:
    bad = tmp_path / "compose.yaml"
    bad.write_text('services:\n  llm:\n    image: vllm/vllm-openai:v0.30.0\n    command: ["m"]\n'
                   '    command: ["m", "--kv-cache-dtype", "fp8"]\n')
    with_good(bad, good, ("compose.yaml", 5, 5, "duplicate key 'command' (first at line 4); YAML does not allow the "
                                                "same key twice in one mapping"))


@pytest.mark.parametrize("name, data, where", [
    ("serve.sh", b"#!/bin/sh\rvllm serve m --kv-cache-dtype fp8 --enable-sleep-mode\r", (2, 14)),
    ("compose.yaml", GOOD.replace("\n", "\r").encode(), (4, 44)),
    ("serve16.sh", SERVE.encode("utf-16"), (1, 14)),
])
def test_19_cr_only_line_ends_and_utf16(tmp_path: Path, name: str, data: bytes, where: tuple[int, int]) -> None:
    (tmp_path / name).write_bytes(data)
    code, doc = lint_json(str(tmp_path / name), *SELECT_V)
    assert (code, findings(doc), doc["errors"]) == (1, [("RL120", name, *where)], [])


def test_20_empty_option_name_and_unicode_dash(tmp_path: Path) -> None:
    script = tmp_path / "serve.sh"
    script.write_text("vllm serve m --=\nvllm serve m \u2014max-model-len 4096\n")
    code, doc = lint_json(str(script), "--select", "RL507", "--engine-version", "0.30.0")
    assert code == 1
    assert [(f["code"], f["line"], f["column"], f["message"]) for f in doc["findings"]] == [
        ("RL507", 1, 14, "`--=` names no option: vLLM refuses to start (\"unrecognized arguments\")")]
    assert located(doc["warnings"]) == [
        ("serve.sh", 2, 14, "`\u2014max-model-len` starts with a Unicode dash (U+2014), not `-`: the engine reads it "
                            "as an argument, not an option")]


@pytest.mark.parametrize("args, message", [
    (["--records", "/nonexistent"], "relialint: error: Invalid value for '--records': Directory '/nonexistent' does "
                                    "not exist."),
    (["--gpu", ""], "relialint: error: --gpu takes a value, not an empty string"),
    (["--engine-version", ""], "relialint: error: --engine-version takes a value, not an empty string"),
    (["--fact", "gpu.count=-5"], "relialint: error: gpu.count takes a non-negative integer, not '-5'"),
    (["--fact", "gpu.count=abc"], "relialint: error: gpu.count takes an integer, not 'abc'"),
    (["--fact", "memory.gpu_utilization=inf"], "relialint: error: memory.gpu_utilization takes a finite number, "
                                               "not 'inf'"),
])
def test_20_usage_errors(good: Path, args: list[str], message: str) -> None:
    code, _, err = relialint(str(good), *args)
    assert (code, err.splitlines()[-1]) == (2, message)


def test_20_dotenv_that_is_a_folder(tmp_path: Path) -> None:
    (tmp_path / ".env").mkdir()
    (tmp_path / "compose.yaml").write_text(GOOD)
    code, doc = lint_json(str(tmp_path / "compose.yaml"), *SELECT)
    assert (code, findings(doc)) == (1, [GOOD_FINDING])
    assert located(doc["warnings"]) == [
        ("compose.yaml", 1, 1, ".env cannot be read: not a regular file (a folder); not read; its variables are "
                               "unknown")]


# -- the last resort ------------------------------------------------------------------------------------------------


def test_an_unexpected_exception_in_one_file_is_a_located_internal_error(tmp_path: Path, good: Path) -> None:
    """A bug in a reader (simulated) costs that file only: exit 2, the others still linted and reported."""
    from relialint.readers import shell
    from tests.cli_run import invoke

    bad = tmp_path / "serve.sh"
    bad.write_text("vllm serve m\n")
    original = shell.read

    def broken(text: str, path: str, opener: Any) -> Any:
        if path.endswith("serve.sh"):
            raise RuntimeError("simulated bug")
        return original(text, path, opener)

    mp = pytest.MonkeyPatch()
    mp.setattr(shell, "read", broken)
    try:
        result = invoke([str(bad), str(good), *SELECT, "--format", "json"])
    finally:
        mp.undo()
    doc = json.loads(result.output)
    assert result.exit_code == 2
    assert findings(doc) == [GOOD_FINDING]
    assert located(doc["errors"]) == [("serve.sh", 1, 1, "internal error while linting this file (RuntimeError); it "
                                                         "was not linted, the other files were. Please report it "
                                                         "with this file")]
