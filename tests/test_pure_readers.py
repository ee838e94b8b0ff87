"""Readers and engine models are pure functions of (text, path, opener): no module under ``readers/`` or
``engines/`` touches the file system itself (checked on the source with ``ast``), and a reader given an in-memory
opener reads the files it names from that opener only, with exact facts and locations."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from relialint.engines import extract
from relialint.readers import compose, helm, systemd
from relialint.readers.opener import FileOpener, MemoryOpener, Opened
from relialint.run.files import read_file
from relialint.run.lint import finish

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "relialint"

DISK_METHODS = frozenset({
    "read_text", "read_bytes", "write_text", "write_bytes", "listdir", "scandir", "lexists", "exists", "is_file",
    "is_dir", "is_symlink", "islink", "isfile", "isdir", "ismount", "iterdir", "glob", "rglob", "realpath",
    "readlink", "stat", "lstat", "fstat", "getcwd", "cwd", "touch", "mkdir", "makedirs", "rmdir", "unlink", "chmod",
    "resolve", "absolute", "samefile", "expanduser",
})
"""Methods that ask the file system, whatever object they are called on (``Path``, ``os``, ``os.path``)."""
PURE_OS = frozenset({"path.join", "path.basename", "path.dirname", "path.split", "path.splitext", "path.normcase",
                     "fspath", "fsencode", "fsdecode"})
"""Functions of ``os`` / ``os.path`` that only compute with strings."""
DISK_MODULES = frozenset({"relialint.run.reach", "relialint.disk", "relialint.run.files", "relialint.base.cache",
                          "relialint.run.config", "relialint.run.lint", "shutil", "glob", "tempfile", "io",
                          "subprocess"})
"""Modules whose job is to read or write the disk (or run something that does)."""

ALLOWED = {
    ("engines/flagcheck.py", "from pathlib import Path"): "the shipped option tables (package data)",
    ("engines/flagcheck.py", "Path(__file__).resolve()"): "the same table's folder",
    ("engines/flagcheck.py", "(DATA / TABLES[engine][0]).read_text(encoding='utf-8')"): "an engine's table (vLLM, "
                                                                                      "SGLang)",
    ("engines/flagcheck.py", "(DATA / TABLES[engine][0]).is_file()"): "whether that table is shipped",
    ("engines/llamacpp_flags.py", "from pathlib import Path"): "the shipped llama.cpp option table (package data)",
    ("engines/llamacpp_flags.py", "Path(__file__).resolve()"): "the same table's folder",
    ("engines/llamacpp_flags.py", "(DATA / 'llamacpp_flags.json').read_text(encoding='utf-8')"): "the same table",
    ("engines/model_name.py", "from pathlib import Path"): "the cache key of derived model-name data (its own "
                                                           "source file), not input",
    ("engines/model_name.py", "from relialint.base import cache"): "the on-disk cache of names already read (derived "
                                                              "data, never a linted file)",
    ("engines/model_families.py", "from pathlib import Path"): "the shipped model-family table (package data)",
    ("engines/model_families.py", "Path(__file__).resolve()"): "the same table's folder",
    ("engines/model_families.py", "DATA.read_text(encoding='utf-8')"): "the same table",
    ("engines/model_families.py", "from relialint.base import cache"): "the on-disk cache of the parsed table "
                                                                      "(derived data, never a linted file)",
    ("engines/manifest_facts.py", "hardware.resolve(name)"): "the GPU catalogue's lookup of a GPU name (a method "
                                                            "named like Path.resolve; it reads no file)",
}
"""The named exceptions: reads of relialint's own data, never of a file the user lints."""


def _disk_uses(tree: ast.AST) -> list[str]:
    """Every place a module asks the file system, as source text."""
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(f"import {a.name}" for a in node.names
                         if a.name in DISK_MODULES or a.name == "pathlib" or a.name.startswith("os.path"))
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            names = [a.name for a in node.names]
            if module in DISK_MODULES or (module == "pathlib" and "Path" in names) \
                    or (module == "os" and set(names) - {"environ", "sep", "fspath"}):
                found.append(f"from {module} import {', '.join(names)}")
            found.extend(f"from {module} import {name}" for name in names if f"{module}.{name}" in DISK_MODULES)
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id == "open":
                found.append(ast.unparse(node))
            elif isinstance(func, ast.Attribute):
                receiver = ast.unparse(func.value)
                if func.attr in DISK_METHODS or (receiver in ("os", "os.path", "io", "builtins", "codecs") \
                        and f"{receiver}.{func.attr}".removeprefix("os.") not in PURE_OS):
                    found.append(ast.unparse(node))
    return found


def _modules() -> list[Path]:
    return sorted([*PACKAGE.glob("readers/**/*.py"), *PACKAGE.glob("engines/**/*.py")])


def test_the_checker_sees_what_it_must() -> None:
    """Each kind of file-system use the rule names is caught (the check itself is not vacuous)."""
    source = ("import os\nimport shutil\nfrom pathlib import Path, PurePath\nfrom relialint.base import cache\n"
              "open('x')\nos.stat('x')\nos.path.lexists('x')\nPath('x').read_text()\nPath('.').iterdir()\n"
              "os.path.join('a', 'b')\nPurePath('a') / 'b'\nos.environ.get('X')\n")
    assert _disk_uses(ast.parse(source)) == [
        "import shutil", "from pathlib import Path, PurePath", "from relialint.base import cache", "open('x')",
        "os.stat('x')", "os.path.lexists('x')", "Path('x').read_text()", "Path('.').iterdir()"]


def test_no_reader_or_engine_touches_the_file_system() -> None:
    found = {(str(path.relative_to(PACKAGE)), use) for path in _modules()
             for use in _disk_uses(ast.parse(path.read_text(encoding="utf-8")))}
    assert len(_modules()) > 30
    assert sorted(found - set(ALLOWED)) == []
    assert sorted(set(ALLOWED) - found) == []  # an exception no longer needed is removed from the list


# -- readers given an in-memory opener ------------------------------------------------------------------------------


class Recording(MemoryOpener):
    """A dictionary of files that also records every path asked for."""

    def __init__(self, files: dict[str, str]) -> None:
        super().__init__(files)
        self.asked: list[str] = []

    def read(self, path: str) -> Opened:
        self.asked.append(path)
        return super().read(path)


def _env(result_env: list) -> list[tuple[str, str | None, str, int, int]]:  # type: ignore[type-arg]
    return [(v.name, v.value, v.span.path, v.span.line, v.span.column) for v in result_env]


COMPOSE = """services:
  vllm:
    image: vllm/vllm-openai:v0.9.2
    command: --model ${MODEL} --max-model-len 8192
    env_file: ./vllm.env
"""


def test_compose_reads_env_file_and_dotenv_from_the_opener_only(tmp_path: Path) -> None:
    # files of the same names on disk say something else: the opener is the only source
    (tmp_path / ".env").write_text("MODEL=from/disk\n")
    (tmp_path / "vllm.env").write_text("VLLM_ATTENTION_BACKEND=XFORMERS\n")
    path = str(tmp_path / "compose.yaml")
    opener = Recording({str(tmp_path / ".env"): "# models\nMODEL=Qwen/Qwen3-8B\n",
                        str(tmp_path / "vllm.env"): "HF_TOKEN=x\nVLLM_ATTENTION_BACKEND=FLASHINFER\n"})
    result = compose.read(COMPOSE, path, opener)
    assert result.errors == []
    (command,) = result.commands
    assert [w.text for w in command.argv] == ["--model", "Qwen/Qwen3-8B", "--max-model-len", "8192"]
    model = command.argv[1]
    assert (model.span.line, model.span.column, model.source) == (
        4, 22, (str(tmp_path / ".env"), 2, 1, 2, 20))
    assert _env(command.env) == [("HF_TOKEN", "x", str(tmp_path / "vllm.env"), 1, 1),
                                 ("VLLM_ATTENTION_BACKEND", "FLASHINFER", str(tmp_path / "vllm.env"), 2, 1)]
    assert result.used_files == [str(tmp_path / ".env"), str(tmp_path / "vllm.env")]
    assert set(opener.asked) == {str(tmp_path / ".env"), str(tmp_path / "vllm.env")}


def test_compose_env_file_missing_from_the_opener_is_not_found() -> None:
    result = compose.read(COMPOSE, "deploy/compose.yaml", MemoryOpener({}))
    assert [(e.path, e.line, e.column, e.message, e.severity) for e in result.errors] == [
        ("deploy/compose.yaml", 5, 15, "env_file ./vllm.env not found; its variables are unknown", "warning")]
    (command,) = result.commands
    assert command.env_complete is False
    assert [w.text for w in command.argv] == ["--model", None, "--max-model-len", "8192"]


def test_compose_builds_the_dockerfile_the_opener_holds() -> None:
    text = "services:\n  api:\n    build: ./img\n"
    opener = MemoryOpener({"d/img/Dockerfile": 'FROM vllm/vllm-openai:v0.10.0\nCMD ["--model", "m"]\n'})
    result = compose.read(text, "d/compose.yaml", opener)
    assert result.errors == []
    (command,) = result.commands
    assert command.image is not None and command.image.text == "vllm/vllm-openai:v0.10.0"
    assert (command.image.span.line, command.image.span.column, command.image.source) == (
        3, 12, ("d/img/Dockerfile", 1, 6, 1, 30))
    assert [(w.text, w.source) for w in command.argv] == [("--model", ("d/img/Dockerfile", 2, 6, 2, 15)),
                                                          ("m", ("d/img/Dockerfile", 2, 17, 2, 20))]
    assert result.used_files == ["d/img/Dockerfile"]


class Refusing(MemoryOpener):
    """An opener whose run limits refuse every named file (outside the project root)."""

    def refusal(self, path: str, referrer: str) -> str | None:
        return "outside the project root /p, so not read"


def test_a_refused_file_is_a_located_warning_and_unknown() -> None:
    result = compose.read(COMPOSE, "c/compose.yaml", Refusing({"c/vllm.env": "A=1\n", "c/.env": "MODEL=m\n"}))
    assert [(e.line, e.column, e.message) for e in result.errors] == [
        (1, 1, ".env cannot be read: outside the project root /p, so not read; its variables are unknown"),
        (5, 15, "env_file ./vllm.env cannot be read: outside the project root /p, so not read; its variables "
                "are unknown")]
    assert result.used_files == []


UNIT = """[Unit]
Description=vLLM

[Service]
EnvironmentFile=/etc/vllm/vllm.env
ExecStart=/usr/bin/vllm serve $MODEL --dtype ${DTYPE}
"""


def test_systemd_environment_file_comes_from_the_opener() -> None:
    # an absolute EnvironmentFile names the machine the unit runs on: read as the file of that name beside the unit
    opener = Recording({"units/vllm.env": "MODEL=meta-llama/Llama-3.1-8B\nDTYPE=half\n"})
    result = systemd.read(UNIT, "units/vllm.service", opener)
    assert result.errors == []
    (command,) = result.commands
    assert [w.text for w in command.argv] == ["/usr/bin/vllm", "serve", "meta-llama/Llama-3.1-8B", "--dtype",
                                              "half"]
    assert _env(command.env) == [("MODEL", "meta-llama/Llama-3.1-8B", "units/vllm.env", 1, 1),
                                 ("DTYPE", "half", "units/vllm.env", 2, 1)]
    assert [(w.span.line, w.span.column, w.source) for w in command.argv[2:5:2]] == [
        (6, 31, ("units/vllm.env", 1, 1, 1, 30)), (6, 46, ("units/vllm.env", 2, 1, 2, 11))]
    assert result.used_files == ["units/vllm.env"]
    assert opener.asked == ["units/vllm.env"]  # one read: nothing asks the disk beside it


def test_systemd_relative_environment_file_missing_is_a_warning() -> None:
    unit = "[Service]\nEnvironmentFile=vllm.env\nExecStart=vllm serve m\n"
    result = systemd.read(unit, "u/vllm.service", MemoryOpener({}))
    assert [(e.path, e.line, e.column, e.message) for e in result.errors] == [
        ("u/vllm.service", 2, 17, "EnvironmentFile vllm.env not found; its variables are unknown")]


VALUES = """servingEngineSpec:
  modelSpec:
  - name: llama
    repository: vllm/vllm-openai
    tag: v0.8.5
    modelURL: meta-llama/Llama-3.1-8B-Instruct
    requestGPU: 1
    vllmConfig:
      maxNumSeqs: 32
"""
STACK_012 = "name: vllm-stack\nversion: 0.1.2\n"
UMBRELLA = "name: umbrella\nversion: 3.0.0\ndependencies:\n- name: vllm-stack\n  version: 0.1.5\n"


@pytest.mark.parametrize(("chart", "expected", "argv"), [
    (STACK_012, ("vllm-stack", "0.1.2"), ["meta-llama/Llama-3.1-8B-Instruct", "--max-num-seqs", "32"]),
    (UMBRELLA, ("vllm-stack", "0.1.5"), ["meta-llama/Llama-3.1-8B-Instruct", "--max-num-seqs", "32"]),
    # no Chart.yaml in the opener (one on disk would not count): the current template, which turns prefix
    # caching off unless asked
    (None, (None, None), ["meta-llama/Llama-3.1-8B-Instruct", "--no-enable-prefix-caching", "--max-num-seqs", "32"]),
])
def test_helm_values_read_chart_yaml_from_the_opener(chart: str | None, expected: tuple[str | None, str | None],
                                                     argv: list[str]) -> None:
    from relialint.readers import helm_stack
    from relialint.readers.helmvalues import chart_beside

    files = {} if chart is None else {"h/Chart.yaml": chart}
    found = chart_beside("h/values.yaml", helm_stack.CHART, MemoryOpener(files))
    assert (found.name, found.version) == expected
    result = helm.read(VALUES, "h/values.yaml", MemoryOpener(files))
    assert result.errors == []
    (command,) = result.commands
    assert [w.text for w in command.argv] == argv
    assert (command.argv[-1].span.line, command.argv[-1].span.column) == (9, 19)


def test_helm_values_chart_yml_is_the_second_name_tried() -> None:
    from relialint.readers.helmvalues import chart_beside

    opener = Recording({"h/Chart.yml": "name: vllm-stack\nversion: 0.1.3\n"})
    found = chart_beside("h/values.yaml", "vllm-stack", opener)
    assert (found.name, found.version, opener.asked) == ("vllm-stack", "0.1.3", ["h/Chart.yaml", "h/Chart.yml"])


def test_an_engine_reads_vllm_config_through_the_same_opener() -> None:
    opener = MemoryOpener({"s/cfg.yaml": "kv_cache_dtype: fp8\n"})
    result = read_file("vllm serve m --config cfg.yaml\n", "s/serve.sh", "shell", opener)
    (deployment,) = extract(result, opener)
    finish(deployment)
    fact = deployment.facts.facts["kv_cache.dtype"]
    assert (fact.value, fact.origin, fact.path, fact.line, fact.column) == ("fp8", "config-file", "s/cfg.yaml", 1, 1)


def test_docker_run_env_file_in_a_shell_script_comes_from_the_opener() -> None:
    opener = MemoryOpener({"s/run.env": "VLLM_USE_V1=0\n"})
    result = read_file("docker run --gpus all --env-file run.env vllm/vllm-openai:v0.9.2 --model m\n", "s/run.sh",
                       "shell", opener)
    assert result.errors == []
    (command,) = result.commands
    assert _env(command.env) == [("VLLM_USE_V1", "0", "s/run.env", 1, 1)]


def test_bounds_apply_to_text_from_memory() -> None:
    from relialint.readers.located import MAX_FILE_BYTES

    opened = MemoryOpener({"a/big.env": "A=" + "x" * MAX_FILE_BYTES}).open("a/x.sh", "big.env")
    assert (opened.text, opened.error is not None and opened.error.message) == (
        None, f"file too large ({MAX_FILE_BYTES + 2} bytes; the limit is {MAX_FILE_BYTES})")
    opened = MemoryOpener({"a/bad.env": "A=\ud800\n"}).open("a/x.sh", "bad.env")
    assert opened.error is not None and (opened.error.line, opened.error.column) == (1, 3)


def test_the_engine_form_of_an_opener() -> None:
    """Engines call the opener: ``(text, path)``, ``None`` when it cannot be read, the ``ReadError`` when the
    run's limits left it unread."""
    assert MemoryOpener({"a/c.yaml": "x: 1\n"})("a/s.sh", "c.yaml") == ("x: 1\n", "a/c.yaml")
    assert MemoryOpener({})("a/s.sh", "c.yaml") is None
    refused = Refusing({"a/c.yaml": "x: 1\n"})("a/s.sh", "c.yaml")
    assert not isinstance(refused, tuple | type(None)) and refused.message.startswith("outside")
    assert isinstance(FileOpener().open("a", "b"), Opened)
