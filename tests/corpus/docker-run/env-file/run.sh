#!/bin/bash
docker run -d --gpus all --env-file ./vllm.env -p 8000:8000 \
  vllm/vllm-openai:v0.16.0 \
  --model Qwen/Qwen2.5-7B-Instruct --max-model-len 32768
