#!/bin/bash
# RX 7800 XT reports gfx1101; pretend gfx1100 for the prebuilt kernels
export HSA_OVERRIDE_GFX_VERSION=11.0.0
~/llama.cpp/build/bin/llama-server -m ~/models/qwen2.5-14b-instruct-q4_k_m.gguf -ngl 99 -c 16384
