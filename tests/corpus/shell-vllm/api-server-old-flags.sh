#!/bin/bash
# legacy launcher kept from the first deployment
python3 -m vllm.entrypoints.openai.api_server \
    --model mistralai/Mistral-7B-Instruct-v0.3 \
    --tensor-parallel-size 2 \
    --swap-space 16 \
    --disable-log-requests \
    --port 8080
