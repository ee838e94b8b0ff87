#!/bin/bash
# Intel Arc A770, oneAPI 2025
source /opt/intel/oneapi/setvars.sh

cmake -B build -DGGML_SYCL=ON -DCMAKE_C_COMPILER=icx -DCMAKE_CXX_COMPILER=icpx -DGGML_SYCL_F16=ON
cmake --build build --config Release -j

export ONEAPI_DEVICE_SELECTOR=level_zero:0
export ZES_ENABLE_SYSMAN=1
./build/bin/llama-server -m models/llama-2-7b.Q4_0.gguf -ngl 99 -sm none -mg 0 --port 8080
