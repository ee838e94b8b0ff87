"""Files outside the project and secrets (issue 22, point 4): a linted file cannot make relialint read a file
outside its project root (a symlink, an absolute or ``../`` path in ``--env-file``, compose ``env_file``, systemd
``EnvironmentFile``, vLLM ``--config``) unless asked; ``facts`` never prints a secret's value; ``--write-facts`` and
``--write-baseline`` never write through a symlink nor hang on a FIFO, and write atomically.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from relialint.base.secrets import hidden, secret_name
from relialint.core.facts import Fact, FactSet, fill_message
from relialint.run.reach import project_root
from tests.cli_run import invoke

ROOT = Path(__file__).resolve().parents[1]
SECRET = "hf_" + "s3cr3t" * 6  # 39 characters
ENV = f"HF_TOKEN={SECRET}\nVLLM_ATTENTION_BACKEND=XFORMERS\n"
ALLOW = "--follow-outside or follow-outside = true in the configuration reads it"
IMAGE = "vllm/vllm-openai:v0.10.0"


@pytest.fixture
def layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """``outside/`` with a secret env file and a vLLM config, beside a repository ``proj/`` (the working directory)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.env").write_text(ENV)
    (outside / "cfg.yaml").write_text("max-model-len: 4096\n")
    project = tmp_path / "proj"
    (project / "deploy").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    monkeypatch.chdir(project)
    return project, outside


def _json(*args: str) -> tuple[int, dict[str, Any], str]:
    result = invoke([*args, "--format", "json"])
    assert result.exception is None, result.output
    return result.exit_code, json.loads(result.stdout), result.output


def _facts(doc: dict[str, Any], index: int = 0) -> dict[str, Any]:
    return dict(doc["deployments"][index]["facts"])


def _warnings(doc: dict[str, Any]) -> list[tuple[str, int, int, str]]:
    return [(w["path"], w["line"], w["column"], w["message"]) for w in doc.get("warnings", [])]


# -- the project root -----------------------------------------------------------------------------------------------


def test_the_project_root_is_the_checkout_else_the_configuration_else_the_path(tmp_path: Path) -> None:
    (tmp_path / "repo" / "a" / "b").mkdir(parents=True)
    (tmp_path / "repo" / ".git").mkdir()
    assert project_root(tmp_path / "repo" / "a" / "b" / "serve.sh") == (tmp_path / "repo").resolve()
    (tmp_path / "plain" / "deploy").mkdir(parents=True)
    (tmp_path / "plain" / ".relialint.toml").write_text("")
    assert project_root(tmp_path / "plain" / "deploy") == (tmp_path / "plain").resolve()
    (tmp_path / "bare" / "deploy").mkdir(parents=True)
    assert project_root(tmp_path / "bare" / "deploy") == (tmp_path / "bare" / "deploy").resolve()
    assert project_root(tmp_path / "bare" / "deploy" / "serve.sh") == (tmp_path / "bare" / "deploy").resolve()


# -- references out of the project -----------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["relative", "absolute"])
def test_docker_env_file_outside_is_not_read(layout: tuple[Path, Path], how: str) -> None:
    project, outside = layout
    name = "../../outside/secret.env" if how == "relative" else str(outside / "secret.env")
    (project / "deploy" / "run.sh").write_text(f"docker run --env-file {name} {IMAGE} m\n")
    code, doc, output = _json("facts", "deploy/run.sh")
    assert code == 0 and SECRET not in output
    assert _warnings(doc) == [("deploy/run.sh", 1, 23, f"--env-file {name}: outside the project root "
                                                       f"{project.resolve()}, so not read: {ALLOW}; its variables "
                                                       "are unknown")]
    facts = _facts(doc)
    assert "env.HF_TOKEN" not in facts and "env.VLLM_ATTENTION_BACKEND" not in facts  # unknown, never unset
    code, doc, output = _json("facts", "deploy/run.sh", "--follow-outside")
    assert (code, _warnings(doc)) == (0, [])
    assert _facts(doc)["env.VLLM_ATTENTION_BACKEND"]["value"] == "XFORMERS"
    assert _facts(doc)["env.HF_TOKEN"] == {"value": "<set, 39 chars>", "origin": "env", "redacted": True,
                                           "path": f"deploy/{name}" if how == "relative" else name, "line": 1,
                                           "column": 1}
    assert SECRET not in output


def test_compose_env_file_and_dotenv_symlink_outside(layout: tuple[Path, Path]) -> None:
    project, _ = layout
    (project / "deploy" / "compose.yaml").write_text(
        f"services:\n  llm:\n    image: {IMAGE}\n    env_file: ../../outside/secret.env\n    command: [m]\n")
    (project / "deploy" / ".env").symlink_to("../../outside/secret.env")
    code, doc, output = _json("facts", "deploy/compose.yaml")
    root = project.resolve()
    assert code == 0 and SECRET not in output
    assert _warnings(doc) == [
        ("deploy/compose.yaml", 1, 1, f".env cannot be read: outside the project root {root}, so not read: {ALLOW}; "
                                      "its variables are unknown"),
        ("deploy/compose.yaml", 4, 15, f"env_file ../../outside/secret.env cannot be read: outside the project root "
                                       f"{root}, so not read: {ALLOW}; its variables are unknown")]
    assert not any(key.startswith("env.") for key in _facts(doc))


def test_systemd_environment_file_outside(layout: tuple[Path, Path]) -> None:
    project, _ = layout
    (project / "deploy" / "vllm.service").write_text(
        "[Service]\nEnvironmentFile=../../outside/secret.env\nExecStart=vllm serve m\n")
    code, doc, output = _json("facts", "deploy/vllm.service")
    assert code == 0 and SECRET not in output
    assert _warnings(doc) == [("deploy/vllm.service", 2, 17, f"EnvironmentFile ../../outside/secret.env: outside the "
                                                             f"project root {project.resolve()}, so not read: {ALLOW}; "
                                                             "its variables are unknown")]
    assert not any(key.startswith("env.") for key in _facts(doc))


def test_vllm_config_outside_is_a_note_and_its_settings_unknown(layout: tuple[Path, Path]) -> None:
    project, outside = layout
    (project / "deploy" / "serve.sh").write_text(f"vllm serve m --config {outside / 'cfg.yaml'}\n")
    code, doc, _ = _json("facts", "deploy/serve.sh")
    assert code == 0
    (deployment,) = doc["deployments"]
    assert f"--config {outside / 'cfg.yaml'}: outside the project root {project.resolve()}, so not read: {ALLOW}; " \
           "its settings are unknown" in deployment["notes"]
    assert "limits.max_model_len" not in deployment["facts"]  # unknown: the file may set it
    code, doc, _ = _json("facts", "deploy/serve.sh", "--follow-outside")
    assert _facts(doc)["limits.max_model_len"]["value"] == 4096


def test_a_symlink_out_of_a_walked_folder_is_not_followed(layout: tuple[Path, Path]) -> None:
    project, outside = layout
    # the image pins a release, where an option no release has is definite (exit 1)
    (outside / "serve.sh").write_text("docker run vllm/vllm-openai:v0.30.0 --model m --max-model-length 4096\n")
    (project / "deploy" / "serve.sh").symlink_to(outside / "serve.sh")
    (project / "deploy" / "more").symlink_to(outside)
    (project / "deploy" / "inside.sh").symlink_to("../inside-target.sh")
    (project / "inside-target.sh").write_text("vllm serve m\n")
    code, doc, _ = _json(".", "--gpu", "A100", "--select", "RL507")
    root = project.resolve()
    assert code == 0 and doc["findings"] == [] and doc["summary"]["files"] == 2
    assert _warnings(doc) == [
        ("deploy/more", 1, 1, f"symlink to a folder outside the project root {root}, so not read: {ALLOW}"),
        ("deploy/serve.sh", 1, 1, f"symlink to a file outside the project root {root}, so not read: {ALLOW}")]
    code, doc, _ = _json(".", "--follow-outside", "--gpu", "A100", "--select", "RL507")
    assert (code, _warnings(doc)) == (1, [])
    assert sorted(f["path"] for f in doc["findings"]) == ["deploy/more/serve.sh", "deploy/serve.sh"]
    # a file named on the command line is read wherever it is
    code, doc, _ = _json(str(outside / "serve.sh"), "--gpu", "A100", "--select", "RL507")
    assert code == 1 and [f["code"] for f in doc["findings"]] == ["RL507"]


def test_the_configuration_allows_and_the_command_line_decides(layout: tuple[Path, Path]) -> None:
    project, _ = layout
    (project / "deploy" / "run.sh").write_text(f"docker run --env-file ../../outside/secret.env {IMAGE} m\n")
    (project / ".relialint.toml").write_text("follow-outside = true\n")
    code, doc, _ = _json("facts", "deploy/run.sh")
    assert (code, _warnings(doc)) == (0, [])
    assert _facts(doc)["env.VLLM_ATTENTION_BACKEND"]["value"] == "XFORMERS"
    code, doc, _ = _json("facts", "deploy/run.sh", "--no-follow-outside")
    assert len(_warnings(doc)) == 1 and "env.VLLM_ATTENTION_BACKEND" not in _facts(doc)
    code, doc, _ = _json("deploy/run.sh", "--isolated")  # no configuration: the default, not read
    assert len(_warnings(doc)) == 1


# -- secrets --------------------------------------------------------------------------------------------------------


def test_facts_never_print_a_secret(layout: tuple[Path, Path]) -> None:
    project, _ = layout
    (project / "deploy" / ".env").write_text(f"{ENV}VLLM_API_KEY=sk-1234\nDB_PASSWORD=hunter2\nHF_TOKEN_PATH=/t\n")
    (project / "deploy" / "compose.yaml").write_text(
        f"services:\n  llm:\n    image: {IMAGE}\n    env_file: .env\n    command: [m, --api-key, sk-5678]\n")
    for fmt in ("text", "json"):
        result = invoke(["facts", "deploy", "--format", fmt])
        assert result.exit_code == 0
        assert not any(secret in result.output for secret in (SECRET, "sk-1234", "hunter2", "sk-5678"))
    facts = _facts(_json("facts", "deploy")[1])
    assert {key: (f["value"], f.get("redacted")) for key, f in facts.items() if key.startswith(("env.", "flag."))} == {
        "env.HF_TOKEN": ("<set, 39 chars>", True), "env.VLLM_API_KEY": ("<set, 7 chars>", True),
        "env.DB_PASSWORD": ("<set, 7 chars>", True), "env.VLLM_ATTENTION_BACKEND": ("XFORMERS", None),
        "env.HF_TOKEN_PATH": ("/t", None), "flag.vllm.api-key": ("<set, 7 chars>", True)}
    text = invoke(["facts", "deploy"]).stdout.splitlines()
    assert f"  {'env.HF_TOKEN':<34} {'<set, 39 chars>':<28} {'env':<12} deploy/.env:1:1" in text


def test_secret_names() -> None:
    secret = ["HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "VLLM_API_KEY", "OPENAI_API_KEY", "LLAMA_ARG_API_KEY",
              "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "db_pass", "env.HF_TOKEN", "flag.vllm.api-key",
              "flag.llama.cpp.api-key", "--api-key", "--hf-token", "X_APIKEY"]
    shown = ["HF_TOKEN_PATH", "--api-key-file", "MAX_TOKENS", "TOKENIZER", "--long-prefill-token-threshold",
             "VLLM_MULTI_STREAM_GEMM_TOKEN_THRESHOLD", "--max-prompt-adapter-token", "PASS_THROUGH", "PWD",
             "kv_cache.dtype", "AWS_ACCESS_KEY_ID"]
    assert [n for n in secret if not secret_name(n)] == []
    assert [n for n in shown if secret_name(n)] == []
    assert (hidden("x"), hidden(SECRET)) == ("<set, 1 char>", "<set, 39 chars>")


def test_a_record_message_never_fills_in_a_secret() -> None:
    facts = FactSet({"env.HF_TOKEN": Fact(SECRET, "env"), "kv_cache.dtype": Fact("fp8", "flag")})
    assert fill_message("token {fact:env.HF_TOKEN}, cache {fact:kv_cache.dtype}", facts) == \
        "token <set, 39 chars>, cache fp8"


def test_llama_stray_word_after_an_api_key_names_the_option(tmp_path: Path) -> None:
    (tmp_path / "serve.sh").write_text("llama-server -m x.gguf --api-key sk-9999 stray\n")
    # on a tabled build the stray word is definite (exit 1); with the build unknown, a build outside the tables may
    # take it (possible)
    code, doc, output = _json(str(tmp_path / "serve.sh"), "--select", "RL522", "--engine-version", "b11312")
    assert code == 1 and "sk-9999" not in output
    assert doc["findings"][0]["message"].startswith("`stray` after the value of `--api-key` is neither an option")


# -- writing --------------------------------------------------------------------------------------------------------

GUARD_S = 120  # a hang guard only: the command returns at once; nothing here measures time


def _relialint(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "relialint", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=GUARD_S, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})


@pytest.fixture
def capture(tmp_path: Path) -> Path:
    (tmp_path / "serve.sh").write_text("vllm serve m --max-model-length 4096\n")
    return ROOT / "tests" / "fixtures" / "probe" / "amd-smi-metric.csv"


@pytest.mark.parametrize("command", ["baseline", "facts"])
def test_writing_to_a_fifo_or_through_a_symlink_is_refused(tmp_path: Path, capture: Path, command: str) -> None:
    def write(target: str) -> subprocess.CompletedProcess[str]:
        if command == "baseline":
            return _relialint("serve.sh", "--write-baseline", target, cwd=tmp_path)
        return _relialint("probe", "--from-nvidia-smi", str(capture), "--write-facts", target, cwd=tmp_path)

    what = "cannot write the baseline" if command == "baseline" else "--write-facts"
    os.mkfifo(tmp_path / "fifo.json")
    done = write("fifo.json")
    assert (done.returncode, done.stderr) == (2, f"relialint: error: {what} fifo.json: not a regular file (a FIFO); "
                                                 "not written\n")
    (tmp_path / "link.json").symlink_to(tmp_path / "elsewhere.json")
    done = write("link.json")
    assert (done.returncode, done.stderr) == (2, f"relialint: error: {what} link.json: it is a symlink; relialint "
                                                 "does not write through one (name the file it points to, or remove "
                                                 "the link)\n")
    assert not (tmp_path / "elsewhere.json").exists() and (tmp_path / "link.json").is_symlink()


@pytest.mark.parametrize("command", ["baseline", "facts"])
def test_writing_replaces_the_file_atomically_and_keeps_its_mode(tmp_path: Path, capture: Path, command: str) -> None:
    target = tmp_path / "out.json"
    target.write_text("old\n")
    target.chmod(0o640)
    before = os.stat(target).st_ino
    if command == "baseline":
        done = _relialint("serve.sh", "--write-baseline", "out.json", cwd=tmp_path)
    else:
        done = _relialint("probe", "--from-nvidia-smi", str(capture), "--write-facts", "out.json", cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    assert json.loads(target.read_text())  # the new content, whole
    assert os.stat(target).st_ino != before  # a new file renamed over the old one, never rewritten in place
    assert os.stat(target).st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json", "serve.sh"]  # no temporary file left
