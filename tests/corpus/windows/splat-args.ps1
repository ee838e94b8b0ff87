# Start the local llama.cpp server from the Vulkan release zip
$ErrorActionPreference = "Stop"
$LlamaDir = "C:\tools\llama-b5120-bin-win-vulkan-x64"
$ServerExe = "$LlamaDir\llama-server.exe"
$ModelPath = "D:\gguf\Qwen2.5-Coder-7B-Instruct-Q5_K_M.gguf"

$ServerArgs = @(
    "--model", $ModelPath,
    "--n-gpu-layers", "99",
    "--ctx-size", "16384",
    "--port", "8012"
)

Write-Host "Starting $ServerExe"
& $ServerExe @ServerArgs
