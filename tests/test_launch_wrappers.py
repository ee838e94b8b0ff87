"""More launch shapes: Slurm ``srun``, ``conda run``, a Dockerfile entrypoint behind ``tini``/``gosu``/``dumb-init``,
a systemd unit that runs ``docker run`` or ``bash -c '...'``, and a SkyPilot task. Exact facts, with where each
came from."""

from __future__ import annotations

from pathlib import Path

from tests.test_launch_shapes import check, facts


def test_srun_runs_the_engine(tmp_path: Path) -> None:
    text = ("#!/bin/bash\n#SBATCH --gres=gpu:4\n"
            "srun -N 1 --gres gpu:4 --ntasks-per-node=1 vllm serve Qwen/Qwen3-8B --tensor-parallel-size 4\n")
    (dep,) = facts(tmp_path, "job.sh", text)
    assert dep["@"] == ("vllm", "shell", 3, None)
    assert dep["engine.name"] == ("vllm", "inferred", 3, 44)
    assert dep["model.name"] == ("Qwen/Qwen3-8B", "flag", 3, 55)
    assert dep["parallel.tensor"] == (4, "flag", 3, 69)


def test_conda_run_runs_the_engine(tmp_path: Path) -> None:
    (dep,) = facts(tmp_path, "serve.sh", "conda run -n vllm --no-capture-output vllm serve org/m --port 8000\n")
    assert dep["@"] == ("vllm", "shell", 1, None)
    assert dep["model.name"] == ("org/m", "flag", 1, 50)


def test_dockerfile_entrypoint_behind_tini_and_gosu(tmp_path: Path) -> None:
    text = ("FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n"
            "RUN pip3 install vllm==0.9.2\n"
            'ENTRYPOINT ["/usr/bin/tini", "--", "gosu", "app", "vllm", "serve"]\n'
            'CMD ["meta-llama/Llama-3.2-3B-Instruct", "--max-model-len", "8192"]\n')
    (dep,) = facts(tmp_path, "Dockerfile", text)
    assert dep["@"] == ("vllm", "dockerfile", 3, None)
    assert dep["engine.name"] == ("vllm", "inferred", 3, 51)
    assert dep["model.name"] == ("meta-llama/Llama-3.2-3B-Instruct", "flag", 4, 6)
    assert dep["limits.max_model_len"] == (8192, "flag", 4, 42)


def test_dockerfile_entrypoint_behind_dumb_init(tmp_path: Path) -> None:
    text = ('FROM vllm/vllm-openai:latest\nENTRYPOINT ["dumb-init", "--", "vllm", "serve"]\n'
            'CMD ["mistralai/Ministral-8B-Instruct-2410"]\n')
    (dep,) = facts(tmp_path, "Dockerfile", text)
    assert dep["@"] == ("vllm", "dockerfile", 2, None)
    assert dep["model.name"] == ("mistralai/Ministral-8B-Instruct-2410", "flag", 3, 6)


def test_systemd_unit_running_docker_run(tmp_path: Path) -> None:
    text = ("[Service]\nExecStartPre=-/usr/bin/docker rm -f vllm\n"
            "ExecStart=/usr/bin/docker run --rm --gpus all -e VLLM_USE_V1=1 vllm/vllm-openai:v0.10.2 "
            "--model org/m --max-model-len 16384\n")
    (dep,) = facts(tmp_path, "vllm.service", text)
    assert dep["@"] == ("vllm", "systemd", 3, None)
    assert dep["engine.version"] == ("0.10.2", "image", 3, 64)
    assert dep["env.VLLM_USE_V1"] == ("1", "env", 3, 50)
    assert dep["model.name"] == ("org/m", "flag", 3, 97)
    assert dep["limits.max_model_len"] == (16384, "flag", 3, 103)


def test_systemd_unit_running_a_bash_script_with_its_environment(tmp_path: Path) -> None:
    text = ("[Service]\nEnvironment=MODEL=google/gemma-3-12b-it\n"
            "ExecStart=/bin/bash -c 'source /opt/venv/bin/activate && exec vllm serve \"$MODEL\" --port 8000'\n")
    (dep,) = facts(tmp_path, "vllm.service", text)
    assert dep["@"] == ("vllm", "systemd", 3, None)
    assert dep["engine.name"] == ("vllm", "inferred", 3, 63)
    assert dep["model.name"] == ("google/gemma-3-12b-it", "flag", 3, 74)


def test_skypilot_task_setup_pins_and_accelerator_names_the_gpu(tmp_path: Path) -> None:
    text = ("resources:\n  accelerators: H100:1\n\nenvs:\n  MODEL_NAME: meta-llama/Llama-3.1-8B-Instruct\n\n"
            "setup: |\n  pip install vllm==0.10.1\n\nrun: |\n  vllm serve $MODEL_NAME --max-model-len 8192\n")
    (dep,) = facts(tmp_path, "task.yaml", text)
    assert dep["@"] == ("vllm", "skypilot", 11, None)
    assert dep["engine.version"] == ("0.10.1", "inferred", 8, 15)
    assert dep["gpu.model"] == ("H100", "manifest", 2, 17)
    assert dep["model.name"] == ("meta-llama/Llama-3.1-8B-Instruct", "flag", 11, 14)
    assert dep["limits.max_model_len"] == (8192, "flag", 11, 26)
    # issue 23: the vendor from the accelerator gives vLLM its backend, as other evidence of the vendor does
    assert dep["gpu.vendor"] == ("nvidia", "manifest", 2, 17)
    assert dep["engine.backend"] == ("cuda", "inferred", 2, 17)
    assert dep["@notes"][0]["engine.backend"] == "vLLM on nvidia runs the cuda backend"
    doc = check(tmp_path, "task.yaml", text)
    # the 0.10.1 wheel has FlashInfer only under its `flashinfer` extra, which this setup does not ask for
    assert [(f["code"], f["certainty"], f["line"], f["column"], f["missing_facts"]) for f in doc["findings"]
            if f["code"] == "RL122"] == [("RL122", "possible", 11, 3, ["engine.flashinfer"])]
    extra = text.replace("vllm==0.10.1", "'vllm[flashinfer]==0.10.1'")
    (dep,) = facts(tmp_path, "task.yaml", extra)
    assert dep["engine.flashinfer"] == (True, "inferred", 8, 15)
    assert [(f["code"], f["certainty"], f["missing_facts"]) for f in check(tmp_path, "task.yaml", extra)["findings"]
            if f["code"] == "RL122"] == [("RL122", "definite", [])]


def test_llamacpp_release_archive_gives_build_backend_and_target(tmp_path: Path) -> None:
    text = ("@echo off\r\n"
            "C:\\AI\\llama-b4500-bin-win-hip-x64-gfx1151\\llama-server.exe -m D:\\m-Q4_K_M.gguf -ngl 99\r\n")
    (dep,) = facts(tmp_path, "serve.bat", text)
    assert dep["@"] == ("llama.cpp", "batch", 2, None)
    assert dep["engine.version"] == ("b4500", "build", 2, 1)
    assert dep["engine.backend"] == ("hip", "build", 2, 1)
    assert dep["gpu.arch"] == ("gfx1151", "build", 2, 1)
    assert dep["host.os"] == ("windows", "inferred", 2, 1)
    (cpu,) = facts(tmp_path, "run.sh", "./llama-b6000-bin-ubuntu-x64/build/bin/llama-server -m m.gguf\n")
    assert cpu["engine.backend"] == ("cpu", "build", 1, 1)
    assert cpu["engine.version"] == ("b6000", "build", 1, 1)


def test_quadlet_exec_holds_the_arguments_as_written(tmp_path: Path) -> None:
    """A Quadlet ``Exec=`` is not an ``ExecStart=``: a leading ``-`` is the option's own, not systemd's prefix."""
    text = ("[Container]\nImage=ghcr.io/ggml-org/llama.cpp:server-vulkan\n"
            "Exec=-m /models/m-Q4_K_M.gguf -ngl 99 -c 16384\n")
    (dep,) = facts(tmp_path, "llama.container", text)
    assert dep["model.name"] == ("/models/m-Q4_K_M.gguf", "flag", 3, 9)
    assert dep["llama.ctx_size"] == (16384, "flag", 3, 39)


def test_cmake_amdgpu_target_names_the_gpu_arch(tmp_path: Path) -> None:
    text = ("cmake -S . -B build -DGGML_HIP=ON -DAMDGPU_TARGETS=gfx1151\ncmake --build build -j\n"
            "./build/bin/llama-server -m m-Q8_0.gguf -ngl 999\n")
    (dep,) = facts(tmp_path, "build.sh", text)
    assert dep["gpu.arch"] == ("gfx1151", "build", 1, 35)
    assert dep["engine.backend"] == ("hip", "build", 1, 21)


def test_llama_arg_model_names_the_model(tmp_path: Path) -> None:
    text = "HSA_OVERRIDE_GFX_VERSION=11.5.1\nLLAMA_ARG_MODEL=/m/gpt-oss-120b-mxfp4.gguf\n"
    (dep,) = facts(tmp_path, "llama.env", text)
    assert dep["model.name"] == ("/m/gpt-oss-120b-mxfp4.gguf", "env", 2, 1)
    assert dep["model.quantization"] == ("gguf-mxfp4", "inferred", 2, 1)
    assert dep["gpu.arch"] == ("gfx1151", "env", 1, 1)


def test_options_that_only_later_releases_have_give_the_version_range(tmp_path: Path) -> None:
    text = ("export VLLM_ATTENTION_BACKEND=FLASHINFER\n"
            "vllm serve Qwen/Qwen2.5-VL-7B-Instruct --language-model-only --max-model-len 32768\n")
    (dep,) = facts(tmp_path, "serve.sh", text)
    assert dep["engine.version_range"] == (">=0.17.0", "inferred", 2, 40)
    assert dep["@notes"][0]["engine.version_range"] == "--language-model-only exists only in vLLM 0.17.0-0.33.0"
    # a pin in the file says more than the options do
    (pinned,) = facts(tmp_path, "pinned.sh", "pip install vllm==0.20.0\nvllm serve org/m --language-model-only\n")
    assert "engine.version_range" not in pinned


def test_an_env_file_that_is_a_device_is_a_located_warning(tmp_path: Path) -> None:
    from relialint.run.lint import Options, lint_paths

    script = tmp_path / "run.sh"
    script.write_text("docker run --env-file /dev/zero vllm/vllm-openai:v0.30.0 --model m\n")
    run = lint_paths([str(script)], Options(isolated=True, follow_outside=True))  # /dev is outside the project
    assert [(w.line, w.column, w.message) for w in run.warnings] == [
        (1, 23, "--env-file /dev/zero: not a regular file (a device); not read; its variables are unknown")]
    assert len(run.deployments) == 1


def test_program_variables_resolve_from_literals_and_the_module_decides_an_unknown_interpreter(
        tmp_path: Path) -> None:
    """Issue 25: a program in a variable is the engine when the script assigns it a literal (an unknown directory
    keeps the file name) or the PATH lookup of a name (``$(command -v vllm)``); an interpreter the script cannot
    know still runs vLLM when its arguments are ``-m vllm.entrypoints.openai.api_server``; ``"$SRV" serve`` of an
    unknown program is no launch."""
    text = ("#!/bin/bash\n"
            "PYTHON=$(which python3)\n"
            "$PYTHON -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B --port 8001\n"
            'LLAMA_SERVER_BIN="$HOME/llama.cpp/build/bin/llama-server"\n'
            "exec ${LLAMA_SERVER_BIN} -m /m/a.gguf --port 8003\n"
            'VLLM="$(command -v vllm)"\n'
            '"$VLLM" serve Qwen/Qwen3-8B --port 8005\n'
            "$(which llama-server) -m /m/b.gguf\n"
            'SRV="$(get_server)"\n'
            '"$SRV" serve Qwen/Qwen3-8B --port 8006\n')
    first, second, third, fourth = facts(tmp_path, "serve.sh", text)
    assert first["@"] == ("vllm", "shell", 3, None)
    assert first["launch.form"] == ("api_server", "inferred", 3, 47)
    assert first["model.name"] == ("Qwen/Qwen3-8B", "flag", 3, 55)
    assert second["@"] == ("llama.cpp", "shell", 5, None)
    assert second["model.name"] == ("/m/a.gguf", "flag", 5, 29)
    assert third["@"] == ("vllm", "shell", 7, None)
    assert third["model.name"] == ("Qwen/Qwen3-8B", "flag", 7, 15)
    assert (fourth["@"], fourth["model.name"]) == (("llama.cpp", "shell", 8, None), ("/m/b.gguf", "flag", 8, 26))
