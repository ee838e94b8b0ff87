#!/bin/bash
# Aphrodite shares many option names with vLLM; it is a different engine.
aphrodite run mistralai/Mistral-Nemo-Instruct-2407 \
  --max-model-len 16384 \
  --gpu-memory-utilization 0.9 \
  --kv-cache-dtype fp8 \
  --port 2242
