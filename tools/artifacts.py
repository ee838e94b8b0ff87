"""Released artifacts from the package registry, cached on disk: the vLLM and SGLang wheels and the llama-cpp-python
sdists (whose ``vendor/llama.cpp`` is the llama.cpp source of that build).

Only PyPI is contacted (its simple index in JSON form, PEP 691, and files.pythonhosted.org). A download goes to
``<cache>/pypi/<project>/<file>.part`` and resumes from there with an HTTP range request; the finished file is
checked against the sha256 the index publishes and only then renamed into place, so a file in the cache is always
the registry's file. ``RELIALINT_ARTIFACTS`` (default ``~/.cache/relialint-artifacts``) names the cache.

    python tools/artifacts.py list vllm                 # the releases the index holds, with the chosen file
    python tools/artifacts.py fetch vllm 0.20.0 0.21.0  # download (resumable) and verify
    python tools/artifacts.py fetch llama-cpp-python --all --since 0.2.70
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import re
import sys
import tarfile
import time
import urllib.request
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

INDEX = "https://pypi.org/simple/{project}/"
ACCEPT = "application/vnd.pypi.simple.v1+json"
CHUNK = 1 << 20


def cache_dir() -> Path:
    return Path(os.environ.get("RELIALINT_ARTIFACTS") or Path.home() / ".cache" / "relialint-artifacts")


@dataclass(frozen=True)
class Artifact:
    project: str
    version: str
    filename: str
    url: str
    sha256: str
    size: int

    @property
    def path(self) -> Path:
        return cache_dir() / "pypi" / self.project / self.filename


def _wheel_rank(filename: str) -> int | None:
    """Which wheel of a release stands for it: x86_64 Linux, the stable ABI first, then CPython 3.11, 3.10; a
    pure-Python wheel (SGLang until 0.5.10) when the release has no binary one."""
    if filename.endswith("-py3-none-any.whl"):
        return 9
    if not filename.endswith(".whl") or "x86_64" not in filename or "linux" not in filename:
        return None
    for rank, tag in enumerate(("-cp38-abi3-", "-cp311-cp311-", "-cp310-cp310-", "-cp39-cp39-", "-cp38-cp38-")):
        if tag in filename:
            return rank
    return None


def _version_of(project: str, filename: str) -> str | None:
    stem = re.sub(r"\.(tar\.gz|whl|zip)$", "", filename)
    prefix = project.replace("-", "_") + "-"
    if not stem.lower().startswith(prefix.lower()):
        return None
    return stem[len(prefix):].split("-")[0]


def index(project: str) -> dict[str, Artifact]:
    """Release -> the artifact that stands for it (sdist for llama-cpp-python, else the chosen wheel)."""
    request = urllib.request.Request(INDEX.format(project=project), headers={"Accept": ACCEPT})
    with urllib.request.urlopen(request, timeout=120) as response:
        files = json.load(response)["files"]
    want_sdist = project == "llama-cpp-python"
    best: dict[str, tuple[int, Artifact]] = {}
    for entry in files:
        if entry.get("yanked"):
            continue
        name = entry["filename"]
        version = _version_of(project, name)
        if version is None:
            continue
        rank = (0 if name.endswith(".tar.gz") else None) if want_sdist else _wheel_rank(name)
        if rank is None:
            continue
        art = Artifact(project, version, name, entry["url"], entry["hashes"]["sha256"], int(entry.get("size") or 0))
        if version not in best or rank < best[version][0]:
            best[version] = (rank, art)
    return {v: a for v, (_, a) in sorted(best.items(), key=lambda kv: _key(kv[0]))}


def _key(version: str) -> Version:
    try:
        return Version(version)
    except InvalidVersion:
        return Version("0")


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch(art: Artifact, retries: int = 5) -> Path:
    """The artifact on disk, downloaded (resuming a partial file) and verified against the index's sha256; two
    processes that want the same file take turns (a lock beside it), so neither writes over the other."""
    if art.path.exists():
        return art.path
    art.path.parent.mkdir(parents=True, exist_ok=True)
    with art.path.with_name(art.filename + ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if art.path.exists():
            return art.path
        return _download(art, retries)


def _download(art: Artifact, retries: int) -> Path:
    part = art.path.with_name(art.filename + ".part")
    for attempt in range(retries):
        have = part.stat().st_size if part.exists() else 0
        request = urllib.request.Request(art.url, headers={"Range": f"bytes={have}-"} if have else {})
        try:
            with urllib.request.urlopen(request, timeout=120) as response, part.open("ab" if have else "wb") as out:
                if have and response.status != 206:  # the server ignored the range: start again
                    out.truncate(0)
                while block := response.read(CHUNK):
                    out.write(block)
        except OSError as exc:
            print(f"  {art.filename}: {exc}; retrying ({attempt + 1}/{retries})", file=sys.stderr)
            time.sleep(2 * (attempt + 1))
            continue
        break
    digest = sha256_of(part)
    if digest != art.sha256:
        part.unlink()
        raise RuntimeError(f"{art.filename}: sha256 {digest} is not the index's {art.sha256}")
    part.rename(art.path)
    return art.path


def members(path: Path, prefix: str = "") -> Iterator[tuple[str, bytes]]:
    """(name, bytes) of every file in a wheel or sdist whose name (inside the package root) starts with ``prefix``.

    An sdist's names lose their first folder (``llama_cpp_python-0.3.7/``) so both kinds read alike."""
    if path.name.endswith(".whl"):
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                if not info.is_dir() and info.filename.startswith(prefix):
                    yield info.filename, archive.read(info)
        return
    with tarfile.open(path, "r:gz") as archive:
        for tar_info in archive:
            if not tar_info.isfile():
                continue
            name = tar_info.name.split("/", 1)[1] if "/" in tar_info.name else tar_info.name
            if name.startswith(prefix):
                handle = archive.extractfile(tar_info)
                if handle is not None:
                    yield name, handle.read()


def unpack(art: Artifact, suffixes: tuple[str, ...], prefix: str = "") -> Path:
    """The artifact's text files (by suffix) unpacked once under ``<cache>/src/<project>/<version>/``, for reading
    and grepping; a ``.done`` marker makes it resumable."""
    dest = cache_dir() / "src" / art.project / art.version
    if (dest / ".done").exists():
        return dest
    source = fetch(art)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with (dest.parent / f".{art.version}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (dest / ".done").exists():
            _unpack_into(dest, source, suffixes, prefix, art.sha256)
    return dest


def _unpack_into(dest: Path, source: Path, suffixes: tuple[str, ...], prefix: str, sha256: str) -> None:
    for name, data in members(source, prefix):
        if name.endswith(suffixes) and ".." not in name.split("/") and not name.startswith("/"):
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    dest.mkdir(parents=True, exist_ok=True)
    (dest / ".done").write_text(sha256 + "\n")


UNPACK = {
    "vllm": ((".py",), "vllm/"),
    "sglang": ((".py",), "sglang/"),
    "llama-cpp-python": ((".c", ".cc", ".cpp", ".h", ".hpp", ".cu", ".cuh", ".comp", ".metal", ".txt", ".cmake",
                          ".md", ".py", ".sh", ".glsl", ".m"), "vendor/llama.cpp/"),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    lister = sub.add_parser("list")
    lister.add_argument("project")
    fetcher = sub.add_parser("fetch")
    fetcher.add_argument("project")
    fetcher.add_argument("versions", nargs="*")
    fetcher.add_argument("--all", action="store_true")
    fetcher.add_argument("--since", help="with --all: only releases at or after this one")
    fetcher.add_argument("--unpack", action="store_true", help="also unpack the text sources under <cache>/src")
    fetcher.add_argument("--keep", action="store_true", help="keep the artifact after unpacking (default: keep)")
    args = parser.parse_args(argv)
    releases = index(args.project)
    if args.command == "list":
        for version, art in releases.items():
            print(version, art.filename, art.size, art.sha256)
        return 0
    wanted = list(releases) if args.all else args.versions
    if args.since:
        wanted = [v for v in wanted if _key(v) >= _key(args.since)]
    for version in wanted:
        art = releases.get(version)
        if art is None:
            print(f"{args.project} {version}: no artifact in the index", file=sys.stderr)
            return 2
        started = time.monotonic()
        fetch(art)
        if args.unpack and args.project in UNPACK:
            suffixes, prefix = UNPACK[args.project]
            unpack(art, suffixes, prefix)
        print(f"{args.project} {version}: {art.filename} {art.size} bytes sha256 {art.sha256} "
              f"({time.monotonic() - started:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
