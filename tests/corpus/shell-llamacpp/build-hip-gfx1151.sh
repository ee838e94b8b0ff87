#!/usr/bin/env bash
# Strix Halo (Ryzen AI Max+ 395) build and run
set -euo pipefail

git clone https://github.com/ggml-org/llama.cpp.git
cd llama.cpp
cmake -S . -B build -DGGML_HIP=ON -DAMDGPU_TARGETS=gfx1151 -DCMAKE_BUILD_TYPE=Release
cmake --build build --config Release -j "$(nproc)"

./build/bin/llama-server \
  -m ~/models/Qwen3-30B-A3B-Q8_0.gguf \
  -ngl 999 \
  -fa on \
  -c 32768 \
  --host 0.0.0.0 --port 8080
