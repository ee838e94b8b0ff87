@echo off
REM start the local model server
set MODEL=C:\models\Qwen2.5-14B-Instruct-Q4_K_M.gguf
cd /d C:\llama
llama-server.exe -m %MODEL% -c 8192 -ngl 99 --host 127.0.0.1 --port 8080
pause
