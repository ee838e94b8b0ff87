#!/bin/bash
docker run -d --device /dev/kfd --device /dev/dri --group-add video \
  -v "$PWD/models:/models" -p 8080:8080 \
  ghcr.io/ggml-org/llama.cpp:server-rocm \
  -m /models/Llama-3.1-8B-Instruct-Q8_0.gguf -ngl 99 -c 8192 --host 0.0.0.0
