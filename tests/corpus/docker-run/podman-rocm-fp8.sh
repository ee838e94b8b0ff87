#!/bin/bash
podman run -it --rm \
  --device /dev/kfd --device /dev/dri \
  --group-add keep-groups \
  --security-opt seccomp=unconfined \
  -e HSA_OVERRIDE_GFX_VERSION=11.0.0 \
  -p 8000:8000 \
  docker.io/rocm/vllm:rocm6.3.1_vllm_0.8.5_20250513 \
  vllm serve Qwen/Qwen3-8B-FP8 --max-model-len 8192
