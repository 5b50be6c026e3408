#!/usr/bin/env bash
# Device call 8 (session 8, 2 x H200, main 19b57a3): the supervisor's ab and demo GPU tests, the
# last two binaries of gpu_tests.txt no earlier call of the session carried, one per GPU.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call8; mkdir -p $O
[[ -f $B/gpu_tests_sup.txt ]] || tar -C "$root" -xJf .carry/bins.tar.xz
mkdir -p /work; [[ -e /work/main ]] || ln -sfn "$root" /work/main
nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv > $O/gpus.csv
sed -n '1~2p' $B/gpu_tests_sup.txt > $B/sup_a.txt; sed -n '2~2p' $B/gpu_tests_sup.txt > $B/sup_b.txt
(export CUDA_VISIBLE_DEVICES=0; GPU_TESTS_LIST=$B/sup_a.txt timeout 280 bash scripts/gpu-tests.sh $B > $O/gpu-tests-a.log 2>&1
 echo "list a exit $? at $(( $(date +%s) - T0 )) s"; grep -E "^(FAILED|gpu tests)" $O/gpu-tests-a.log) > $O/a.txt 2>&1 &
(export CUDA_VISIBLE_DEVICES=1; GPU_TESTS_LIST=$B/sup_b.txt timeout 280 bash scripts/gpu-tests.sh $B > $O/gpu-tests-b.log 2>&1
 echo "list b exit $? at $(( $(date +%s) - T0 )) s"; grep -E "^(FAILED|gpu tests)" $O/gpu-tests-b.log) > $O/b.txt 2>&1 &
wait; cat $B/sup_a.txt $B/sup_b.txt; cat $O/a.txt $O/b.txt
tar -C $OUT -cJf $OUT/call8.tar.xz call8
