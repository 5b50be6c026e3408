#!/usr/bin/env bash
# trust helper, device call 2: the trust checks proven on the cheats, the smoke suite (every honest
# kernel) and their overhead on ladder cases. Reports and logs come back in $OUT/call2.tgz.
set -uo pipefail
T0=$(date +%s)
S=.scratch/trust
mkdir -p /tmp/tb && tar -C /tmp/tb -xJf $S/bins.tar.xz
B=/tmp/tb/build
F=$B/cli/flashscope
W=/tmp/w; mkdir -p $W
left() { echo $(( 285 - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,power.limit --format=csv | tee $W/smi.txt
echo "### 1 trust suite ($(left) s left)"
$F run $S/trust.json --out $W/trust.json --deadline_s 75 --quiet --color=never > $W/trust.log 2>&1
echo "rc=$?"; tail -n 8 $W/trust.log
FLASHSCOPE_TRUST_REPORT=$W/trust.json $B/suites/suites_trust_gpu_test > $W/trust_test.log 2>&1
echo "trust test rc=$?"; grep -E "Failure|Expected|Which is|was not caught|OK \]|FAILED|PASSED" $W/trust_test.log | head -n 30
echo "### 2 GPU tests ($(left) s left)"
FLASHSCOPE_TRACE_TEST_PLUGIN=$B/profiler/libfs_trace_test_plugin.so timeout 40 $B/profiler/profiler_trace_sample_gpu_test > $W/gpu_tests.log 2>&1; echo "trace rc=$?"
timeout 40 $B/verify/verify_workspace_gpu_test >> $W/gpu_tests.log 2>&1; echo "workspace rc=$?"
grep -E "^\[  (PASSED|FAILED)|Failure" $W/gpu_tests.log | head -n 12
echo "### 3 smoke ($(left) s left)"
D=$(( $(left) - 80 )); [ $D -gt 115 ] && D=115
$F run smoke --out $W/smoke.json --deadline_s $D --quiet --color=never > $W/smoke.log 2>&1
echo "rc=$?"; tail -n 4 $W/smoke.log
echo "### 4 overhead ($(left) s left)"
$F run $S/overhead_off.json --out $W/ovh_off.json --deadline_s 30 --quiet --color=never > $W/ovh_off.log 2>&1; echo "off rc=$?"
D=$(( $(left) - 12 )); [ $D -gt 45 ] && D=45
$F run $S/overhead_on.json --out $W/ovh_on.json --deadline_s $D --quiet --color=never > $W/ovh_on.log 2>&1; echo "on rc=$?"
echo "### summaries ($(left) s left)"
P="python3 $S/trust_summary.py"
$P cheats $W/trust.json > $W/cheats.md 2>&1; grep -E "test\.|NOT" $W/cheats.md | cut -c1-230
$P honest $W/trust.json 2>&1 | head -n 12
$P honest $W/smoke.json 2>&1 | head -n 30
$P overhead $W/ovh_on.json $W/ovh_off.json > $W/overhead.md 2>&1; tail -n 3 $W/overhead.md
tar -C $W -czf $OUT/call2.tgz . ; ls -la $OUT
