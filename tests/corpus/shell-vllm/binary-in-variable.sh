#!/bin/bash
VLLM_BIN="$HOME/venvs/vllm/bin/vllm"
MODEL="NousResearch/Hermes-3-Llama-3.1-8B"

"$VLLM_BIN" serve "$MODEL" \
  --enable-auto-tool-choice \
  --tool-call-parser hermes \
  --max-model-len 16384
