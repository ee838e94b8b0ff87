#!/bin/sh
# The real llama-server option parser of one llama.cpp build, without building llama.cpp: compile common/arg.cpp,
# common.cpp and log.cpp from the llama-cpp-python sdist that vendors the build, link them with dump.cpp and the
# build's stubs (unresolved symbols ignored: they are never called), and print every option the parser registers for
# LLAMA_EXAMPLE_SERVER (spellings | negatives | LLAMA_ARG_* | handler kind), then which of a fixed word list the
# handlers of -sm, -ctk, -ctv, -fa and -ngl accept.
#
#   sh tools/llamacpp-real-parser/run.sh 0.3.36 b11312 -DHAS_NEG > tests/fixtures/llamacpp-parser/server-options-b11312.txt
#   sh tools/llamacpp-real-parser/run.sh 0.3.21 b8942 -DHAS_NEG  > tests/fixtures/llamacpp-parser/server-options-b8942.txt
#   sh tools/llamacpp-real-parser/run.sh 0.3.7 b4579             > tests/fixtures/llamacpp-parser/server-options-b4579.txt
#
# (-DHAS_NEG for builds whose common_arg has negative spellings and bool handlers.) Needs pip, g++ (C++17), about a
# minute per build. tests/test_llamacpp_flags.py compares these fixtures with the generated table.
set -e
VERSION=$1; LABEL=$2; NEG=$3
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=${TMPDIR:-/tmp}/llamacpp-real-parser-$VERSION
mkdir -p "$WORK" && cd "$WORK"
pip download -q --no-deps --no-binary :all: "llama-cpp-python==$VERSION" -d . >&2
tar -xzf "llama_cpp_python-$VERSION.tar.gz" --wildcards '*/vendor/llama.cpp/common/*' '*/vendor/llama.cpp/include/*' \
    '*/vendor/llama.cpp/ggml/include/*' '*/vendor/llama.cpp/vendor/*' 2>/dev/null || true
L=llama_cpp_python-$VERSION/vendor/llama.cpp
FLAGS="-std=c++17 -O0 -w $NEG -I$L/common -I$L/include -I$L/ggml/include -I$L/vendor -I$L"
for f in arg common log; do g++ $FLAGS -c "$L/common/$f.cpp" -o "$f.o"; done
g++ $FLAGS -c "$HERE/dump.cpp" -o dump.o
g++ $FLAGS -c "$HERE/stubs-$LABEL.cpp" -o stubs.o
g++ -no-pie dump.o arg.o common.o log.o stubs.o -o dump -Wl,--unresolved-symbols=ignore-all 2>/dev/null
./dump
