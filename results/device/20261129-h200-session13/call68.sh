#!/usr/bin/env bash
# Device call 4 (session 13, one H200): kernels_fp8_gpu_test whole on ff2fcb3 (the tree after
# call 3): a27, a28 and a29 on B·H = 65,538 (the held-out case a28 and a29 had not run), and
# A28OverlapsAt64And128AndRunsA27At256 with names compared instead of host stubs (call 3 failed it
# on the stubs: a28's file compiles its own copy of a27's D = 256 kernel since 0faf36b).
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call4; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
timeout 420 $B/kernels/kernels_fp8_gpu_test > $O/kernels_fp8_gpu_test.log 2>&1
echo "kernels_fp8_gpu_test exit $? at $(( $(date +%s) - T0 )) s"; grep -E "^\[  (FAILED|PASSED|SKIPPED)|OK \]|Failure" $O/kernels_fp8_gpu_test.log | head -20
tar -C $OUT -cJf $OUT/call4.tar.xz call4 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
