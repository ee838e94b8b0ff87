#!/bin/bash
# usage: ./serve.sh <node-rank>   (run on both nodes; node 0 is the head)
RANK=${1:?node rank}
HEAD=10.0.0.11
pip install "sglang[all]==0.4.8.post1"
if [ "$RANK" = "0" ]; then
  python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3-0324 \
    --tp 16 --nnodes 2 --node-rank 0 --dist-init-addr $HEAD:5000 \
    --trust-remote-code --host 0.0.0.0 --port 30000
else
  python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3-0324 \
    --tp 16 --nnodes 2 --node-rank 1 --dist-init-addr $HEAD:5000 \
    --trust-remote-code
fi
