$ErrorActionPreference = "Stop"
$Model = "$env:USERPROFILE\models\Phi-4-mini-instruct-Q8_0.gguf"
& "$env:USERPROFILE\llama.cpp\build\bin\Release\llama-server.exe" `
    --model $Model `
    --ctx-size 4096 `
    --n-gpu-layers 35 `
    --flash-attn on
