#!/usr/bin/env bash
# Device call 3 (session 8, one H200): the batched profiler's GPU test after its screen comparison
# learnt the FP32 bound (a counter the full set does not hold: compared with the FFMA lanes instead).
set -uo pipefail
[[ -x build/profiler/profiler_batch_profile_gpu_test ]] || tar -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv
timeout 200 build/profiler/profiler_batch_profile_gpu_test 2>&1 | tee $OUT/call3-batch-profile-gpu-test.log | tail -n 25
