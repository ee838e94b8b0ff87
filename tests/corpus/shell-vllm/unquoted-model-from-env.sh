#!/bin/bash
# MODEL comes from the job scheduler
: "${MODEL:?MODEL must be set}"
TP=${TP:-1}

exec vllm serve $MODEL --tensor-parallel-size $TP --port 8000 --max-num-seqs 128
