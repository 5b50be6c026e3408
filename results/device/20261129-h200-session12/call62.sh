#!/usr/bin/env bash
# Device call 6 (session 12, one H200): the review's commit (g11 and g12 entries built by one
# g11::PaddedEntry): the GEMM tests of kernels_hopper_rungs_gpu_test (G11, G12 among them) and
# kernels_gpu_test's GEMM tests (misaligned pointers: g12's fallback).
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call6; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
timeout 150 $B/kernels/kernels_hopper_rungs_gpu_test --gtest_filter=*G0*:*G1*:*Gemm* > $O/hopper-rungs-gemm.log 2>&1; echo "hopper rungs gemm tests exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|Failure|OK \]" $O/hopper-rungs-gemm.log | head -10
timeout 90 $B/kernels/kernels_gpu_test --gtest_filter=*Gemm* > $O/kernels-gpu-gemm.log 2>&1; echo "kernels gpu gemm tests exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|Failure" $O/kernels-gpu-gemm.log | head -5
tar -C $OUT -cJf $OUT/call6.tar.xz call6 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
