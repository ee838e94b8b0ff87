#!/bin/bash
# Blackwell checkpoint, tested on whatever node the queue hands out
MODEL=nvidia/Llama-3.1-8B-Instruct-FP4
vllm serve "$MODEL" --dtype bfloat16 --max-model-len 16384 --port 8000
