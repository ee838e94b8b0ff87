#!/bin/bash
# Two-node data-parallel launch; the same script runs in every pod.
set -e

MODEL=deepseek-ai/DeepSeek-V2-Lite-Chat
LEADER_IP=${LEADER_IP:?set LEADER_IP}
RANK=${NODE_RANK:-0}

if [ "$RANK" -eq 0 ]; then
  echo "starting leader"
  vllm serve "$MODEL" \
    --trust-remote-code \
    --data-parallel-size 4 \
    --data-parallel-size-local 2 \
    --data-parallel-address "$LEADER_IP" \
    --data-parallel-rpc-port 13345 \
    --gpu-memory-utilization 0.9
else
  echo "starting worker $RANK"
  vllm serve "$MODEL" \
    --trust-remote-code \
    --headless \
    --data-parallel-size 4 \
    --data-parallel-size-local 2 \
    --data-parallel-start-rank 2 \
    --data-parallel-address "$LEADER_IP" \
    --data-parallel-rpc-port 13345 \
    --gpu-memory-utilization 0.9
fi
