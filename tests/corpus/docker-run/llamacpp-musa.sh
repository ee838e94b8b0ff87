#!/bin/bash
docker run -d --runtime mthreads -v /data/models:/models -p 8080:8080 \
  ghcr.io/ggml-org/llama.cpp:server-musa \
  -m /models/Qwen2.5-7B-Instruct-Q4_K_M.gguf -ngl 99 -c 8192 --host 0.0.0.0
