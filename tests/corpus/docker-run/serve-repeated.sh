#!/bin/bash
docker run --runtime nvidia --gpus all -p 8000:8000 --ipc=host \
  vllm/vllm-openai:v0.12.0 \
  vllm serve Qwen/Qwen2.5-14B-Instruct --max-model-len 16384
