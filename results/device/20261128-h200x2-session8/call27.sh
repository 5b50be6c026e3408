#!/usr/bin/env bash
# Device call 7 (session 8, 2 x H200, main 19b57a3): the profiler's five GPU test binaries that no
# earlier call of the session carried (calibration, device, timing, trace sample, probe workloads),
# split over the two GPUs through scripts/gpu-tests.sh.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call7; mkdir -p $O
[[ -f $B/gpu_tests_last.txt ]] || tar -C "$root" -xJf .carry/bins.tar.xz
mkdir -p /work; [[ -e /work/main ]] || ln -sfn "$root" /work/main
nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv > $O/gpus.csv
sed -n '1~2p' $B/gpu_tests_last.txt > $B/last_a.txt; sed -n '2~2p' $B/gpu_tests_last.txt > $B/last_b.txt
(export CUDA_VISIBLE_DEVICES=0; GPU_TESTS_LIST=$B/last_a.txt timeout 280 bash scripts/gpu-tests.sh $B > $O/gpu-tests-a.log 2>&1
 echo "list a exit $? at $(( $(date +%s) - T0 )) s"; grep -E "^(FAILED|gpu tests)" $O/gpu-tests-a.log) > $O/a.txt 2>&1 &
(export CUDA_VISIBLE_DEVICES=1; GPU_TESTS_LIST=$B/last_b.txt timeout 280 bash scripts/gpu-tests.sh $B > $O/gpu-tests-b.log 2>&1
 echo "list b exit $? at $(( $(date +%s) - T0 )) s"; grep -E "^(FAILED|gpu tests)" $O/gpu-tests-b.log) > $O/b.txt 2>&1 &
wait; cat $B/last_a.txt $B/last_b.txt; cat $O/a.txt $O/b.txt
tar -C $OUT -cJf $OUT/call7.tar.xz call7
