#!/bin/bash
# Gemma 4 with its assistant checkpoint as the drafter
TARGET=google/gemma-4-31B-it

vllm serve "$TARGET" \
  --max-model-len 16384 \
  --speculative-config '{"model": "google/gemma-4-31B-it-assistant", "num_speculative_tokens": 1}' \
  --gpu-memory-utilization 0.92
