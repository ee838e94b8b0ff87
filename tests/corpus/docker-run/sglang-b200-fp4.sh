#!/bin/bash
IMAGE=lmsysorg/sglang:v0.5.2-cu129-b200
docker run --gpus all --rm --ipc=host --network host \
  -v /raid/hf:/root/.cache/huggingface \
  $IMAGE \
  python3 -m sglang.launch_server \
    --model-path nvidia/DeepSeek-R1-0528-FP4 \
    --tp 4 \
    --quantization modelopt_fp4 \
    --kv-cache-dtype fp8_e4m3 \
    --attention-backend trtllm_mla \
    --moe-runner-backend flashinfer_trtllm \
    --trust-remote-code \
    --port 30000
