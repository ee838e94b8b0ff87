"""Issue 29's "my setup" acceptance in a real headless Chromium: for the five setups (H100 + vLLM 0.30.0, RTX 4090 +
vLLM 0.10.1, B200 + vLLM 0.23.0, Strix Halo + llama.cpp b6000 on Linux, MI300X + vLLM 0.11.0) the page, opened by
its shareable URL, lists exactly the records ``relialint check`` reports for the engine's default launch on that
setup, each marked definite or possible as the CLI has it, a possible one naming what the user would set. The
backend and OS are kept in the URL. Uses the built site, server and browser of ``tests/test_site_browser.py``;
screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from relialint.engines.registry import default_registry
from relialint.site import setup_launch
from tests.cli_run import invoke
from tests.test_site_browser import ARTIFACTS, base_url, browser, built_site, page, records

__all__ = ["base_url", "browser", "built_site", "page", "records"]  # fixtures: pytest finds them by name here

pytestmark = pytest.mark.slow

FIVE = [  # (engine, version, GPU, backend, OS)
    ("vllm", "0.30.0", "H100", "", ""),
    ("vllm", "0.10.1", "RTX 4090", "", ""),
    ("vllm", "0.23.0", "B200", "", ""),
    ("llama.cpp", "b6000", "Strix Halo", "", "linux"),
    ("vllm", "0.11.0", "MI300X", "", ""),
]


def _cli(tmp_path: Path, engine: str, version: str, gpu: str, backend: str, os: str) -> dict[str, tuple[str, str]]:
    """``relialint check`` in this process on the engine's default launch: id -> (certainty, what decides it as
    the page words it)."""
    launch = tmp_path / "launch.sh"
    launch.write_text(default_registry().get(engine).default_launch + "\n", encoding="utf-8")  # type: ignore[union-attr]
    args = ["check", str(launch), "--isolated", "--show-possible", "--format", "json", "--gpu", gpu,
            "--engine-version", version]
    args += (["--os", os] if os else []) + (["--fact", f"engine.backend={backend}"] if backend else [])
    result = invoke(args)
    assert result.exception is None and result.exit_code in (0, 1), result.output
    out: dict[str, tuple[str, str]] = {}
    for f in json.loads(result.stdout)["findings"]:
        definite = f["certainty"] == "definite"
        out[f["code"]] = (f["certainty"], "" if definite else setup_launch.deciding(engine, f["missing_facts"]))
    return out


def _shown(page: Any) -> dict[str, tuple[str, str]]:
    """The records the page marks definite or possible: id -> (certainty, what it says decides it)."""
    items = page.eval_on_selector_all(
        "li.rl-setup-item[data-certainty]",
        "lis => lis.map(li => [li.dataset.record, li.dataset.certainty, "
        "li.querySelector('.rl-setup-mark').textContent, li.querySelector('.rl-setup-verdict').textContent])")
    out: dict[str, tuple[str, str]] = {}
    for rid, certainty, mark, text in items:
        assert mark == certainty.capitalize(), (rid, mark)  # marked visibly, in words
        said = text.split(": depends on ", 1)[1].removesuffix(".") if ": depends on " in text else ""
        out[rid] = (certainty, said)
    return out


@pytest.mark.parametrize(("engine", "version", "gpu", "backend", "os"), FIVE)
def test_the_page_says_what_the_cli_says(page: Any, base_url: str, tmp_path: Path, engine: str, version: str,
                                         gpu: str, backend: str, os: str) -> None:
    query = {"engine": engine, "version": version, "gpu": gpu, **({"backend": backend} if backend else {}),
             **({"os": os} if os else {})}
    page.goto(base_url + "setup/?" + urlencode(query))
    page.wait_for_selector("#rl-setup[data-ready]")
    expected = _cli(tmp_path, engine, version, gpu, backend, os)
    assert expected  # every one of the five has findings
    assert _shown(page) == expected, (engine, version, gpu)
    assert page.locator("#rl-setup-gpu option:checked").inner_text().startswith(gpu)
    assert page.locator("#rl-setup-launch").inner_text() == \
        default_registry().get(engine).default_launch  # type: ignore[union-attr]
    command = page.locator("#rl-setup-command").inner_text()
    assert f"--engine-version {version}" in command and command.startswith("relialint check launch.sh --gpu ")
    assert page.locator("#rl-setup-notice").is_hidden()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"setup-{engine}-{version}-{gpu.replace(' ', '-')}.png"), full_page=True)


def test_backend_and_os_are_chosen_and_kept_in_the_url(page: Any, base_url: str, tmp_path: Path) -> None:
    page.goto(base_url + "setup/?engine=llama.cpp&version=b6000&gpu=Strix+Halo&os=linux")
    page.wait_for_selector("#rl-setup[data-ready]")
    assert page.locator("#rl-setup-os option:checked").inner_text() == "Linux"
    assert page.locator("#rl-setup-backend").is_visible()
    assert page.locator("#rl-setup-backend option:checked").inner_text() == "not sure"
    page.select_option("#rl-setup-backend", label="ROCm (HIP)")
    page.wait_for_function("location.search.includes('backend=hip')")
    assert "os=linux" in page.evaluate("location.search")
    assert _shown(page) == _cli(tmp_path, "llama.cpp", "b6000", "Strix Halo", "hip", "linux")
    assert _shown(page)["RL532"] == ("definite", "")  # possible ("the backend") before HIP was chosen
    assert page.locator("#rl-setup-command").inner_text().endswith(
        "--os linux --fact engine.backend=hip --show-possible")
    # vLLM offers no backend choice (the GPU decides it): the list is hidden and the URL drops it
    page.select_option("#rl-setup-engine", label="vLLM")
    page.wait_for_function("!location.search.includes('backend=')")
    assert page.locator("#rl-setup-backend").is_hidden()
    # a shared URL with an OS the list lacks says so
    page.goto(base_url + "setup/?engine=vllm&version=0.30.0&gpu=H100&os=solaris")
    page.wait_for_selector("#rl-setup[data-ready]")
    assert page.locator("#rl-setup-notice").inner_text() == "Not in the lists: OS solaris. Choose the nearest entry."
