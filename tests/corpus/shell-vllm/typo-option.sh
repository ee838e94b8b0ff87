#!/bin/bash
vllm serve google/gemma-2-9b-it \
  --max-model-length 8192 \
  --gpu-memory-utilization 0.8 \
  --port 8001
