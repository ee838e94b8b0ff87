#!/bin/bash
docker run --rm --gpus all -p 8000:8000 --entrypoint bash \
  vllm/vllm-openai:v0.9.2 -lc "pip install -q hf_transfer && python3 -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2-7B-Instruct --kv-cache-dtype fp8 --enforce-eager"
