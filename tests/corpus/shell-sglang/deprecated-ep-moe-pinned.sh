#!/bin/bash
# Qwen3 MoE with expert parallelism; the flags come from an older how-to
pip install "sglang[all]==0.5.3"
python3 -m sglang.launch_server \
  --model-path Qwen/Qwen3-235B-A22B-FP8 \
  --tp-size 8 \
  --enable-ep-moe \
  --ep-size 8 \
  --port 30000
