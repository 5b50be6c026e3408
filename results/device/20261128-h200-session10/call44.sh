#!/usr/bin/env bash
# Device call 7 (session 10, one H200): the L2 promotion study (kernels/perf/gemm_sweep.cu
# --promotion, built here with nvcc): g06's plan on packed rows with L2 promotion none, 64, 128 and
# 256 bytes beside cuBLAS at 3000^3, 5000^3, 6000^3 and 4000^3, fp16 and bf16, every output checked
# against cuBLAS's.
set -uo pipefail
T0=$(date +%s); root=$PWD; O=$OUT/call7; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
timeout 300 tools/gemm_sweep --promotion 25 > $O/promotion.txt 2>&1; echo "promotion exit $? at $(( $(date +%s) - T0 )) s"
cat $O/promotion.txt
tar -C $OUT -cJf $OUT/call7.tar.xz call7 && rm -rf $O
