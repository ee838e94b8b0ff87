#!/bin/bash
# Try the new V1 engine on the 3070 box.
python3 -m venv /opt/vllm-env
/opt/vllm-env/bin/pip install "vllm==0.7.3"

export VLLM_USE_V1=1
/opt/vllm-env/bin/vllm serve Qwen/Qwen2.5-3B-Instruct \
  --tensor-parallel-size 4 \
  --max-model-len 12288 \
  --gpu-memory-utilization 0.95
