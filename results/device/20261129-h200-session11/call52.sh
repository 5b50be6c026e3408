#!/usr/bin/env bash
# Device call 7 (session 11, one H200), the binaries of 982bc08 (as call 6): the whole smoke suite
# (every kernel, every trust check) and the attention tests of kernels_hopper_rungs_gpu_test but
# the 131-second B·H > 65,535 case, after split-KV's workspace moved to DeviceScratch.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call7; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
timeout 330 $B/cli/flashscope run smoke --out $O/smoke.json --deadline_s 320 --color=never > $O/smoke.txt 2>&1
echo "smoke exit $? at $(( $(date +%s) - T0 )) s"
for s in passed skipped failed; do echo "$s $(grep -cE "^\[[0-9]+/[0-9]+\] $s" $O/smoke.txt)"; done
grep -E "^\[[0-9]+/[0-9]+\] (failed|error)" $O/smoke.txt | head -10
grep -E "^\[[0-9]+/[0-9]+\] skipped" $O/smoke.txt | sed 's/.*skipped *//' | awk '{print $1}' | sort | uniq -c | sort -rn | head -12
timeout 150 $B/kernels/kernels_hopper_rungs_gpu_test --gtest_filter=-*ManyHeads*:*G0*:*G1*:*SplitTail* > $O/hopper-rungs-attn.log 2>&1; echo "hopper rungs attention tests exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|Failure" $O/hopper-rungs-attn.log | head -5
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call7.tar.xz call7 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
