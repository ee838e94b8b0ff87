#!/bin/sh
llama serve -hf ggml-org/gpt-oss-20b-GGUF --jinja -c 0 -fa on --port 8080
