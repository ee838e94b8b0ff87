"""Start-up stays lean (issue 18): a run imports what the files of that run need, and nothing of the other paths.

Each case lints one shipped example in a fresh interpreter and lists which of the named modules were loaded. The
modules are the heavy ones (``dataclasses`` compiles methods with ``exec``; pydantic, ruamel.yaml and jsonschema
serve ``validate`` and the site), the readers and engines of the formats the file is not in, and click with the
standard-library modules it pulled in (inspect, ast, dis, tokenize, uuid, platform: about 20 ms of a run before the
command line moved to argparse).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

WATCHED = ("dataclasses", "difflib", "pydantic", "ruamel.yaml", "jsonschema", "tomllib", "packaging.specifiers",
           "relialint.kb.model", "relialint.kb.validate", "relialint.site.build", "relialint.lsp.server",
           "relialint.probe",
           "relialint.report.sarif", "relialint.readers.shell", "relialint.readers.compose",
           "relialint.readers.kubernetes", "relialint.readers.dockerfile", "relialint.readers.helm", "tree_sitter",
           "yaml", "relialint.engines.llamacpp", "click", "inspect", "ast", "dis", "tokenize", "uuid", "platform")

SCRIPT = """
import json, sys
sys.argv = ["relialint", *sys.argv[1:]]
from relialint.cli import main
try:
    main()
except SystemExit:
    pass
print(json.dumps([m for m in {watched!r} if m in sys.modules]), file=sys.stderr)
"""


@pytest.fixture(scope="module")
def cache_home(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A record cache of its own, filled once: the first run on a machine compiles the records (pydantic) and
    caches them; what start-up costs is every run after it."""
    home = str(tmp_path_factory.mktemp("cache"))
    subprocess.run([sys.executable, "-m", "relialint", "examples/serve-cmd.sh"], capture_output=True, cwd=ROOT,
                   env={**os.environ, "XDG_CACHE_HOME": home}, check=False)
    return home


def loaded(cache: str, *args: str, watched: tuple[str, ...] = WATCHED) -> list[str]:
    proc = subprocess.run([sys.executable, "-c", SCRIPT.format(watched=watched), *args], capture_output=True,
                          text=True, cwd=ROOT, check=False, env={**os.environ, "XDG_CACHE_HOME": cache})
    return list(json.loads(proc.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize(("example", "expected"), [
    ("examples/serve-cmd.sh", ["relialint.readers.shell", "tree_sitter"]),
    ("examples/compose.yaml", ["relialint.readers.compose", "yaml"]),
    ("examples/k8s-deployment.yaml", ["relialint.readers.kubernetes", "yaml"]),
])
def test_a_run_loads_only_what_its_file_needs(cache_home: str, example: str, expected: list[str]) -> None:
    assert loaded(cache_home, example, "--gpu", "RTX 4090") == expected


def test_a_json_report_loads_no_sarif_writer_and_no_record_model(cache_home: str) -> None:
    assert loaded(cache_home, "examples/compose.yaml", "--format", "json") == ["relialint.readers.compose", "yaml"]


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["check", "--help"], ["probe", "-h"],
                                  ["examples/serve-cmd.sh", "--os", "beos"]])
def test_version_help_and_usage_errors_load_no_command(cache_home: str, args: list[str]) -> None:
    """Printing the version, a help or a usage error imports nothing of the pipeline."""
    pipeline = ("relialint.run.lint", "relialint.run.config", "relialint.readers", "relialint.report",
                "relialint.kb.loader", "relialint.probe", "click")
    assert loaded(cache_home, *args, watched=WATCHED + pipeline) == []
