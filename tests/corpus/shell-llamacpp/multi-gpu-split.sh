#!/bin/bash
# two cards, 70B split by rows
llama-server -m /data/gguf/Llama-3.3-70B-Instruct-Q4_K_M.gguf -ngl 99 -sm row -ts 3,2 -mg 0 -c 8192 --port 8080
