"""tools/vllm_env_reads.py: the VLLM_* variables a vLLM wheel reads outside envs.environment_variables, in its
Python and in its compiled code (issue 22: VLLM_BATCH_INVARIANT read in batch_invariant.py of 0.11.1 through a name
bound to the string, VLLM_CUSTOM_ALLREDUCE_ALGO read by the all-reduce kernel of vllm/_C.abi3.so from 0.10.2)."""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

from tests.tools import load_tool

ROOT = Path(__file__).resolve().parents[1]


reads = load_tool("vllm_env_reads")


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "vllm" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_python_reads_follow_names_constants_imports_and_wrappers(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "__init__.py": "",
        # 0.11.1's form: the name bound to a local, then read
        "model_executor/layers/batch_invariant.py": (
            "import os\n"
            "def vllm_is_batch_invariant():\n"
            "    env_key = 'VLLM_BATCH_INVARIANT'\n"
            "    val = os.getenv(env_key, '0')\n"
            "    return int(val) != 0\n"),
        "consts.py": "SHM_NAME = 'VLLM_SHM_NAME'\nDEFAULT = 'VLLM_OBJECT_STORAGE_SHM_BUFFER'\n",
        "reader.py": (
            "from os import environ, getenv\n"
            "from .consts import SHM_NAME\n"
            "LOCAL = 'VLLM_MODULE_CONSTANT'\n"
            "a = getenv(LOCAL)\n"
            "b = environ.get(SHM_NAME)\n"
            "c = 'VLLM_IN_TEST' in environ\n"
            "def set_for_workers(env=None):\n"
            "    env = os.environ.copy()\n"
            "    env['VLLM_SET_FOR_WORKERS'] = '1'\n"
            "    del os.environ['VLLM_DELETED']\n"
            "    return env\n"),
        # a wrapper, and a wrapper of it (a method: self is not an argument of the call)
        "utils.py": (
            "import os\n"
            "def env_flag(name, default='0'):\n"
            "    return os.environ.get(name, default) == '1'\n"
            "class Knobs:\n"
            "    def knob(self, key):\n"
            "        return env_flag(key)\n"
            "    def use(self):\n"
            "        return self.knob('VLLM_THROUGH_A_METHOD')\n"
            "flag = env_flag('VLLM_THROUGH_A_WRAPPER')\n"),
        # not reads: a default value, a docstring, a set of names, another prefix, a computed name
        "other.py": (
            "import os\n"
            "def f(prefix):\n"
            "    '''os.environ[\"VLLM_IN_A_DOCSTRING\"] = \"1\"'''\n"
            "    skip = {'VLLM_HOST_PORT', 'LOCAL_RANK'}\n"
            "    os.getenv('VLLM_OBJ_NAME', 'VLLM_OBJECT_STORAGE_SHM_BUFFER')\n"
            "    os.getenv('HF_TOKEN')\n"
            "    return os.getenv(prefix + '_X'), skip\n"),
    })
    assert reads.python_reads(root) == {
        "VLLM_BATCH_INVARIANT": "vllm/model_executor/layers/batch_invariant.py",
        "VLLM_DELETED": "vllm/reader.py",
        "VLLM_IN_TEST": "vllm/reader.py",
        "VLLM_MODULE_CONSTANT": "vllm/reader.py",
        "VLLM_OBJ_NAME": "vllm/other.py",
        "VLLM_SET_FOR_WORKERS": "vllm/reader.py",
        "VLLM_SHM_NAME": "vllm/reader.py",
        "VLLM_THROUGH_A_METHOD": "vllm/utils.py",
        "VLLM_THROUGH_A_WRAPPER": "vllm/utils.py",
    }


def _elf(rodata: bytes, imports: list[bytes]) -> bytes:
    """A minimal 64-bit little-endian ELF shared object: .rodata, and a dynamic symbol table whose symbols are all
    undefined (imported)."""
    dynstr = b"\x00" + b"".join(name + b"\x00" for name in imports)
    symbols = [struct.pack("<IBBHQQ", 0, 0, 0, 0, 0, 0)]
    at = 1
    for name in imports:
        symbols.append(struct.pack("<IBBHQQ", at, 0x12, 0, 0, 0, 0))  # GLOBAL FUNC, st_shndx 0: undefined
        at += len(name) + 1
    dynsym = b"".join(symbols)
    names = [b"", b".shstrtab", b".rodata", b".dynstr", b".dynsym"]
    shstrtab = b"".join(n + b"\x00" for n in names)
    offsets = [shstrtab.index(n + b"\x00") if n else 0 for n in names]
    body = [shstrtab, rodata, dynstr, dynsym]
    data = bytearray(64)
    placed = []
    for blob in body:
        placed.append(len(data))
        data += blob
    shoff = len(data)
    kinds = [3, 1, 3, 11]  # STRTAB, PROGBITS, STRTAB, DYNSYM
    links = [0, 0, 0, 3]  # .dynsym's strings are section 3 (.dynstr)
    data += bytes(64)  # the null section
    for i, blob in enumerate(body):
        data += struct.pack("<IIQQQQIIQQ", offsets[i + 1], kinds[i], 0, 0, placed[i], len(blob), links[i], 0, 1,
                            24 if kinds[i] == 11 else 0)
    header = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    header += struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 0, shoff, 0, 64, 56, 0, 64, 5, 1)
    data[:64] = header
    return bytes(data)


RODATA = (b"\x00Invalid VLLM_CUSTOM_ALLREDUCE_ALGO: \x00VLLM_CUSTOM_ALLREDUCE_ALGO\x00set MY_VLLM_THING\x00"
          b"VLLM_lower\x00")


def test_a_library_that_calls_getenv_reads_its_own_vllm_strings() -> None:
    assert reads.library_reads(_elf(RODATA, [b"malloc", b"getenv"])) == {"VLLM_CUSTOM_ALLREDUCE_ALGO"}
    # the same strings in a library that never calls getenv are messages or data
    assert reads.library_reads(_elf(RODATA, [b"malloc"])) == set()
    assert reads.library_reads(b"not an ELF file") == set()


def test_compiled_reads_of_a_wheel(tmp_path: Path) -> None:
    wheel = tmp_path / "vllm-0.10.2-cp38-abi3-manylinux1_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("vllm/_C.abi3.so", _elf(RODATA, [b"getenv"]))
        archive.writestr("vllm/_moe_C.abi3.so", _elf(b"\x00VLLM_ONLY_A_MESSAGE\x00", [b"free"]))
        archive.writestr("vllm/envs.py", "'VLLM_IN_PYTHON'\n")
    assert reads.compiled_reads(wheel) == {"VLLM_CUSTOM_ALLREDUCE_ALGO": "vllm/_C.abi3.so"}
