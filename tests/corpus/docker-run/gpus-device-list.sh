#!/bin/bash
docker run --runtime nvidia --gpus '"device=0,1"' --ipc=host -p 8000:8000 \
  vllm/vllm-openai:v0.10.1 \
  --model mistralai/Mistral-Small-24B-Instruct-2501 \
  --tensor-parallel-size 2 \
  --tokenizer-mode mistral --config-format mistral --load-format mistral
