#!/bin/bash
docker run --gpus all --ipc=host -p 8000:8000 \
  vllm/vllm-openai:v0.11.1 \
  --model meta-llama/Llama-3.1-8B-Instruct --swap-space 8 --max-num-seqs 256
