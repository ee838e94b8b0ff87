#!/bin/bash
# quantized 32B on two 24 GB cards
export CUDA_VISIBLE_DEVICES=0,1
vllm serve --model="Qwen/Qwen2.5-32B-Instruct-AWQ" \
  --quantization=awq_marlin \
  --tensor-parallel-size=2 \
  --max-model-len=16384 \
  --gpu-memory-utilization=0.92
