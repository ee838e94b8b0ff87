#!/usr/bin/env bash
set -euo pipefail

MODEL_DIR=/mnt/models/llama-3.1-70b-instruct
ARGS=(
  --model "$MODEL_DIR"
  --served-model-name llama-70b
  --tensor-parallel-size 4
  --kv-cache-dtype fp8
  --max-num-seqs 128
  --port 8000
)

exec python3 -m vllm.entrypoints.openai.api_server "${ARGS[@]}"
