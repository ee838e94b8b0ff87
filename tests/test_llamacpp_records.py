"""llama.cpp records re-checked against the released code (issue 23): what each fires on, with what certainty and
where, on the builds the witnesses read (exact code, certainty, line and column)."""

from __future__ import annotations

from pathlib import Path

from relialint.run.lint import Finding, Options, Target, lint_text
from tests.test_launch_shapes import facts


def _rows(text: str, code: str, version: str | None = None, gpu: str | None = None, kind: str = "shell",
          name: str = "serve.sh") -> list[tuple[str, str, int, int]]:
    options = Options(target=Target(engine_version=version, gpu=gpu))
    found: list[Finding] = lint_text(text, name, kind, options).findings
    return [(f.code, f.certainty, f.line, f.column) for f in found if f.code == code]


# -- RL320: --kv-unified decides from b8502 ---------------------------------------------------------------------------


def test_kv_unified_switches_are_facts(tmp_path: Path) -> None:
    on, off = facts(tmp_path, "serve.sh", "llama-server -m /m.gguf -np 4 -kvu\n"
                                          "llama-server -m /m.gguf -np 4 --no-kv-unified\n")
    assert on["flag.llama.cpp.kv-unified"] == ("true", "flag", 1, 31)
    assert off["flag.llama.cpp.kv-unified"] == ("false", "flag", 2, 31)


def test_rl320_divides_without_a_unified_cache_on_every_witnessed_build() -> None:
    launch = "llama-server -m /m.gguf -c 8192 -np 4\n"
    assert _rows(launch, "RL320", "b5763") == [("RL320", "definite", 1, 33)]
    assert _rows(launch, "RL320", "b11312") == [("RL320", "definite", 1, 33)]
    assert _rows(launch, "RL320", "b8000") == [("RL320", "possible", 1, 33)]  # inside the 0.3.16-0.3.18 brackets


def test_rl320_kv_unified_gives_each_slot_the_whole_context_only_from_b8502() -> None:
    launch = "llama-server -m /m.gguf -c 8192 -np 4 --kv-unified\n"
    assert _rows(launch, "RL320", "b5763") == [("RL320", "definite", 1, 33)]  # the server still divided
    assert _rows(launch, "RL320", "b8000") == [("RL320", "possible", 1, 33)]
    assert _rows(launch, "RL320", "b9445") == []
    assert _rows(launch, "RL320") == [("RL320", "possible", 1, 33)]


def test_llama_arg_variables_set_their_options_from_the_tables(tmp_path: Path) -> None:
    """LLAMA_ARG_N_PARALLEL is --parallel's variable in every tabled build (data/llamacpp_flags.json): it sets
    flag.llama.cpp.parallel at the variable; the command line wins; a variable only some builds read (KV_UNIFIED)
    stays an env fact only."""
    (d,) = facts(tmp_path, "llama.env", "LLAMA_ARG_MODEL=/m.gguf\nLLAMA_ARG_N_PARALLEL=4\nLLAMA_ARG_CACHE_TYPE_V=q8_0\n"
                                         "LLAMA_ARG_KV_UNIFIED=1\n")
    assert d["flag.llama.cpp.parallel"] == ("4", "env", 2, 1)
    assert d["flag.llama.cpp.cache-type-v"] == ("q8_0", "env", 3, 1)
    assert d["flag.llama.cpp.model"] == ("/m.gguf", "env", 1, 1)
    assert "flag.llama.cpp.kv-unified" not in d
    assert d["env.LLAMA_ARG_KV_UNIFIED"] == ("1", "env", 4, 1)
    (s,) = facts(tmp_path, "serve.sh", "LLAMA_ARG_N_PARALLEL=4 llama-server -m /m.gguf -np 2\n")
    assert s["flag.llama.cpp.parallel"] == ("2", "flag", 1, 48)


def test_rl320_and_rl130_at_the_parallel_variable() -> None:
    env = "LLAMA_ARG_MODEL=/m.gguf\nLLAMA_ARG_CTX_SIZE=16384\nLLAMA_ARG_N_PARALLEL=4\n"
    assert _rows(env, "RL320", kind="env", name="llama.env") == [("RL320", "possible", 3, 1)]
    assert _rows(env, "RL320", "b5763", kind="env", name="llama.env") == [("RL320", "definite", 3, 1)]
    assert _rows(env, "RL130", kind="env", name="llama.env") == [("RL130", "possible", 3, 1)]


def test_model_file_name_after_an_unknown_directory(tmp_path: Path) -> None:
    """Only the directory is unknown (shell, systemd specifier, PowerShell): the file name gives the quantization,
    and model.name (unknown) locates the finding at the model word; nothing is expanded."""
    (sh,) = facts(tmp_path, "serve.sh", 'M="$HOME/models/Mistral-Nemo-Q6_K.gguf"\n'
                                        'llama-server --model "$M" -ngl 40\n')
    assert sh["model.quantization"] == ("gguf-q6_k", "inferred", 2, 22)
    assert sh["model.name"] == (None, "flag", 2, 22)
    assert sh["@notes"][0]["model.name"] == ("the file name Mistral-Nemo-Q6_K.gguf is written; the directory "
                                             "before it is not known")
    (unit,) = facts(tmp_path, "llama.service",
                    "[Service]\nExecStart=/usr/bin/llama-server -m %h/m/gemma-2-9b-Q6_K.gguf\n")
    assert unit["model.quantization"] == ("gguf-q6_k", "inferred", 2, 36)
    assert unit["model.name"] == (None, "flag", 2, 36)
    (ps,) = facts(tmp_path, "serve.ps1", '$Model = "$env:USERPROFILE\\m\\Phi-4-Q8_0.gguf"\n'
                                         "& llama-server.exe --model $Model -ngl 35\n")
    assert ps["model.quantization"] == ("gguf-q8_0", "inferred", 2, 28)
    (whole,) = facts(tmp_path, "serve.sh", 'llama-server -m "$HOME/models/$NAME" -ngl 40\n')  # no literal name
    assert "model.quantization" not in whole and "model.name" not in whole
    rows = _rows('M="$HOME/models/Mistral-Nemo-Q6_K.gguf"\nllama-server --model "$M" -ngl 40\n', "RL131")
    assert rows == [("RL131", "possible", 2, 22)]


CPU_BUILD = ("FROM ubuntu:24.04 AS build\n"
             "RUN git clone https://github.com/ggml-org/llama.cpp /src && cd /src \\\n"
             "    && cmake -B build -DGGML_NATIVE=OFF{extra} \\\n"
             "    && cmake --build build -j --target llama-server\n"
             "FROM ubuntu:24.04\n"
             "COPY --from=build /src/build/bin/ /opt/llama/bin/\n"
             'ENTRYPOINT ["/opt/llama/bin/llama-server", "-m", "/m/mistral-7b.Q4_K_M.gguf", "-ngl", "99"]\n')


def test_dockerfile_cmake_without_a_gpu_backend_builds_the_cpu_backend(tmp_path: Path) -> None:
    (d,) = facts(tmp_path, "Dockerfile", CPU_BUILD.format(extra=""))
    assert d["engine.backend"] == ("cpu", "build", 3, 8)
    assert _rows(CPU_BUILD.format(extra=""), "RL131", kind="dockerfile", name="Dockerfile") == []
    assert _rows(CPU_BUILD.format(extra=""), "RL108", kind="dockerfile", name="Dockerfile") == []
    (off,) = facts(tmp_path, "Dockerfile", CPU_BUILD.format(extra=" -DGGML_CUDA=OFF"))
    assert off["engine.backend"] == ("cpu", "build", 3, 8)
    (vk,) = facts(tmp_path, "Dockerfile", CPU_BUILD.format(extra=" -DGGML_VULKAN=ON"))
    assert vk["engine.backend"] == ("vulkan", "build", 3, 41)
    (cl,) = facts(tmp_path, "Dockerfile", CPU_BUILD.format(extra=" -DGGML_OPENCL=ON"))  # a backend not tabled
    assert "engine.backend" not in cl


def test_cmake_without_a_gpu_backend_outside_a_dockerfile_says_no_backend(tmp_path: Path) -> None:
    """A script may run on macOS, where Metal defaults to ON: only a Dockerfile's own build stage is Linux."""
    (d,) = facts(tmp_path, "build.sh", "cmake -B build -DGGML_NATIVE=OFF\n./build/bin/llama-server -m /m.gguf\n")
    assert "engine.backend" not in d


# -- RL131: a witnessed fix, with the builds between the sdists unknown ---------------------------------------------


VULKAN_Q4 = "services:\n  llm:\n    image: ghcr.io/ggml-org/llama.cpp:server-vulkan-{build}\n" \
            "    command: [\"-m\", \"/m/mistral-7b.{quant}.gguf\", \"-ngl\", \"{ngl}\"]\n"


def _vulkan(build: str, quant: str = "Q4_K_M", ngl: str = "99") -> list[tuple[str, str, int, int]]:
    return _rows(VULKAN_Q4.format(build=build, quant=quant, ngl=ngl), "RL131", kind="compose", name="compose.yaml")


def test_rl131_every_quantized_type_from_the_shader_refactor_to_the_fix() -> None:
    assert _vulkan("b3184") == [("RL131", "definite", 3, 12)]
    assert _vulkan("b3350", "Q8_0") == [("RL131", "definite", 3, 12)]
    assert _vulkan("b3400") == [("RL131", "possible", 3, 12)]  # between the sdists of b3350 and b3441
    assert _vulkan("b3441") == []
    assert _vulkan("b3078") == []
    assert _vulkan("b3281", "F16") == []
    assert _vulkan("b3281", ngl="0") == []


# -- RL231: one unconfirmed report on one Windows release -------------------------------------------------------------


def test_rl231_only_the_reported_build_is_definite() -> None:
    def windows(build: str) -> list[tuple[str, str, int, int]]:
        line = f"C:\\llama\\llama-{build}-bin-win-cuda-cu12.4-x64\\llama-server.exe -m C:\\m\\q.gguf -ot \"exps=CPU\"\n"
        return _rows(line, "RL231", kind="windows", name="serve.bat")

    assert windows("b5450") == [("RL231", "definite", 1, 78)]
    assert windows("b5500") == [("RL231", "possible", 1, 78)]
    assert windows("b5449") == [("RL231", "possible", 1, 78)]
    linux = ("services:\n  llm:\n    image: ghcr.io/ggml-org/llama.cpp:server-cuda-b5450\n"
             "    command: [\"-m\", \"/m/q.gguf\", \"-ot\", \"exps=CPU\"]\n")
    assert _rows(linux, "RL231", kind="compose", name="compose.yaml") == []  # the image runs Linux


# -- RL130: every GPU without fast FP16, any slot count that can batch 3 to 8 sequences ----------------------------


def test_rl130_gpus_without_fast_fp16() -> None:
    launch = "cmake -B build -DGGML_CUDA=ON\n./build/bin/llama-server -m /m/q.gguf -ngl 99 -fa -np 16\n"
    assert _rows(launch, "RL130", "b3138", "sm_61") == [("RL130", "definite", 2, 51)]
    assert _rows(launch, "RL130", "b3138", "sm_52") == [("RL130", "definite", 2, 51)]
    assert _rows(launch, "RL130", "b3138", "sm_60") == []  # compute capability 6.0 has fast FP16
    assert _rows(launch, "RL130", "b3184", "sm_61") == []
