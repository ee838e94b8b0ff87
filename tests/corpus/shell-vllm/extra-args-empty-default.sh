#!/usr/bin/env bash
# Start the chat model; pass extra engine options through EXTRA_ARGS if needed.
set -euo pipefail

MODEL="${MODEL:-Qwen/Qwen2.5-7B-Instruct}"
PORT="${PORT:-8000}"

vllm serve ${EXTRA_ARGS:-} "$MODEL" \
  --port "$PORT" \
  --max-num-seqs 4 \
  --max-model-len 16384
