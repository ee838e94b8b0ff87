#!/bin/bash
MLLM_MODEL=${MLLM_MODEL:-Qwen/Qwen2.5-VL-7B-Instruct}
docker run -d --name sglang-server --runtime nvidia \
  -e NVIDIA_VISIBLE_DEVICES=0 \
  --shm-size 32g -p 30000:30000 --ipc=host \
  -v ~/.cache/huggingface:/root/.cache/huggingface \
  lmsysorg/sglang:latest-runtime \
  bash -c "pip install distro && python3 -m sglang.launch_server --model-path $MLLM_MODEL --host 0.0.0.0 --port 30000 --mem-fraction-static 0.75"
