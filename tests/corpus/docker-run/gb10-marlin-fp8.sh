#!/bin/bash
# relialint: gpu=GB10
# DGX Spark: the Marlin FP8 input path is ~2.5% faster
docker run -d --gpus all --ipc=host -p 8000:8000 \
  -e VLLM_MARLIN_INPUT_DTYPE=fp8 \
  vllm/vllm-openai:v0.20.0 \
  Qwen/Qwen3-30B-A3B-GPTQ-Int4 --max-model-len 32768
