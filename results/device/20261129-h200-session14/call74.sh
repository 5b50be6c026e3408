#!/usr/bin/env bash
# Device call 5 (session 14, one H200): the review's test refactor — kernels_fp8_gpu_test (its
# five bound checks through one fixture helper), all 8 tests.
set -uo pipefail
T0=$(date +%s); O=$OUT/call5; mkdir -p $O
tar -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
timeout 330 build/kernels/kernels_fp8_gpu_test > $O/kernels_fp8_gpu_test.log 2>&1; echo "fp8 gpu test exit $? at $(( $(date +%s) - T0 )) s"
grep -E "OK \]|FAILED|Failure|PASSED|SKIPPED" $O/kernels_fp8_gpu_test.log | head -14
tar -C $OUT -cJf $OUT/call5.tar.xz call5 && rm -rf $O
