#!/bin/bash
docker run --gpus all --ipc=host -p 8000:8000 \
  vllm/vllm-openai:v0.9.2 \
  --model Qwen/Qwen2.5-7B-Instruct --tokenizer-pool-size 4 --max-model-len 16384
