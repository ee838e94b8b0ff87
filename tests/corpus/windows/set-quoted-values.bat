@echo off
setlocal
rem paths with spaces are quoted inside the value
set LLAMA_DIR=C:\AI\llama-b4600-bin-win-cuda-cu12.4-x64
set MODEL="C:\AI\My Models\gemma-2-9b-it-Q6_K.gguf"
set "COMMON=-ngl 99 -c 8192 --host 127.0.0.1"

"%LLAMA_DIR%\llama-server.exe" -m %MODEL% %COMMON% --port 8080
endlocal
