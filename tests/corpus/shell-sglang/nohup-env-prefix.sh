#!/bin/bash
# start in the background and keep the log next to the script
cd "$(dirname "$0")"
CUDA_VISIBLE_DEVICES=6,7 nohup python -m sglang.launch_server \
  --model-path /data/ckpt/qwen3-14b-sft \
  --tp 2 \
  --disable-cuda-graph \
  --disable-radix-cache \
  --host 0.0.0.0 \
  --port 8081 > sglang_8081.log 2>&1 &
echo "started: $!"
