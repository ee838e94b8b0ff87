#!/usr/bin/env bash
# one-off box: install a pinned SGLang and serve a chat model on GPU 0
set -euo pipefail
pip install --upgrade pip
pip install "sglang[all]==0.4.6.post1"

export CUDA_VISIBLE_DEVICES=0
python -m sglang.launch_server \
    --model-path Qwen/Qwen2.5-7B-Instruct \
    --context-length 16384 \
    --mem-fraction-static 0.88 \
    --host 0.0.0.0 \
    --port 30000
