#!/bin/bash
vllm serve myorg/Qwen3-Coder-30B-A3B-W4A16_NVFP4 \
  --moe-backend flashinfer_b12x \
  --tensor-parallel-size 2 \
  --max-model-len 32768
