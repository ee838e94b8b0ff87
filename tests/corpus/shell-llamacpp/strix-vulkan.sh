#!/usr/bin/env bash
set -euo pipefail
cmake -B build-vulkan -DGGML_VULKAN=ON
cmake --build build-vulkan -j 16

./build-vulkan/bin/llama-server -m ~/models/gemma-3-27b-it-Q4_K_M.gguf -ngl 99 -c 16384 --port 8081
