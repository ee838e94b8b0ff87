#!/bin/bash
python3 -m vllm.entrypoints.openai.api_server Qwen/Qwen2.5-7B-Instruct --port 8000 --max-model-len 8192
