#!/bin/sh
MODEL=Qwen/Qwen2.5-7B-Instruct
PORT=8000

echo "serving $MODEL on $PORT"
vllm serve $MODEL --host 0.0.0.0 --port $PORT --max-model-len 16384 --enable-auto-tool-choice --tool-call-parser hermes
