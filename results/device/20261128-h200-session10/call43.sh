#!/usr/bin/env bash
# Device call 6 (session 10, one H200): after the review's test helper (the GEMM tests' "runs the
# function it means to test" preamble made one AssertRunsTheFunctionItTests), the GEMM tests of
# kernels_hopper_rungs_gpu_test (g06 widths, g07, g08, g09).
set -uo pipefail
T0=$(date +%s); root=$PWD; O=$OUT/call6; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
timeout 120 build/kernels/kernels_hopper_rungs_gpu_test --gtest_filter='*G0*:*SplitTail*:*EveryRung*' > $O/hopper-rungs-gemm.log 2>&1
echo "hopper rungs GEMM tests exit $? at $(( $(date +%s) - T0 )) s"; grep -E "OK|FAILED|PASSED|Failure" $O/hopper-rungs-gemm.log | head -20
tar -C $OUT -cJf $OUT/call6.tar.xz call6 && rm -rf $O
