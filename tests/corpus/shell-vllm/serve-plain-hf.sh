#!/usr/bin/env bash
# Start an OpenAI-compatible endpoint for the chat UI.
set -euo pipefail

export CUDA_VISIBLE_DEVICES=0
export HF_HOME=/data/hf-cache

vllm serve meta-llama/Llama-3.1-8B-Instruct \
  --host 0.0.0.0 \
  --port 8000 \
  --max-model-len 8192 \
  --gpu-memory-utilization 0.90
