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
        # SM90 and whether vLLM upgrades this model to FA4 decide (0.30.0 runs FA3 on SM90 for most models)
        ("examples/compose.yaml", 12, 7, "RL206", "possible", True),
        ("examples/compose.yaml", 12, 7, "RL322", "definite", True),  # a hub id, no cache volume, no HF_HOME
        ("examples/compose.yaml", 14, 7, "RL303", "definite", True),
        ("examples/compose.yaml", 15, 7, "RL113", "definite", True),
        ("examples/compose.yaml", 15, 7, "RL208", "definite", True),
        # MTP with 2 draft tokens and the default --max-num-seqs: the widest decode batch is above 512 tokens
        ("examples/compose.yaml", 15, 7, "RL221", "definite", True),
        ("examples/compose.yaml", 20, 15, "RL104", "possible", True),  # v0.30.0 in RL104's range; needs MXFP4 W4A16
        ("examples/compose.yaml", 20, 15, "RL107", "possible", True),
        ("examples/compose.yaml", 20, 15, "RL206", "possible", True),
        ("examples/compose.yaml", 20, 15, "RL305", "possible", False),  # a GB10 world, if bge-m3 were an NVFP4 MoE
        ("examples/compose.yaml", 20, 15, "RL322", "definite", True),
        # bge-m3's family is not in the data: Phi LongRoPE (RL338) and the multimodal media fetch (RL602) are possible,
        # and the version pin does not point at them (the model decides)
        ("examples/compose.yaml", 20, 15, "RL338", "possible", False),
        ("examples/compose.yaml", 20, 15, "RL602", "possible", False),
        ("examples/compose.yaml", 20, 30, "RL303", "definite", True),
        ("examples/k8s-deployment.yaml", 17, 18, "RL122", "definite", True),  # v0.11.0 CUDA image: FlashInfer sampler
        ("examples/k8s-deployment.yaml", 18, 29, "RL322", "definite", True),
        ("examples/serve-cmd.sh", 7, 1, "RL122", "possible", False),  # 0.9.0-0.11.0; version and build unknown
        ("examples/serve-cmd.sh", 7, 1, "RL241", "possible", False),  # V1 on an A100 80GB (0.8.5), GPU unknown
        ("examples/serve-cmd.sh", 7, 1, "RL601", "possible", False),  # a published port: no container shown
        ("examples/serve-cmd.sh", 7, 12, "RL107", "possible", False),
        ("examples/serve-cmd.sh", 7, 12, "RL117", "possible", False),  # pre-Hopper GPU and version < 0.18.0
        ("examples/serve-cmd.sh", 7, 12, "RL206", "possible", False),
        # a quantized checkpoint: an RDNA3 GPU and a kv_cache_scheme in its config (unknown for a hub id) decide
        ("examples/serve-cmd.sh", 7, 12, "RL214", "possible", True),
        ("examples/serve-cmd.sh", 7, 12, "RL215", "possible", True),  # the NVFP4 model; Blackwell and 0.22-0.24 decide
        ("examples/serve-cmd.sh", 7, 12, "RL217", "possible", False),  # an NVIDIA GPU on 0.11.1-0.16.x
        ("examples/serve-cmd.sh", 7, 12, "RL322", "possible", False),  # no container shown (container.* unknown)
        ("examples/serve-cmd.sh", 7, 12, "RL606", "possible", False),  # prompts logged up to 0.10.0; version unknown
        ("examples/serve-cmd.sh", 8, 3, "RL101", "possible", True),  # the NVFP4 model and --dtype bfloat16
    ]
    # v0.30.0 is past RL217 (fixed 0.17.0), RL215 (0.22.0-0.24.0), RL218 (0.20.0-0.22.x) and RL219 (0.15.x-0.16.x);
    # RL211 gives way to RL221 (n x (1 + k) above 512); the k8s Deployment's v0.11.0 is before RL217's 0.11.1.
    # RL301 (gfx1100) is absent: `runtime: nvidia` leaves no AMD GPU; RL302 (V1 on 0.7.x) is absent: V1 is off by
    # default on 0.7.x and nothing enables it; RL105 and RL509 are withdrawn
    assert summary == {"files": 3, "deployments": 4, "definite": 9, "possible": 20, "possible_counted": 12,
                       "errors": 0}


def test_examples_on_an_h100() -> None:
    rows, summary = findings("--gpu", "H100")
    definite = [r[:5] for r in rows if r[4] == "definite"]
    assert definite == [
        ("examples/compose.yaml", 12, 7, "RL322", "definite"),
        ("examples/compose.yaml", 14, 7, "RL303", "definite"),
        ("examples/compose.yaml", 15, 7, "RL113", "definite"),
        ("examples/compose.yaml", 15, 7, "RL208", "definite"),
        ("examples/compose.yaml", 15, 7, "RL221", "definite"),
        ("examples/compose.yaml", 20, 15, "RL322", "definite"),
        ("examples/compose.yaml", 20, 30, "RL303", "definite"),
        ("examples/k8s-deployment.yaml", 17, 18, "RL122", "definite"),
        ("examples/k8s-deployment.yaml", 18, 29, "RL322", "definite"),
    ]  # RL101 on serve-cmd.sh stays possible: the script pins no version and RL101 is a 0.9.0-0.18.1 defect;
    # RL206 stays possible on the H100: nothing says vLLM runs FA4 for these models
    assert summary["definite"] == 9
