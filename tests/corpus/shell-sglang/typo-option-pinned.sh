#!/bin/bash
# pinned environment for the evaluation box
pip install sglang==0.5.2
python3 -m sglang.launch_server \
  --model-path Qwen/Qwen2.5-14B-Instruct \
  --tp-size 2 \
  --mem-fraction-statc 0.8 \
  --port 30000
