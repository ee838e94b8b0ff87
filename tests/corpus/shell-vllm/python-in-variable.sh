#!/usr/bin/env bash
# serve from the project's own virtualenv
set -euo pipefail

VENV=/opt/venvs/vllm
PYTHON="$VENV/bin/python"
MODEL="mistralai/Mistral-7B-Instruct-v0.3"
PORT=8000

"$PYTHON" -m vllm.entrypoints.openai.api_server \
    --model "$MODEL" \
    --tokenizer-mode mistral \
    --max-model-len 32768 \
    --port "$PORT"
