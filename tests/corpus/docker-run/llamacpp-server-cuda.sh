#!/bin/bash
docker run -d --gpus all \
  -v /tank/models:/models \
  -p 8080:8080 \
  --name llama \
  ghcr.io/ggml-org/llama.cpp:server-cuda \
  -m /models/Qwen2.5-7B-Instruct-Q4_K_M.gguf -c 8192 -ngl 99 -fa -cb --host 0.0.0.0
