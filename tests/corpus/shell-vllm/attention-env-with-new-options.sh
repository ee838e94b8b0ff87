#!/usr/bin/env bash
# Vision model served text-only; FlashInfer forced for attention.
export VLLM_ATTENTION_BACKEND=FLASHINFER
export VLLM_LOGGING_LEVEL=INFO

vllm serve Qwen/Qwen2.5-VL-7B-Instruct \
  --language-model-only \
  --max-model-len 32768 \
  --port 8000
