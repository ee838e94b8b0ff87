#!/usr/bin/env bash
# Build vLLM from a fork and start it.
set -euo pipefail

export VLLM_REPO_URL=https://github.com/example-org/vllm.git
export VLLM_BRANCH=main
export VLLM_TARGET_DEVICE=cuda
MODEL_ID=microsoft/Phi-3-mini-4k-instruct

git clone --branch "$VLLM_BRANCH" "$VLLM_REPO_URL" /opt/vllm-src
cd /opt/vllm-src
pip install -e .

vllm serve "$MODEL_ID" --port 8000 --max-model-len 4096
