#!/bin/bash
trtllm-serve meta-llama/Llama-3.1-8B-Instruct \
  --backend pytorch \
  --tp_size 2 \
  --max_batch_size 64 \
  --max_num_tokens 8192 \
  --kv_cache_free_gpu_memory_fraction 0.9 \
  --host 0.0.0.0 --port 8000
