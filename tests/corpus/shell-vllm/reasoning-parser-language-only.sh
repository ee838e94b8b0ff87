#!/bin/bash
vllm serve Qwen/Qwen3-VL-8B-Instruct \
  --reasoning-parser qwen3 \
  --language-model-only \
  --max-model-len 40960
