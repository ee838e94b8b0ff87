"""The examples shipped in `examples/` give exactly these findings (code, certainty, location)."""

from __future__ import annotations

import json
import os

from tests.cli_run import invoke
from tests.conftest import ROOT


def findings(*args: str) -> tuple[list[tuple[object, ...]], dict[str, int]]:
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        result = invoke(["examples/", "--format", "json", *args])
    finally:
        os.chdir(cwd)
    doc = json.loads(result.output)
    rows = [(f["path"], f["line"], f["column"], f["code"], f["certainty"], f["shown"]) for f in doc["findings"]]
    return rows, doc["summary"]


def test_examples_without_a_target_gpu() -> None:
    rows, summary = findings()
    assert rows == [
        ("examples/compose.yaml", 12, 7, "RL107", "possible", True),  # v0.30.0 runs the V2 runner; CC mode decides
        ("examples/compose.yaml", 12, 7, "RL206", "possible", True),  # v0.30.0 pinned, in the affected range
        ("examples/compose.yaml", 12, 7, "RL217", "possible", True),
        ("examples/compose.yaml", 12, 7, "RL219", "possible", True),
        ("examples/compose.yaml", 12, 7, "RL509", "possible", False),
        ("examples/compose.yaml", 14, 7, "RL303", "definite", True),
        ("examples/compose.yaml", 15, 7, "RL113", "definite", True),
        ("examples/compose.yaml", 15, 7, "RL208", "definite", True),
        ("examples/compose.yaml", 15, 7, "RL211", "possible", True),
        ("examples/compose.yaml", 20, 15, "RL104", "possible", True),  # v0.30.0 in RL104's range; needs MXFP4 W4A16
        ("examples/compose.yaml", 20, 15, "RL107", "possible", True),
        ("examples/compose.yaml", 20, 15, "RL206", "possible", True),
        ("examples/compose.yaml", 20, 15, "RL215", "possible", False),
        ("examples/compose.yaml", 20, 15, "RL217", "possible", True),
        ("examples/compose.yaml", 20, 15, "RL218", "possible", False),
        ("examples/compose.yaml", 20, 15, "RL219", "possible", False),
        ("examples/compose.yaml", 20, 15, "RL305", "possible", False),  # a GB10 world, if bge-m3 were an NVFP4 MoE
        ("examples/compose.yaml", 20, 15, "RL509", "possible", False),
        ("examples/compose.yaml", 20, 30, "RL303", "definite", True),
        ("examples/k8s-deployment.yaml", 17, 18, "RL122", "definite", True),  # v0.11.0 CUDA image: FlashInfer sampler
        ("examples/k8s-deployment.yaml", 18, 29, "RL217", "possible", True),
        ("examples/k8s-deployment.yaml", 18, 29, "RL509", "possible", False),
        ("examples/serve-cmd.sh", 7, 1, "RL122", "possible", False),  # 0.9.0-0.11.0; version and build unknown
        ("examples/serve-cmd.sh", 7, 12, "RL107", "possible", False),
        ("examples/serve-cmd.sh", 7, 12, "RL117", "possible", False),  # pre-Hopper GPU and version < 0.18.0
        ("examples/serve-cmd.sh", 7, 12, "RL206", "possible", False),
        # a quantized checkpoint: an RDNA3 GPU and a kv_cache_scheme in its config (unknown for a hub id) decide
        ("examples/serve-cmd.sh", 7, 12, "RL214", "possible", True),
        ("examples/serve-cmd.sh", 7, 12, "RL215", "possible", True),  # the NVFP4 model; Blackwell and 0.22-0.24 decide
        ("examples/serve-cmd.sh", 7, 12, "RL217", "possible", False),  # an NVIDIA GPU on 0.11.1-0.16.x
        ("examples/serve-cmd.sh", 8, 3, "RL101", "possible", True),  # the NVFP4 model and --dtype bfloat16
    ]
    # RL301 (gfx1100) is absent: `runtime: nvidia` leaves no AMD GPU; RL302 (V1 on 0.7.x) is absent: V1 is off by
    # default on 0.7.x and nothing enables it; RL105 is withdrawn (the k8s Deployment's fp8 KV cache on an A100)
    assert summary == {"files": 3, "deployments": 4, "definite": 5, "possible": 25, "possible_counted": 13,
                       "errors": 0}


def test_examples_on_an_h100() -> None:
    rows, summary = findings("--gpu", "H100")
    definite = [r[:5] for r in rows if r[4] == "definite"]
    assert definite == [
        ("examples/compose.yaml", 12, 7, "RL206", "definite"),
        ("examples/compose.yaml", 14, 7, "RL303", "definite"),
        ("examples/compose.yaml", 15, 7, "RL113", "definite"),
        ("examples/compose.yaml", 15, 7, "RL208", "definite"),
        ("examples/compose.yaml", 15, 7, "RL221", "definite"),
        ("examples/compose.yaml", 20, 15, "RL206", "definite"),
        ("examples/compose.yaml", 20, 30, "RL303", "definite"),
        ("examples/k8s-deployment.yaml", 17, 18, "RL122", "definite"),
    ]  # RL101 on serve-cmd.sh stays possible: the script pins no version and RL101 is a 0.9.0-0.18.1 defect
    assert summary["definite"] == 7
