#!/bin/bash
vllm serve deepseek-ai/DeepSeek-V3.1 \
  --tensor-parallel-size 8 \
  --speculative-config '{"method": "mtp", "num_speculative_tokens": 1}' \
  --no-enable-prefix-caching \
  --max-model-len 131072
