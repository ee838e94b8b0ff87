#!/bin/bash
# the console entry point that newer wheels install
source /opt/venvs/sglang/bin/activate
sglang serve --model-path meta-llama/Llama-3.1-8B-Instruct \
  --tp-size 2 \
  --chunked-prefill-size 4096 \
  --enable-metrics \
  --port 30000
