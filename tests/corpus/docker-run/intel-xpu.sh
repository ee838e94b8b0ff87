#!/bin/bash
MODEL="Qwen/Qwen2.5-7B-Instruct"
docker run -d --rm --name vllm-xpu \
    --device /dev/dri \
    -v /dev/dri/by-path:/dev/dri/by-path \
    -v ~/.cache/huggingface:/root/.cache/huggingface \
    -p 8000:8000 --ipc=host \
    intel/vllm:0.10.2-xpu \
    --model ${MODEL} --max-model-len 8192
