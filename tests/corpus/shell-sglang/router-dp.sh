#!/bin/bash
# data parallel through the router: four replicas behind one port
MODEL=Qwen/Qwen3-8B
python3 -m sglang_router.launch_server \
    --model-path "$MODEL" \
    --dp-size 4 \
    --router-policy cache_aware \
    --host 0.0.0.0 \
    --port 30000
