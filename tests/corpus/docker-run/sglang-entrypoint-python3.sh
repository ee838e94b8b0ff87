#!/bin/bash
# 72B AWQ on eight cards; MEM and CTX can be overridden for a sweep
set -euo pipefail
MEM="${MEM:-0.78}"
CTX="${CTX:-4096}"
docker rm -f sglang-72b 2>/dev/null || true
docker run -d --gpus all --name sglang-72b \
  --network host --ipc host --shm-size 32g \
  -v /srv/models:/models \
  --entrypoint python3 \
  lmsysorg/sglang:v0.5.11-cu130-runtime \
  -m sglang.launch_server \
    --model-path /models/Qwen2.5-72B-Instruct-AWQ \
    --served-model-name qwen \
    --tensor-parallel-size 8 \
    --quantization awq_marlin \
    --mem-fraction-static "$MEM" \
    --context-length "$CTX" \
    --host 0.0.0.0 --port 8002 \
    --enable-metrics
