#!/bin/bash
# DeepGEMM JIT on, with the variable spelt the old way
pip install "sglang[all]==0.5.4"
export SGL_ENABLE_JIT_DEEPGEMM=1
export SGLANG_DISABLE_CUDA_GRAPH=1
python3 -m sglang.launch_server \
  --model-path deepseek-ai/DeepSeek-V2-Lite-Chat \
  --trust-remote-code \
  --tp-size 1 \
  --port 30000
