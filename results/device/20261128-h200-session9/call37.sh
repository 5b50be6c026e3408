#!/usr/bin/env bash
# Device call 8 (session 9, one H200), after the review's host refactor of g06's tensor maps
# (709374d: EncodeMaps): the GEMM cases of kernels_hopper_rungs_gpu_test (g06 widths, g07 split
# tail, g08), kernels_gpu_test (every rung on odd shapes), and the pitch study's correctness lines.
set -uo pipefail
T0=$(date +%s); root=$PWD; O=$OUT/call8; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv > $O/gpus.csv
timeout 120 build/kernels/kernels_hopper_rungs_gpu_test --gtest_filter='*Gemm*:*G06*:*G08*:*EveryRung*' > $O/hopper-rungs-gemm.log 2>&1; echo "hopper gemm tests exit $? at $(( $(date +%s) - T0 )) s"; tail -n 2 $O/hopper-rungs-gemm.log
timeout 120 build/kernels/kernels_gpu_test > $O/kernels-gpu-test.log 2>&1; echo "kernels_gpu_test exit $? at $(( $(date +%s) - T0 )) s"; tail -n 2 $O/kernels-gpu-test.log
timeout 120 tools/gemm_sweep --pitch 5 > $O/pitch.txt 2>&1; echo "pitch exit $? at $(( $(date +%s) - T0 )) s"; grep -c "err .* ok" $O/pitch.txt; grep -c WRONG $O/pitch.txt; tail -n 1 $O/pitch.txt
tar -C $OUT -cJf $OUT/call8.tar.xz call8 && rm -rf $O
