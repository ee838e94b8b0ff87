#!/bin/bash
# chat model and a small helper model on the same card
CUDA_VISIBLE_DEVICES=0 nohup vllm serve meta-llama/Llama-3.2-3B-Instruct \
  --port 8000 --gpu-memory-utilization 0.6 --max-model-len 8192 > chat.log 2>&1 &

CUDA_VISIBLE_DEVICES=0 nohup vllm serve Qwen/Qwen2.5-1.5B-Instruct \
  --port 8001 --gpu-memory-utilization 0.5 --max-model-len 4096 > helper.log 2>&1 &

wait
