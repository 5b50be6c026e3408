#!/usr/bin/env bash
# Device call B (evening): P1 the red team with rotated buffers (GPU 1) then the Hopper rungs' GPU
# test, and the other one-GPU GPU tests (GPU 0); P2 the two-GPU tests with both GPUs; P3 the smoke
# suite's scaling (shard 1/4, one GPU then both), alone on the machine.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=/tmp/oB; mkdir -p $O
[[ -x $B/cli/flashscope ]] || tar -C "$root" -xJf .carry/bins.tar.xz
mkdir -p /work; [[ -e /work/main ]] || ln -sfn "$root" /work/main
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv > $O/gpus.csv; cat $O/gpus.csv
echo "== P1 $(date -u +%T)"
grep -v -e supervisor_trust_gpu_test -e kernels_hopper_rungs_gpu_test -e supervisor_isolation_gpu_test -e supervisor_devices_gpu_test $B/gpu_tests.txt > $O/tests-one.txt
(export CUDA_VISIBLE_DEVICES=1; mkdir -p $O/trust; OUT=$O/trust DEADLINE_S=140 timeout 150 bash scripts/device/release.sh $B rotate info trust trust-python trust-test > $O/trust.log 2>&1; echo "trust exit $? at $(el) s"
 timeout $((300 - $(el))) $B/kernels/kernels_hopper_rungs_gpu_test --gtest_brief=1 > $O/hopper-rungs.log 2>&1; echo "hopper rungs exit $? at $(el) s") &
(export CUDA_VISIBLE_DEVICES=0; GPU_TESTS_LIST=$O/tests-one.txt timeout 290 bash scripts/gpu-tests.sh $B > $O/gpu-tests-one.log 2>&1; echo "gpu tests (one GPU) exit $? at $(el) s") &
wait
echo "== P2 $(date -u +%T) ($(el) s)"
printf '%s\n' supervisor/supervisor_isolation_gpu_test supervisor/supervisor_devices_gpu_test > $O/tests-two.txt
GPU_TESTS_LIST=$O/tests-two.txt timeout $((440 - $(el))) bash scripts/gpu-tests.sh $B > $O/gpu-tests-two.log 2>&1; echo "gpu tests (both GPUs) exit $? at $(el) s"
echo "== P3 $(date -u +%T) ($(el) s)"
mkdir -p $O/scaling; OUT=$O/scaling DEADLINE_S=60 timeout $((585 - $(el))) bash scripts/device/devices-scaling.sh $B smoke --shard 1/4 > $O/scaling.log 2>&1; echo "scaling exit $? at $(el) s"
echo "== done $(date -u +%T) ($(el) s)"
grep -E "^\[  (FAILED|PASSED) |was not caught|not rotated|trust-test" $O/trust.log | head -20
tail -n 3 $O/hopper-rungs.log; tail -n 2 $O/gpu-tests-one.log $O/gpu-tests-two.log
grep -h "^FAILED\|FAILED  \]" $O/gpu-tests-*.log $O/hopper-rungs.log | head
cat $O/scaling/scaling-smoke.md 2>/dev/null | head -40
tar -C $O -czf $OUT/callB.tgz .
ls -la $OUT
