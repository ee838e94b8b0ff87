"""docs/editors.md as written: its Neovim configuration, run headless in every ``nvim`` on the PATH (skipped where
there is none), gives a serve script, a compose file, a systemd unit and a ``.env.production`` file the diagnostics
``relialint check`` reports for them."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.work import HANG_S

pytestmark = pytest.mark.slow

DOC = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
SEVERITY = {"blocker": 1, "major": 2, "minor": 3}
UNIT = """\
[Unit]
Description=vLLM

[Service]
ExecStart=/usr/bin/vllm serve nvidia/Llama-3.3-70B-Instruct-FP4 --dtype bfloat16
Restart=always
"""
ENV = "# relialint: ignore[RL120]\nVLLM_LOGGING_LEVEL=INFO\n"
FILES = {
    "serve.sh": ((ROOT / "examples" / "serve-cmd.sh").read_text(encoding="utf-8"), "sh", ["RL101"]),
    "compose.yaml": ((ROOT / "examples" / "compose.yaml").read_text(encoding="utf-8"), "yaml",
                     ["RL107", "RL107", "RL113", "RL206", "RL206", "RL208", "RL221", "RL303", "RL303",
                      "RL322", "RL322"]),  # both services pull a hub id with no cache volume
    "vllm.service": (UNIT, "systemd", ["RL101"]),
    ".env.production": (ENV, "sh", ["RL001"]),
}
WAIT = """\
local done = vim.wait(HANG_MS, function() return #vim.diagnostic.get(0) > 0 end, 20)
local out = { filetype = vim.bo.filetype, waited = done, diagnostics = {} }
for _, d in ipairs(vim.diagnostic.get(0)) do
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
  table.insert(out.diagnostics, { code = code, line = d.lnum + 1, column = d.col + 1, severity = d.severity })
end
io.stdout:write("RESULT " .. vim.fn.json_encode(out) .. "\\n")
vim.cmd("qa!")
"""


def neovims() -> list[str]:
    found = shutil.which("nvim")
    return [found] if found else []


def documented_config() -> str:
    blocks = re.findall(r"```lua\n(.*?)```", DOC, re.DOTALL)
    assert len(blocks) == 1, "docs/editors.md has one Neovim configuration"
    return blocks[0]


def test_the_doc_has_one_neovim_configuration_with_the_filetype_additions() -> None:
    config = documented_config()
    assert 'extension = { service = "systemd", container = "systemd" }' in config
    assert 'pattern = { [".*/%.env%.[^/]+"] = "sh" }' in config
    assert 'cmd = { "relialint", "lsp" }' in config
    assert "must be on the `PATH` the editor sees" in DOC


def check(folder: Path, name: str) -> list[tuple[str, int, int, int]]:
    done = subprocess.run([sys.executable, "-m", "relialint.cli", "check", "--gpu", "H100", "--format", "json",
                           name], capture_output=True, text=True, cwd=folder)
    # what `check` lists: the editor shows the same by default, a possible finding one severity lower
    return [(f["code"], f["line"], f["column"], min(SEVERITY[f["severity"]] + (f["certainty"] == "possible"), 4))
            for f in json.loads(done.stdout)["findings"] if f["shown"]]


@pytest.mark.skipif(not neovims(), reason="no nvim on the PATH")
@pytest.mark.parametrize("name", list(FILES))
def test_the_documented_neovim_configuration(tmp_path: Path, name: str) -> None:
    (nvim,) = neovims()
    config = tmp_path / "init.lua"
    config.write_text(documented_config(), encoding="utf-8")
    # waits for the diagnostics up to the hang guard (a guard, not a measure of speed)
    (tmp_path / "wait.lua").write_text(WAIT.replace("HANG_MS", str(HANG_S * 1000)), encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    text, filetype, codes = FILES[name]
    (project / name).write_text(text, encoding="utf-8")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    for folder in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[folder] = str(tmp_path / folder.lower())
    done = subprocess.run([nvim, "--headless", "-u", str(config), "-c", f"luafile {tmp_path / 'wait.lua'}", name],
                          capture_output=True, text=True, cwd=project, env=env, timeout=HANG_S + 60)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert len(lines) == 1, (done.stdout, done.stderr)
    result = json.loads(lines[0].removeprefix("RESULT "))
    assert (result["filetype"], result["waited"]) == (filetype, True)
    got = sorted((d["code"], d["line"], d["column"], d["severity"]) for d in result["diagnostics"])
    assert sorted(code for code, *_ in got) == sorted(codes)
    assert got == sorted(check(project, name))  # what `relialint check` reports, at the same places
