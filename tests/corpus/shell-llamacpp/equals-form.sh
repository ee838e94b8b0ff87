#!/bin/bash
llama-server -m /models/qwen2.5-coder-7b-instruct-q8_0.gguf --ctx-size=8192 --port=8081 -ngl 99
