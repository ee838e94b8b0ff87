#!/bin/bash
# MI300X box, eight GPUs
docker run -it --rm \
  --device=/dev/kfd --device=/dev/dri --group-add video \
  --ipc=host --shm-size 32g \
  --security-opt seccomp=unconfined \
  -v /data/models:/models \
  -e SGLANG_USE_AITER=1 \
  -p 30000:30000 \
  lmsysorg/sglang:v0.5.5.post3-rocm700-mi30x \
  python3 -m sglang.launch_server \
    --model-path /models/DeepSeek-R1-0528 \
    --tp 8 \
    --attention-backend aiter \
    --trust-remote-code \
    --host 0.0.0.0 --port 30000
