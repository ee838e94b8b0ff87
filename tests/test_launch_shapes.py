"""Launch shapes from real repositories (written anew): `relialint facts` finds the deployment, its options with
their locations and the origin of each fact; other engines' launches give no deployment."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from relialint.readers import shell
from relialint.readers.located import exclusive
from relialint.readers.opener import MemoryOpener
from tests.cli_run import invoke, invoke_on_file

Row = tuple[Any, str, int | None, int | None]


def facts(tmp_path: Path, name: str, text: str, *args: str) -> list[dict[str, Row]]:
    result = invoke_on_file(tmp_path, name, text, ["facts", name, "--format", "json", *args])
    doc = json.loads(result.output)
    out = []
    for dep in doc["deployments"]:
        table: dict[str, Row] = {k: (v["value"], v["origin"], v.get("line"), v.get("column"))
                                 for k, v in dep["facts"].items()}
        table["@"] = (dep["engine"], dep["kind"], dep["line"], None)
        table["@notes"] = ({k: v["note"] for k, v in dep["facts"].items() if v.get("note")}, "", None, None)
        out.append(table)
    return out


def check(tmp_path: Path, name: str, text: str) -> dict[str, Any]:
    runner_cwd = os.getcwd()
    (tmp_path / name).write_text(text)
    os.chdir(tmp_path)
    try:
        result = invoke(["check", name, "--format", "json"])
    finally:
        os.chdir(runner_cwd)
    doc: dict[str, Any] = json.loads(result.output)
    return doc


# -- a program in a variable, arguments in an array, a command in a string --------------------------------------


def test_program_held_in_a_variable(tmp_path: Path) -> None:
    (d,) = facts(tmp_path, "run.sh", "BIN=/opt/llama/llama-server\n$BIN -m /m/q.gguf -ngl 99 --port 8080\n")
    assert d["@"] == ("llama.cpp", "shell", 2, None)
    assert d["engine.name"] == ("llama.cpp", "inferred", 2, 1)
    assert d["llama.n_gpu_layers"] == ("99", "flag", 2, 19)
    assert d["flag.llama.cpp.port"] == ("8080", "flag", 2, 27)
    assert d["llama.ubatch"] == (512, "default", None, None)  # every word is known: defaults hold


def test_program_path_under_an_unknown_directory(tmp_path: Path) -> None:
    script = ('LLAMA_BIN="$HOME_DIR/llama.cpp/build/bin/llama-server"\n'
              '"$LLAMA_BIN" -m /m/q.gguf -c 8192\n')
    (d,) = facts(tmp_path, "run.sh", script)
    assert d["engine.name"] == ("llama.cpp", "inferred", 2, 1)
    assert d["llama.ctx_size"] == (8192, "flag", 2, 27)


def test_arguments_in_a_bash_array_with_appends(tmp_path: Path) -> None:
    script = ("SERVER_BIN=/usr/local/bin/llama-server\n"
              "ARGS=(\n"
              "  -m /models/qwen3-8b-q4_k_m.gguf\n"
              "  --ctx-size 32768\n"
              ")\n"
              "ARGS+=(-ngl 40 -ub 256)\n"
              'exec "$SERVER_BIN" "${ARGS[@]}"\n')
    (d,) = facts(tmp_path, "run.sh", script)
    assert d["engine.name"] == ("llama.cpp", "inferred", 7, 6)
    assert d["model.name"] == ("/models/qwen3-8b-q4_k_m.gguf", "flag", 3, 6)
    assert d["model.quantization"] == ("gguf-q4_k_m", "inferred", 3, 6)
    assert d["llama.ctx_size"] == (32768, "flag", 4, 3)
    assert d["llama.n_gpu_layers"] == ("40", "flag", 6, 8)
    assert d["llama.ubatch"] == (256, "flag", 6, 16)
    assert d["llama.batch"] == (2048, "default", None, None)


def test_an_array_appended_in_a_branch_stays_open(tmp_path: Path) -> None:
    script = ("ARGS=(-m /m/q.gguf)\n"
              'if [ -n "$FA" ]; then ARGS+=(-fa on); fi\n'
              'llama-server "${ARGS[@]}"\n')
    (d,) = facts(tmp_path, "run.sh", script)
    assert d["model.name"] == ("/m/q.gguf", "flag", 1, 10)
    assert "llama.ubatch" not in d  # the branch may add options: no defaults assumed


def test_static_command_string_run_with_exec_and_eval(tmp_path: Path) -> None:
    script = ('CMD="vllm serve Qwen/Qwen2.5-7B-Instruct --gpu-memory-utilization 0.8"\n'
              "exec $CMD --max-model-len 4096\n"
              'LAUNCH="llama-server -m /m/q.gguf -ngl 20"\n'
              'eval "$LAUNCH"\n')
    first, second = facts(tmp_path, "run.sh", script)
    assert first["engine.name"] == ("vllm", "inferred", 1, 6)
    assert first["model.name"] == ("Qwen/Qwen2.5-7B-Instruct", "flag", 1, 17)
    assert first["memory.gpu_utilization"] == (0.8, "flag", 1, 42)
    assert first["limits.max_model_len"] == (4096, "flag", 2, 11)
    assert second["engine.name"] == ("llama.cpp", "inferred", 3, 9)
    assert second["llama.n_gpu_layers"] == ("20", "flag", 3, 35)


def test_command_string_with_unknown_parts_is_not_guessed(tmp_path: Path) -> None:
    assert facts(tmp_path, "run.sh", 'CMD="$(cat cmd.txt)"\nexec $CMD\neval "$OTHER"\n') == []


def test_docker_run_bash_lc_script_located_inside_the_string(tmp_path: Path) -> None:
    script = ("docker run --gpus all vllm/vllm-openai:v0.10.1 bash -lc \\\n"
              '  "pip install flashinfer && python3 -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B '
              '--max-model-len 8192"\n')
    (d,) = facts(tmp_path, "run.sh", script)
    assert d["@"] == ("vllm", "shell", 2, None)
    assert d["engine.name"] == ("vllm", "inferred", 2, 30)
    assert d["engine.version"] == ("0.10.1", "image", 1, 23)
    assert d["launch.form"][0] == "api_server"
    assert d["flag.vllm.model"] == ("Qwen/Qwen3-8B", "flag", 2, 76)
    assert d["model.name"] == ("Qwen/Qwen3-8B", "flag", 2, 84)
    assert d["limits.max_model_len"] == (8192, "flag", 2, 98)


def test_sh_c_on_the_host(tmp_path: Path) -> None:
    script = "MODEL=Qwen/Qwen3-8B\nexport MODEL\nsh -c 'vllm serve $MODEL --dtype half'\n"
    (d,) = facts(tmp_path, "run.sh", script)
    assert d["engine.name"] == ("vllm", "inferred", 3, 8)
    assert d["model.name"] == ("Qwen/Qwen3-8B", "flag", 3, 19)
    assert d["serve.dtype"] == ("float16", "flag", 3, 26)


def test_sh_c_does_not_see_unexported_variables(tmp_path: Path) -> None:
    (d,) = facts(tmp_path, "run.sh", "MODEL=Qwen/Qwen3-8B\nbash -c 'vllm serve \"$MODEL\"'\n")
    assert "model.name" not in d


# -- wrappers ---------------------------------------------------------------------------------------------------


def test_wrappers_are_looked_through(tmp_path: Path) -> None:
    script = ("gosu vllm vllm serve m1 --port 8001\n"
              "su-exec app:app vllm serve m2\n"
              "tini -s -- vllm serve m3\n"
              "dumb-init --single-child -- vllm serve m4\n"
              "numactl -N 0 -m 0 vllm serve m5\n"
              "taskset -c 0-7 nohup env VLLM_USE_V1=1 vllm serve m6 &\n"
              "podman run --device nvidia.com/gpu=all vllm/vllm-openai:v0.11.0 --model m7\n")
    found = facts(tmp_path, "run.sh", script)
    assert [d["model.name"] for d in found] == [
        ("m1", "flag", 1, 22), ("m2", "flag", 2, 28), ("m3", "flag", 3, 23), ("m4", "flag", 4, 40),
        ("m5", "flag", 5, 30), ("m6", "flag", 6, 51), ("m7", "flag", 7, 73)]
    assert found[5]["env.VLLM_USE_V1"] == ("1", "env", 6, 26)


def test_compose_entrypoint_tini_and_command_string(tmp_path: Path) -> None:
    compose = ("services:\n"
               "  api:\n"
               "    image: python:3.12-slim\n"
               '    entrypoint: ["/usr/bin/tini", "--"]\n'
               '    command: ["vllm", "serve", "m", "--enforce-eager"]\n'
               "  cpu:\n"
               "    image: vllm-cpu-optimized:latest\n"
               '    command: bash -c "vllm serve Qwen/Qwen2.5-0.5B --dtype bfloat16"\n')
    api, cpu = facts(tmp_path, "compose.yaml", compose)
    assert api["engine.name"] == ("vllm", "inferred", 5, 15)
    assert api["cuda_graphs.enabled"] == (False, "flag", 5, 37)
    assert cpu["engine.name"] == ("vllm", "inferred", 8, 23)
    assert cpu["model.name"] == ("Qwen/Qwen2.5-0.5B", "flag", 8, 34)
    assert cpu["serve.dtype"] == ("bfloat16", "flag", 8, 52)


def test_kubernetes_sh_c_args_and_a_registry_mirror(tmp_path: Path) -> None:
    manifest = ("apiVersion: v1\n"
                "kind: Pod\n"
                "metadata: {name: v}\n"
                "spec:\n"
                "  containers:\n"
                "    - name: vllm\n"
                "      image: registry.example.com/mirror/vllm-openai:v0.9.2\n"
                '      command: ["/bin/sh", "-c"]\n'
                "      args:\n"
                "        - |\n"
                "          vllm serve Qwen/Qwen3-8B \\\n"
                "            --kv-cache-dtype fp8\n")
    (d,) = facts(tmp_path, "pod.yaml", manifest)
    assert d["engine.version"] == ("0.9.2", "image", 7, 14)
    assert d["engine.name"] == ("vllm", "inferred", 11, 11)
    assert d["kv_cache.dtype"] == ("fp8", "flag", 12, 13)


def test_systemd_specifier_program_path(tmp_path: Path) -> None:
    unit = ("[Service]\n"
            "ExecStart=/usr/bin/numactl --cpunodebind=0 %h/llama.cpp/build/bin/llama-server -m %h/m.gguf -ngl 99\n")
    (d,) = facts(tmp_path, "llama.service", unit)
    assert d["engine.name"] == ("llama.cpp", "inferred", 2, 44)
    assert d["llama.n_gpu_layers"] == ("99", "flag", 2, 93)
    assert d["model.name"] == (None, "flag", 2, 83)  # %h is the user's home: unknown here, the file name is not


def test_truss_start_command(tmp_path: Path) -> None:
    config = ("model_name: qwen\n"
              "base_image:\n"
              "  image: vllm/vllm-openai:v0.12.0\n"
              "docker_server:\n"
              "  start_command: vllm serve {model} --max-model-len 8192 --enable-prefix-caching\n"
              "  server_port: 8000\n")
    (d,) = facts(tmp_path, "config.yaml", config)
    assert d["@"] == ("vllm", "truss", 5, None)
    assert d["engine.version"] == ("0.12.0", "image", 3, 10)
    assert d["limits.max_model_len"] == (8192, "flag", 5, 37)
    assert d["prefix_caching.enabled"] == (True, "flag", 5, 58)
    assert "model.name" not in d  # a template slot, not a model


# -- the engine from the options alone ---------------------------------------------------------------------------


def test_custom_images_with_options_only(tmp_path: Path) -> None:
    compose = ("services:\n"
               "  v:\n"
               "    image: ${IMAGE}\n"
               "    command: --model Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2 --gpu-memory-utilization 0.85\n"
               "  l:\n"
               "    image: llama-cpp-rocm-mi300x:latest\n"
               '    command: ["-m", "/models/q.gguf", "--ctx-size", "16384", "-ngl", "99"]\n'
               "  e:\n"
               "    image: my-vllm:dev\n"
               "    environment:\n"
               "      VLLM_USE_V1: '1'\n")
    v, l_, e = facts(tmp_path, "compose.yaml", compose)
    assert v["engine.name"] == ("vllm", "inferred", 4, 72)
    assert v["@notes"][0]["engine.name"] == ("inferred from --gpu-memory-utilization, an option only vllm has "
                                             "(the image does not say which engine)")
    assert v["parallel.tensor"] == (2, "flag", 4, 47)
    assert v["launch.form"][0] == "image"
    assert l_["engine.name"] == ("llama.cpp", "inferred", 7, 39)
    assert l_["@notes"][0]["engine.name"].startswith("inferred from --ctx-size, an option only llama.cpp has")
    assert l_["llama.ctx_size"] == (16384, "flag", 7, 39)
    assert e["engine.name"] == ("vllm", "inferred", 11, 7)
    assert e["@notes"][0]["engine.name"].startswith("inferred from VLLM_USE_V1, an environment variable only vllm")


def test_other_engines_are_not_taken_for_vllm_or_llamacpp(tmp_path: Path) -> None:
    compose = ("services:\n"
               "  sglang:\n"
               "    image: mirror.local/serving:latest\n"
               "    command: --model-path Qwen/Qwen3-8B --tensor-parallel-size 2 --mem-fraction-static 0.8\n"
               "  sglang_shared_only:\n"
               "    image: mirror.local/serving:latest\n"
               "    command: --tensor-parallel-size 2 --kv-cache-dtype fp8_e5m2\n"
               "  tgi:\n"
               "    image: mirror.local/tgi:2\n"
               "    command: --model-id x --max-total-tokens 4096 --max-input-length 2048\n"
               "  aphrodite:\n"
               "    image: alpindale/aphrodite-openai:latest\n"
               "    command: --model x --gpu-memory-utilization 0.9\n"
               "  aphrodite_env:\n"
               "    image: custom:1\n"
               "    command: --model x --gpu-memory-utilization 0.9\n"
               "    environment: [APHRODITE_LOG_LEVEL=debug]\n"
               "  ollama:\n"
               "    image: registry.local/llm:latest\n"
               "    environment: [OLLAMA_NUM_PARALLEL=4, OLLAMA_HOST=0.0.0.0]\n"
               "  trtllm:\n"
               "    image: custom/llm:1\n"
               "    command: --tp_size 2 --kv_cache_free_gpu_memory_fraction 0.9 --max_batch_size 8\n"
               "  lmdeploy:\n"
               "    image: custom/llm:2\n"
               "    command: --server-port 23333 --tp 2 --cache-max-entry-count 0.8\n"
               "  both:\n"
               "    image: custom/llm:3\n"
               "    command: --gpu-memory-utilization 0.9 -ngl 99\n")
    assert facts(tmp_path, "compose.yaml", compose) == []
    script = ("python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2\n"
              "text-generation-launcher --model-id x --num-shard 2\n"
              "ollama serve\n"
              "trtllm-serve Qwen/Qwen3-8B --tp_size 2\n"
              "lmdeploy serve api_server Qwen/Qwen3-8B --tp 2\n"
              "aphrodite run Qwen/Qwen3-8B --gpu-memory-utilization 0.9\n")
    # SGLang is an engine of its own: its launch is an SGLang deployment, never a vLLM one
    assert [dep["@"] for dep in facts(tmp_path, "run.sh", script)] == [("sglang", "shell", 1, None)]


# -- Windows ----------------------------------------------------------------------------------------------------


def test_windows_batch_file(tmp_path: Path) -> None:
    script = ("@echo off\r\n"
              "rem serve the model\r\n"
              "set MODEL_DIR=C:\\models\r\n"
              'set "LLAMA_ARG_FLASH_ATTN=on"\r\n'
              'start "" /b "C:\\llama.cpp\\llama-server.exe" -m %MODEL_DIR%\\qwen3-8b-Q4_K_M.gguf ^\r\n'
              "  -ngl 99 ^\r\n"
              "  -c 16384 --port 8080\r\n")
    (d,) = facts(tmp_path, "serve.bat", script)
    assert d["@"] == ("llama.cpp", "batch", 5, None)
    assert d["engine.name"] == ("llama.cpp", "inferred", 5, 13)
    assert d["host.os"] == ("windows", "inferred", 5, 13)
    assert d["model.name"] == ("C:\\models\\qwen3-8b-Q4_K_M.gguf", "flag", 5, 48)
    assert d["model.quantization"] == ("gguf-q4_k_m", "inferred", 5, 48)
    assert d["llama.n_gpu_layers"] == ("99", "flag", 6, 3)
    assert d["llama.ctx_size"] == (16384, "flag", 7, 3)
    assert d["llama.flash_attn"] == ("on", "env", 4, 6)


def test_windows_batch_program_beside_the_script(tmp_path: Path) -> None:
    (d,) = facts(tmp_path, "run.cmd", "%~dp0llama-server.exe -m %~dp0models\\q.gguf -ngl 33\n")
    assert d["engine.name"] == ("llama.cpp", "inferred", 1, 1)
    assert d["host.os"] == ("windows", "inferred", 1, 1)
    assert d["llama.n_gpu_layers"] == ("33", "flag", 1, 45)
    assert d["model.name"] == (None, "flag", 1, 26)  # the script's folder is not known here, the file name is


def test_windows_batch_expands_before_splitting_and_keeps_set_quotes_in_the_value(tmp_path: Path) -> None:
    """cmd: ``set VAR="x"`` keeps the quotes in the variable, ``set "VAR=x" rest`` stops at the last quote, and
    ``%VAR%`` is replaced before the line is split, so quotes group and blanks split (issue 25)."""
    script = ('set MODEL="C:\\My Models\\gemma-2-9b-it-Q6_K.gguf"\r\n'
              'set "OPTS=-ngl 99 -c 8192" ignored\r\n'
              "set EMPTY=\r\n"
              "set CARET=a^&b\"^x\"\r\n"
              "llama-server.exe -m %MODEL% %OPTS%%EMPTY% --port 8080\r\n")
    (d,) = facts(tmp_path, "serve.bat", script)
    assert d["env.MODEL"] == ('"C:\\My Models\\gemma-2-9b-it-Q6_K.gguf"', "env", 1, 5)
    assert d["env.OPTS"] == ("-ngl 99 -c 8192", "env", 2, 6)
    assert d["env.CARET"] == ('a&b"^x"', "env", 4, 5)  # a caret inside quotes is itself
    assert d["model.name"] == ("C:\\My Models\\gemma-2-9b-it-Q6_K.gguf", "flag", 5, 21)
    assert d["model.quantization"] == ("gguf-q6_k", "inferred", 5, 21)
    assert d["llama.n_gpu_layers"] == ("99", "flag", 5, 29)
    assert d["llama.ctx_size"] == (8192, "flag", 5, 29)
    assert d["flag.llama.cpp.port"] == ("8080", "flag", 5, 43)


def test_windows_powershell_script(tmp_path: Path) -> None:
    script = ("<# start llama-server #>\n"
              '$env:LLAMA_ARG_N_GPU_LAYERS = "99"\n'
              '$Model = "C:\\models\\q.gguf"\n'
              '& "C:\\llama\\llama-server.exe" -m $Model `\n'
              "  --ctx-size 8192 -ub 256\n"
              'Start-Process -FilePath "llama-server.exe" -ArgumentList "-m", "D:\\m.gguf", "-c", "4096"\n')
    first, second = facts(tmp_path, "serve.ps1", script)
    assert first["@"] == ("llama.cpp", "powershell", 4, None)
    assert first["host.os"] == ("windows", "inferred", 4, 3)
    assert first["llama.n_gpu_layers"] == ("99", "env", 2, 6)
    assert first["model.name"] == ("C:\\models\\q.gguf", "flag", 4, 34)
    assert first["llama.ubatch"] == (256, "flag", 5, 19)
    assert "env.Model" not in first  # a PowerShell variable is not the process environment
    assert second["engine.name"] == ("llama.cpp", "inferred", 6, 25)
    assert second["llama.ctx_size"] == (4096, "flag", 6, 78)


# -- env files, template names, other tools' YAML ----------------------------------------------------------------


def test_env_files(tmp_path: Path) -> None:
    (d,) = facts(tmp_path, "llama.env", "LLAMA_ARG_MODEL=/m/q.gguf\nLLAMA_ARG_CTX_SIZE=8192\n")
    assert d["@"] == ("llama.cpp", "env", 1, None)
    assert d["llama.ctx_size"] == (8192, "env", 2, 1)
    assert facts(tmp_path, "build.env", "VLLM_REPO_URL=https://example.com/vllm.git\nHF_TOKEN=x\n") == []
    # vLLM takes no options from the environment: an env file of VLLM_* settings launches nothing (issue 12); its
    # settings are checked where a launch loads it
    assert facts(tmp_path, "serve.env", "VLLM_USE_V1=0\n") == []


def test_template_suffixes_read_as_the_format_beneath(tmp_path: Path) -> None:
    (s,) = facts(tmp_path, "serve.sh.example", "vllm serve m --dtype half\n")
    assert s["serve.dtype"] == ("float16", "flag", 1, 14)
    (e,) = facts(tmp_path, "llama.env.template", "LLAMA_ARG_UBATCH=128\n")
    assert e["llama.ubatch"] == (128, "env", 1, 1)
    (c,) = facts(tmp_path, "compose.yaml.tpl", "services:\n  a:\n    image: vllm/vllm-openai:v0.11.0\n")
    assert c["engine.version"] == ("0.11.0", "image", 3, 12)


def test_other_tools_yaml_is_skipped_quietly(tmp_path: Path) -> None:
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    files = {
        ".pre-commit-config.yaml": "repos:\n  - repo: local\n    hooks: []\n",
        ".github/workflows/ci.yml": "on: [push]\njobs:\n  t:\n    runs-on: x\n    steps: [{run: pip install vllm}]\n",
        "mkdocs.yml": "site_name: docs\n",
        "Chart.yaml": "apiVersion: v2\nname: vllm\nversion: 0.1.0\n",
        "litellm.yaml": "model_list:\n  - model_name: m\n    litellm_params:\n      model: hosted_vllm/org/m\n",
        "weird.yaml": "server:\n  image: vllm/vllm-openai\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        text_out = invoke(["check", *files]).output
        json_out = json.loads(invoke(["check", "--format", "json", *files]).output)
    finally:
        os.chdir(cwd)
    assert text_out.splitlines() == [
        "weird.yaml:1:1: warning: not a compose file, Kubernetes manifest, Helm values or vLLM config; skipped",
        "6 files, 0 deployments: 0 definite, 0 possible, 0 errors, 5 files skipped: not a deployment",
    ]
    assert json_out["summary"]["skipped"] == 5


# -- issue 12: exclusive branches, a model-slot variable ----------------------------------------------------------


LEADER_WORKER = """#!/bin/bash
if [ "$ROLE" = "leader" ]; then
  vllm serve meta-llama/Llama-3.1-70B-Instruct --gpu-memory-utilization 0.9 -tp 8
else
  vllm serve meta-llama/Llama-3.1-70B-Instruct --gpu-memory-utilization 0.9 --headless
fi
"""


def test_branches_are_recorded_and_exclusive() -> None:
    script = LEADER_WORKER + "case $X in\n  a) vllm serve a ;;\n  b) vllm serve b ;;\nesac\nvllm serve c\n"
    commands = shell.read(script, "s.sh", MemoryOpener({})).commands
    assert [c.branch for c in commands] == [((2, 1, 0),), ((2, 1, 1),), ((7, 1, 0),), ((7, 1, 1),), ()]
    assert exclusive(commands[0].branch, commands[1].branch)
    assert exclusive(commands[2].branch, commands[3].branch)
    assert not exclusive(commands[0].branch, commands[2].branch)
    assert not exclusive(commands[0].branch, commands[4].branch)


def test_leader_and_worker_are_not_summed(tmp_path: Path) -> None:
    doc = check(tmp_path, "lw.sh", LEADER_WORKER)
    assert [f["code"] for f in doc["findings"] if f["code"] == "RL303"] == []
    (d, _) = facts(tmp_path, "lw.sh", LEADER_WORKER)
    assert d["memory.gpu_utilization_shared_total"] == (None, "inferred", None, None)
    together = LEADER_WORKER.replace("else\n", "fi\nif true; then\n")
    doc = check(tmp_path, "both.sh", together)
    # no version given: RL303 is witnessed on 0.6.0-0.33.0 only, so a newer release keeps it possible
    assert [(f["code"], f["certainty"], f["line"]) for f in doc["findings"] if f["code"] == "RL303"] == [
        ("RL303", "possible", 3), ("RL303", "possible", 6)]


TWO_ON_ONE_GPU = """#!/bin/bash
CUDA_VISIBLE_DEVICES=0 vllm serve meta-llama/Llama-3.2-3B-Instruct --gpu-memory-utilization 0.6 &
CUDA_VISIBLE_DEVICES=0 vllm serve Qwen/Qwen2.5-1.5B-Instruct --gpu-memory-utilization 0.5 &
wait
"""


def test_shared_total_reaches_the_version_worlds(tmp_path: Path) -> None:
    """Issue 23: the total is summed before the version worlds are built from the facts as stated, so with no
    version given RL303 waits on the version only, not on a total the file states."""
    first, second = facts(tmp_path, "two.sh", TWO_ON_ONE_GPU)
    assert first["memory.gpu_utilization_shared_total"] == (1.1, "inferred", 2, 68)
    assert second["memory.gpu_utilization_shared_total"] == (1.1, "inferred", 3, 62)
    doc = check(tmp_path, "two.sh", TWO_ON_ONE_GPU)
    assert [(f["code"], f["certainty"], f["line"], f["column"], f["missing_facts"]) for f in doc["findings"]
            if f["code"] == "RL303"] == [("RL303", "possible", 2, 68, ["engine.version"]),
                                         ("RL303", "possible", 3, 62, ["engine.version"])]
    # a total that leans on a version's default --gpu-memory-utilization stays unknown in the version worlds
    leaning = TWO_ON_ONE_GPU.replace(" --gpu-memory-utilization 0.5", "")
    doc = check(tmp_path, "leaning.sh", leaning)
    assert [(f["code"], f["line"], f["column"], f["missing_facts"]) for f in doc["findings"]
            if f["code"] == "RL303"] == [
        ("RL303", 2, 68, ["engine.version", "memory.gpu_utilization_shared_total"]),
        ("RL303", 3, 35, ["engine.version", "memory.gpu_utilization_shared_total"])]


def test_engines_that_can_sleep_may_take_turns(tmp_path: Path) -> None:
    """Issue 25: two servers on one GPU that can each be put to sleep (--enable-sleep-mode, with the /sleep route
    of VLLM_SERVER_DEV_MODE) may take turns: their total is not certain. Without dev mode nothing can put one to
    sleep, and one engine that never sleeps keeps the sum certain."""
    turns = "export VLLM_SERVER_DEV_MODE=1\n" + TWO_ON_ONE_GPU.replace(" &", " --enable-sleep-mode &")
    first, second = facts(tmp_path, "turns.sh", turns)
    assert "memory.gpu_utilization_shared_total" not in first
    assert first["memory.releasable"] == (True, "inferred", 3, 97)
    doc = check(tmp_path, "turns.sh", turns)
    assert [(f["code"], f["certainty"], f["line"], f["column"], f["missing_facts"]) for f in doc["findings"]
            if f["code"] == "RL303"] == [
        ("RL303", "possible", 3, 68, ["memory.gpu_utilization_shared_total"]),
        ("RL303", "possible", 4, 62, ["memory.gpu_utilization_shared_total"])]
    no_route = turns.replace("export VLLM_SERVER_DEV_MODE=1\n", "")
    first, second = facts(tmp_path, "no-route.sh", no_route)
    assert first["memory.releasable"] == (False, "inferred", None, None)
    assert first["memory.gpu_utilization_shared_total"] == (1.1, "inferred", 2, 68)
    one_awake = turns.replace("0.5 --enable-sleep-mode", "0.5")
    first, second = facts(tmp_path, "one-awake.sh", one_awake)
    assert second["memory.releasable"] == (False, "inferred", None, None)
    assert second["memory.gpu_utilization_shared_total"] == (1.1, "inferred", 4, 62)


def test_model_key_of_a_config_file_is_its_value(tmp_path: Path) -> None:
    """Issue 23: `model:` in a --config YAML expanded from the command line names the model by its value (not the
    key), located at the key with origin config-file; what the name gives away follows."""
    (tmp_path / "cfg.yaml").write_text("model: Qwen/Qwen3-30B-A3B-FP8\ntensor-parallel-size: 2\n")
    (d,) = facts(tmp_path, "serve.sh", "vllm serve --config cfg.yaml\n")
    assert d["model.name"] == ("Qwen/Qwen3-30B-A3B-FP8", "config-file", 1, 1)
    assert d["model.quantization"] == ("fp8", "inferred", 1, 1)
    assert d["model.moe"] == (True, "inferred", 1, 1)
    (e,) = facts(tmp_path, "pos.sh", "vllm serve Qwen/Qwen2.5-7B-Instruct --config cfg.yaml\n")
    assert e["model.name"] == ("Qwen/Qwen2.5-7B-Instruct", "flag", 1, 12)  # the positional wins for serve


def test_model_slot_variable_keeps_defaults(tmp_path: Path) -> None:
    (d,) = facts(tmp_path, "s.sh", "MODEL=$1\nvllm serve $MODEL --port 8000\n")
    assert d["kv_cache.dtype"] == ("auto", "default", None, None)
    assert d["serve.dtype"] == ("auto", "default", None, None)
    assert "model.name" not in d
    (e,) = facts(tmp_path, "s.sh", "vllm serve $MODEL $EXTRA_ARGS\n")
    assert "serve.dtype" not in e  # $EXTRA_ARGS may hold any option
    (f,) = facts(tmp_path, "s.sh", "llama-server -m $MODEL -ngl 99\n")
    assert f["llama.ubatch"] == (512, "default", None, None)


# -- the corpus: every launch recognised, no other engine taken for one -----------------------------------------

CORPUS = Path(__file__).parent / "fixtures" / "launch-corpus"


def test_launch_corpus() -> None:
    """Each file's engines, in order; `other-*` files (TGI, Ollama, TensorRT-LLM, LMDeploy, Aphrodite, KoboldCpp)
    must give none, `sglang-*` files an SGLang deployment and never a vLLM one."""
    found: dict[str, list[str]] = {}
    for path in sorted(CORPUS.iterdir()):
        result = invoke(["facts", str(path), "--format", "json"])
        found[path.name] = [d["engine"] for d in json.loads(result.output)["deployments"]]
    expected = {name: ([] if name.startswith("other-") else ["sglang"] if name.startswith("sglang-") else
                       ["llama.cpp"] if name.startswith("llama-") else ["vllm"]) for name in found}
    assert found == expected
    assert sum(1 for name in found if name.startswith("other-")) == 7
    assert sum(1 for engines in found.values() if engines) == 23


V092 = "docker run --gpus all vllm/vllm-openai:v0.9.2 --model Qwen/Qwen2.5-1.5B-Instruct\n"


def _rl122(tmp_path: Path, name: str, text: str, *args: str) -> list[tuple[str, int, int, list[str]]]:
    cwd = os.getcwd()
    (tmp_path / name).write_text(text)
    os.chdir(tmp_path)
    try:
        doc = json.loads(invoke(["check", name, "--format", "json", "--select", "RL122", *args]).output)
    finally:
        os.chdir(cwd)
    return [(f["certainty"], f["line"], f["column"], f["missing_facts"]) for f in doc["findings"]]


def test_v1_falls_back_to_v0_below_compute_capability_8(tmp_path: Path) -> None:
    """Issue 25: with VLLM_USE_V1 unset, 0.8.0-0.10.1.1 run V0 on a CUDA GPU below compute capability 8.0
    (EngineArgs._is_v1_supported_oracle). A GPU the file names decides engine.v1; one it does not name leaves the
    V1 records waiting on gpu.sm (decided in each GPU world), not on engine.v1."""
    (t4,) = facts(tmp_path, "t4.sh", V092, "--gpu", "T4")
    assert t4["engine.v1"] == (False, "default", None, None)
    assert t4["prefix_caching.enabled"] == (False, "default", None, None)
    (any_gpu,) = facts(tmp_path, "any.sh", V092)
    assert "engine.v1" not in any_gpu and "prefix_caching.enabled" not in any_gpu
    assert _rl122(tmp_path, "any.sh", V092) == [("possible", 1, 23, ["gpu.sm"])]
    assert _rl122(tmp_path, "t4.sh", V092, "--gpu", "T4") == []
    assert _rl122(tmp_path, "a100.sh", V092, "--gpu", "A100") == [("definite", 1, 23, [])]
    # VLLM_USE_V1=1 asks for V1 whatever the GPU; 0.10.2 has no fallback
    forced = V092.replace("--gpus all", "--gpus all -e VLLM_USE_V1=1")
    assert _rl122(tmp_path, "forced.sh", forced) == [("definite", 1, 40, [])]
    assert _rl122(tmp_path, "v0102.sh", V092.replace("v0.9.2", "v0.10.2")) == [("definite", 1, 23, [])]
