#!/bin/bash
LLAMA_BIN="$HOME/llama.cpp/build/bin/llama-server"
MODEL_FILE="$HOME/models/Mistral-Nemo-Instruct-2407-Q6_K.gguf"

$LLAMA_BIN --model "$MODEL_FILE" --ctx-size 16384 --n-gpu-layers 40 --flash-attn --threads 8 --port 8080
