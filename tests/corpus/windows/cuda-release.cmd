@echo off
C:\tools\llama-b6400-bin-win-cuda-12.4-x64\llama-server.exe -m D:\models\gemma-3-4b-it-Q4_K_M.gguf -fa -c 8192 -ngl 99
