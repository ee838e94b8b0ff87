#!/bin/bash
model=mistralai/Mistral-7B-Instruct-v0.3
volume=$PWD/data

docker run --gpus all --shm-size 1g -p 8080:80 -v $volume:/data \
    ghcr.io/huggingface/text-generation-inference:3.0.1 \
    --model-id $model \
    --max-input-tokens 4096 \
    --max-total-tokens 8192 \
    --quantize bitsandbytes-nf4
