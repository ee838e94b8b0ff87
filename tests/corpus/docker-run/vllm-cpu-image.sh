#!/bin/bash
docker run --rm -p 8000:8000 --shm-size=4g \
  -e VLLM_CPU_KVCACHE_SPACE=8 \
  vllm/vllm-openai-cpu:v0.30.0 \
  Qwen/Qwen3-0.6B --dtype bfloat16 --max-model-len 4096
