@echo off
set HIP_VISIBLE_DEVICES=0,1
C:\AI\llama-b5000-bin-win-hip-radeon-x64\llama-server.exe -m D:\gguf\Llama-3.3-70B-Instruct-Q4_K_M.gguf -ngl 99 -sm layer -ts 1,1 --port 8080
