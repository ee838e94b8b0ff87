#!/bin/bash
docker run -d --name sglang --gpus all \
  --shm-size 32g --ipc=host \
  -p 30000:30000 \
  -v ~/.cache/huggingface:/root/.cache/huggingface \
  --env "HF_TOKEN=$HF_TOKEN" \
  lmsysorg/sglang:v0.4.6.post1-cu124 \
  python3 -m sglang.launch_server \
    --model-path meta-llama/Llama-3.1-8B-Instruct \
    --host 0.0.0.0 --port 30000
