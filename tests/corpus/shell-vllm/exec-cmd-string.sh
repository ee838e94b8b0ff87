#!/bin/bash
CMD="vllm serve Qwen/Qwen2.5-7B-Instruct --port 8000 --max-model-len 8192"
echo "running: $CMD"
exec $CMD
