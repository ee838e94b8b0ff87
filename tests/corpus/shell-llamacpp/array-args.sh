#!/usr/bin/env bash
set -euo pipefail
SERVER_BIN=/usr/local/bin/llama-server
MODEL=/srv/models/mistral-7b-instruct-v0.2.Q5_K_M.gguf

ARGS=(-m "$MODEL" -c 4096 -ngl 35 -ub 256 --host 127.0.0.1 --port 8080)
exec "$SERVER_BIN" "${ARGS[@]}"
