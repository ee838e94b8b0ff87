#!/bin/bash
docker run --rm --device /dev/dri -v ~/models:/models -p 8080:8080 \
  ghcr.io/ggml-org/llama.cpp:server-vulkan-b5200 \
  -m /models/phi-4-Q4_K_M.gguf -ngl 99 -fa on -c 8192 --host 0.0.0.0
