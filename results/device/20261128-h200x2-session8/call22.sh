#!/usr/bin/env bash
# Device call 2 (session 8, 2 x H200, main 673c41c): the trust checks' cost again after the screen's
# FP32 bound, settles of up to 512 cases and whole windows on one GPU (GPU 0 alone on the host);
# then the red team with its honest cases (trust, trust_python, their GPU test) on GPU 0 and the
# batched profiler's and harness checks' GPU tests on GPU 1. Everything packed into one archive.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call2; mkdir -p $O
[[ -x $B/cli/flashscope ]] || tar -C "$root" -xJf .carry/bins.tar.xz
mkdir -p /work; [[ -e /work/main ]] || ln -sfn "$root" /work/main
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
mkdir -p $O/cost
(export CUDA_VISIBLE_DEVICES=0; OUT=$O/cost DEADLINE_S=200 bash scripts/device/trust-cost.sh $B) > $O/trust-cost.log 2>&1
echo "trust-cost done at $(el) s"; head -24 $O/cost/trust-cost.md; head -36 $O/cost/phase-trace.md
(export CUDA_VISIBLE_DEVICES=0
 OUT=$O/release DEADLINE_S=$(( 520 - $(el) )) bash scripts/device/release.sh $B s8 info trust trust-python trust-test > $O/release.log 2>&1
 echo "release exit $? at $(el) s"; cp -r /tmp/release-s8 $O/release-work 2>/dev/null) > $O/gpu0.txt 2>&1 &
(export CUDA_VISIBLE_DEVICES=1
 timeout 200 $B/profiler/profiler_batch_profile_gpu_test --gtest_brief=1 > $O/batch-profile-gpu-test.log 2>&1
 echo "profiler_batch_profile_gpu_test exit $? at $(el) s"; tail -n 3 $O/batch-profile-gpu-test.log) > $O/gpu1.txt 2>&1 &
wait
cat $O/gpu0.txt $O/gpu1.txt; grep -E "^#####|exit|passed|failed|caught" $O/release.log | head -40
tar -C $OUT -cJf $OUT/call2.tar.xz call2 && rm -rf $O/release-work $O/cost/*.xz
echo "end at $(el) s"
