#!/bin/bash
#SBATCH --job-name=vllm-mixtral
#SBATCH --gres=gpu:4
#SBATCH --cpus-per-task=32
#SBATCH --time=24:00:00

module load cuda/12.4
source ~/envs/vllm/bin/activate

srun vllm serve mistralai/Mixtral-8x7B-Instruct-v0.1 \
  --tensor-parallel-size 4 \
  --max-model-len 32768 \
  --port 8000
