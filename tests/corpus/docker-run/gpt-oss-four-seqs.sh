#!/usr/bin/env bash
# gpt-oss-20b for a handful of internal users: few concurrent requests, long answers.
set -euo pipefail

docker run -d --name gpt-oss \
  --gpus '"device=0"' \
  --ipc=host \
  -p 8000:8000 \
  -v "$HOME/.cache/huggingface:/root/.cache/huggingface" \
  vllm/vllm-openai:v0.10.2 \
  --model openai/gpt-oss-20b \
  --max-num-seqs 4 \
  --max-model-len 65536
