#!/bin/bash
vllm serve Qwen/Qwen3-8B --config=serve.yaml
