#!/bin/bash
# DeepGEMM JIT with the old variable name; profiler traces kept on the data disk
pip install "sglang[all]==0.5.4"
export SGL_ENABLE_JIT_DEEPGEMM=1
export SGLANG_TORCH_PROFILE_DIR=/data/prof
export SGLANG_DISABLE_CUDA_GRAPH=1
python3 -m sglang.launch_server \
  --model-path deepseek-ai/DeepSeek-V2-Lite-Chat \
  --trust-remote-code \
  --tp-size 1 \
  --port 30000
