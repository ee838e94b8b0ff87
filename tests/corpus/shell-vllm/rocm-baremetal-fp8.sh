#!/bin/bash
# MI-series box, ROCm build of vLLM in the venv
export HIP_VISIBLE_DEVICES=0,1
export VLLM_ROCM_USE_AITER=1

vllm serve Qwen/Qwen3-8B-FP8 -tp 2 --max-model-len 32768 --port 8000
