#!/bin/bash
# llama-cpp-python's own OpenAI server (not llama.cpp's llama-server)
python3 -m llama_cpp.server \
  --model /models/llama-2-13b-chat.Q4_K_M.gguf \
  --n_gpu_layers -1 \
  --n_ctx 4096 \
  --host 0.0.0.0 --port 8000
