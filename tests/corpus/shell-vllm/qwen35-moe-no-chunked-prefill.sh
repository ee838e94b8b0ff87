#!/usr/bin/env bash
# Qwen3.5 MoE on two GPUs; chunked prefill off so a long prompt prefills in one step
set -euo pipefail

vllm serve Qwen/Qwen3.5-35B-A3B \
  --tensor-parallel-size 2 \
  --no-enable-chunked-prefill \
  --max-num-seqs 64 \
  --port 8000
