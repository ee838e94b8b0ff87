"""Windows launchers (PowerShell arrays and splatting, batch expansion order) and phone scripts (Termux): what each
launcher passes and where it runs (issue 25)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from relialint.readers.opener import MemoryOpener
from relialint.run.files import read_file, reader
from relialint.run.lint import Options, lint_text

SPLAT = ('$Exe = "C:\\llama\\llama-server.exe"\n'
         '$Model = "D:\\gguf\\Qwen2.5-Coder-7B-Instruct-Q5_K_M.gguf"\n'
         "$ServerArgs = @(\n"
         '    "--model", $Model,   # the weights\n'
         '    "--n-gpu-layers", "99"\n'
         "    '--ctx-size', 16384\n"
         ")\n"
         "& $Exe @ServerArgs --port 8012\n"
         '$Inline = @("-m", $Model, "-c", "4096")\n'
         "& $Exe $Inline\n"
         "$Listed = '-m', $Model, '--port', 9000\n"
         "& $Exe @Listed\n")


def _facts(text: str, path: str) -> list[dict[str, tuple[object, str, int | None, int | None]]]:
    run = lint_text(text, path, "windows", Options())
    return [{k: (f.value, f.origin, f.line, f.column) for k, f in d.facts.facts.items()} for d in run.deployments]


def test_an_array_splatted_or_passed_gives_one_argument_per_element() -> None:
    first, second, third = _facts(SPLAT, "serve.ps1")
    assert first["model.name"] == ("D:\\gguf\\Qwen2.5-Coder-7B-Instruct-Q5_K_M.gguf", "flag", 4, 16)
    assert first["llama.n_gpu_layers"] == ("99", "flag", 5, 5)
    assert first["llama.ctx_size"] == (16384, "flag", 6, 5)
    assert first["flag.llama.cpp.port"] == ("8012", "flag", 8, 20)
    assert second["model.name"] == ("D:\\gguf\\Qwen2.5-Coder-7B-Instruct-Q5_K_M.gguf", "flag", 9, 19)
    assert second["llama.ctx_size"] == (4096, "flag", 9, 27)
    assert third["model.name"] == ("D:\\gguf\\Qwen2.5-Coder-7B-Instruct-Q5_K_M.gguf", "flag", 11, 17)
    assert third["flag.llama.cpp.port"] == ("9000", "flag", 11, 25)


def test_an_unknown_splat_is_any_number_of_words_not_a_stray_argument() -> None:
    run = lint_text('& "C:\\llama-b5120-bin-win-vulkan-x64\\llama-server.exe" @Rest -c 4096\n', "serve.ps1",
                    "windows", Options())
    (deployment,) = run.deployments
    assert deployment.facts.facts["llama.ctx_size"].value == 4096
    assert [f.code for f in run.findings if f.code in ("RL520", "RL522")] == []


PIECES = st.sampled_from([
    "$A = @(", ")", "(", '"--model", $M,', "'-c', 4096", "# note", "`", "@A", "$A", "& $E @A", "$E = \"x.exe\"",
    "set X=\"a b\"", 'set "Y=-ngl 99" z', "%X%", "%Y%", "%%", "^", "llama-server.exe -m %X% %Y%", "\"", "'", ",",
])


@settings(max_examples=80, deadline=None)
@given(st.lists(PIECES, max_size=30), st.sampled_from(["\n", "\r\n", " "]), st.sampled_from(["s.ps1", "s.bat"]))
def test_windows_reader_never_raises(pieces: list[str], joiner: str, name: str) -> None:
    read = reader("windows")
    assert read is not None
    result = read(joiner.join(pieces), name, MemoryOpener({}))
    assert result.path == name
    for command in result.commands:
        for word in command.argv:
            assert word.span.line >= 1 and word.span.column >= 1


TERMUX = ("#!/data/data/com.termux/files/usr/bin/bash\n"
          "pkg install -y git cmake clang\n"
          "cmake -B build -DGGML_OPENMP=OFF\n"
          "cmake --build build -j 8\n"
          "./build/bin/llama-server -m ~/models/Llama-3.2-3B-Instruct-Q4_0.gguf -ngl 99 -c 4096\n")


def test_a_termux_script_runs_on_android_and_its_plain_build_is_the_cpu_one() -> None:
    """Termux's interpreter path says Android (Linux), where a configure line with no GPU backend option builds the
    CPU backend; the same script without that interpreter leaves both open (macOS turns Metal on by default)."""
    run = lint_text(TERMUX, "phone.sh", "shell", Options())
    (deployment,) = run.deployments
    facts = deployment.facts.facts
    assert (facts["host.os"].value, facts["host.os"].origin, facts["host.os"].line, facts["host.os"].column) == \
        ("linux", "inferred", 1, 3)
    assert "Termux" in (facts["host.os"].note or "")
    assert (facts["engine.backend"].value, facts["engine.backend"].line) == ("cpu", 3)
    assert [f.code for f in run.findings if f.code in ("RL110", "RL131", "RL132", "RL230")] == []
    (plain,) = lint_text(TERMUX.replace("/data/data/com.termux/files/usr/bin/bash", "/bin/bash"), "phone.sh",
                         "shell", Options()).deployments
    assert plain.facts.facts.get("engine.backend") is None or plain.facts.facts["engine.backend"].value is None


def test_a_batch_files_own_arguments_are_any_words_not_stray_ones() -> None:
    """``%1`` (none or one word, the caller's) and ``%*`` (any number) may hold options: never "invalid argument"."""
    run = lint_text("@echo off\r\nllama-server.exe -m C:\\m\\q.gguf %1 %~2 %* --port 8080\r\n", "serve.bat", "windows",
                    Options())
    (deployment,) = run.deployments
    assert deployment.facts.facts["model.name"].value == "C:\\m\\q.gguf"
    assert deployment.facts.facts["flag.llama.cpp.port"].value == "8080"
    assert [f.code for f in run.findings if f.code in ("RL520", "RL522")] == []


def test_delayed_expansion_only_after_setlocal_enabledelayedexpansion() -> None:
    text = ("@echo off\r\nset MODEL=C:\\m\\q.gguf\r\nllama-server.exe -m !MODEL!\r\n"
            "setlocal EnableDelayedExpansion\r\nllama-server.exe -m !MODEL! -c 4096\r\n")
    first, second = lint_text(text, "serve.bat", "windows", Options()).deployments
    assert first.facts.facts["model.name"].value == "!MODEL!"  # plain text without delayed expansion, as cmd passes it
    assert (second.facts.facts["model.name"].value, second.facts.facts["model.name"].column) == ("C:\\m\\q.gguf", 21)


def test_an_array_splatted_many_times_keeps_the_command_to_its_word_bound() -> None:
    array = "$A = @(" + ", ".join(['"--x"'] * 5000) + ")\n"
    result = read_file(array + "& llama-server.exe " + "@A " * 2000 + "\n", "s.ps1", "windows", MemoryOpener({}))
    (command,) = result.commands
    assert len(command.argv) == 10_001  # 10,000 words and one unknown word standing for the rest
    assert [(e.line, e.message) for e in result.errors] == [
        (1, "a command of more than 10000 words; the rest of it is not read")]  # at the element, in the array


PATHS = st.text(alphabet="abcXYZ019 \\:._-()", min_size=1, max_size=40).filter(lambda v: v.strip() == v and v != "")


@settings(max_examples=60, deadline=None)
@given(PATHS)
def test_batch_model_paths_round_trip_through_either_set_form(path: str) -> None:
    """Whatever the path, ``set "M=PATH"`` + ``-m "%M%"`` and ``set M="PATH"`` + ``-m %M%`` pass PATH as one word."""
    for assign, use in (('set "M={}"', '"%M%"'), ('set M="{}"', "%M%")):
        text = f"{assign.format(path)}\r\nllama-server.exe -m {use} --port 8080\r\n"
        (deployment,) = lint_text(text, "serve.bat", "windows", Options()).deployments
        assert deployment.facts.facts["flag.llama.cpp.model"].value == path
        assert deployment.facts.facts["flag.llama.cpp.port"].value == "8080"
