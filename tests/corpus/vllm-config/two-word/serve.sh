#!/bin/bash
cd "$(dirname "$0")"
exec vllm serve --config config.yaml
