#!/bin/bash
vllm serve Qwen/Qwen2.5-32B-Instruct-AWQ \
  --quantization awq_marlin \
  --speculative-config '{"method": "draft_model", "model": "Qwen/Qwen2.5-0.5B-Instruct", "num_speculative_tokens": 5}' \
  --max-model-len 16384
