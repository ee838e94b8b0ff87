#!/bin/bash
docker run --runtime nvidia --gpus all \
    -v /srv/hf:/root/.cache/huggingface \
    -p 8000:8000 \
    --ipc=host \
    vllm/vllm-openai:v0.6.6.post1 \
    --model meta-llama/Llama-3.1-8B-Instruct \
    --num-scheduler-steps 8 \
    --use-v2-block-manager \
    --max-model-len 8192
