#!/data/data/com.termux/files/usr/bin/bash
# Build and run llama.cpp on an Android phone in Termux
set -e
pkg update -y
pkg install -y git cmake clang wget

cd "$HOME"
[ -d llama.cpp ] || git clone https://github.com/ggml-org/llama.cpp
cd llama.cpp
cmake -B build -DGGML_OPENMP=OFF -DLLAMA_CURL=OFF
cmake --build build --config Release -j 8

termux-wake-lock
./build/bin/llama-server -m "$HOME/models/Llama-3.2-3B-Instruct-Q4_0.gguf" -t 6 -c 4096 --host 0.0.0.0 --port 8080
