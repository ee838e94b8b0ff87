#!/usr/bin/env bash
# Serve an NVFP4 checkpoint on a workstation GPU.
set -euo pipefail

MODEL=nvidia/Llama-3.3-70B-Instruct-FP4

vllm serve "$MODEL" \
  --dtype bfloat16 \
  --tensor-parallel-size 2 \
  --max-model-len 8192
