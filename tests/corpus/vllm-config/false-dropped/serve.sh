#!/bin/bash
set -e
pip install "vllm==0.10.1"
cd "$(dirname "$0")"
vllm serve --config config.yaml
