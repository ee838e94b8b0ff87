#!/bin/bash
# the settings live in the YAML file next to this script (SGLang's --config, CLI flags override it)
pip install "sglang[all]==0.5.4"
python3 -m sglang.launch_server --config sglang-config.yaml --port 30000
