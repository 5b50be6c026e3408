#!/usr/bin/env bash
# Device call 11 (session 11, one H200): g11's GPU test after its copy grid took SmCount() and
# g06::CeilDiv in place of literals (the grid is the same on 132 SMs).
set -uo pipefail
tar -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv
timeout 60 build/kernels/kernels_hopper_rungs_gpu_test --gtest_filter=*G11*:*G10* 2>&1 | grep -E "OK \]|FAILED|PASSED|Failure"
