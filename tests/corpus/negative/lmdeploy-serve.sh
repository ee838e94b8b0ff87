#!/bin/bash
lmdeploy serve api_server internlm/internlm2_5-7b-chat \
  --server-port 23333 \
  --tp 1 \
  --cache-max-entry-count 0.8 \
  --session-len 8192
