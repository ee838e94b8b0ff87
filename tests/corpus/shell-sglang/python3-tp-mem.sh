#!/bin/bash
python3 -m sglang.launch_server \
  --model-path meta-llama/Llama-3.1-8B-Instruct \
  --tp 2 \
  --mem-fraction-static 0.85 \
  --max-running-requests 128 \
  --host 0.0.0.0 --port 30000
