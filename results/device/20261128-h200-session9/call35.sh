#!/usr/bin/env bash
# Device call 6 (session 9, one H200): the kernels' GPU tests on the final code (g06/g07/g08 share
# the changed g06 templates; a24's dispatch rule; the Hopper rungs test's GEMM cases now through
# one helper): kernels_gpu_test, kernels_ladder_gpu_test, kernels_peers_gpu_test and
# kernels_hopper_rungs_gpu_test, through scripts/gpu-tests.sh (a missing, empty or skipped test
# fails).
set -uo pipefail
T0=$(date +%s); root=$PWD; O=$OUT/call6; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv > $O/gpus.csv
grep -E "^kernels/" build/gpu_tests.txt > /tmp/kernel-gpu-tests.txt; cat /tmp/kernel-gpu-tests.txt
GPU_TESTS_LIST=/tmp/kernel-gpu-tests.txt timeout 500 bash scripts/gpu-tests.sh build > $O/gpu-tests.log 2>&1
echo "gpu tests exit $? at $(( $(date +%s) - T0 )) s"; tail -n 4 $O/gpu-tests.log
tar -C $OUT -cJf $OUT/call6.tar.xz call6 && rm -rf $O
