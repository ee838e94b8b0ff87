#!/bin/bash
docker run --gpus all --shm-size 64g --ipc=host -p 30000:30000 \
  -v /mnt/weights:/weights \
  lmsysorg/sglang:latest \
  python3 -m sglang.launch_server --model-path /weights/DeepSeek-V3 \
    --tp 8 --dp 8 --enable-dp-attention \
    --trust-remote-code --host 0.0.0.0 --port 30000
