#!/bin/bash
# laptop test server, no GPU
export VLLM_CPU_KVCACHE_SPACE=16
export VLLM_CPU_OMP_THREADS_BIND=0-7

vllm serve TinyLlama/TinyLlama-1.1B-Chat-v1.0 --dtype bfloat16 --max-model-len 2048
