#!/usr/bin/env bash
# Device call 5 (session 10, one H200): the final code. (1) the kernels' four GPU test binaries
# (kernels_gpu_test, kernels_ladder_gpu_test, kernels_peers_gpu_test, kernels_hopper_rungs_gpu_test:
# a26 and g09 in them, the B·H > 65,535 case included) through scripts/gpu-tests.sh (a missing,
# empty or skipped test fails); (2) memcheck and racecheck of g09 on its two tall-tile shapes;
# (3) the smoke suite (every kernel, a26 and g09 included, on odd lengths), every trust check on.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call5; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
grep -E "^kernels/" build/gpu_tests.txt > /tmp/kernel-gpu-tests.txt; cat /tmp/kernel-gpu-tests.txt
GPU_TESTS_LIST=/tmp/kernel-gpu-tests.txt timeout 330 bash scripts/gpu-tests.sh build > $O/kernel-gpu-tests.log 2>&1
echo "gpu tests exit $? at $(( $(date +%s) - T0 )) s"; grep -E "^\[  (PASSED|FAILED)|gpu tests:|FAILED" $O/kernel-gpu-tests.log | head -20
python3 - <<'PY'
import json
d = json.load(open('suites/testing/gemm_hopper_sanitize.json'))
d['name'] = 'gemm_g09_sanitize'; d['kernels'] = ['gemm.g09_tall_tiles']
d['description'] = "g09's 192x192 tiles alone (2312x1544x136) and in clusters of two over an odd tile-row count (5000x2312x72): the shapes G09TallTilesMatchTheReference asserts (session 10)."
d['problems'] = [{'family': 'gemm', 'axes': {'dtype': 'bf16', 'm': 2312, 'n': 1544, 'k': 136}},
                 {'family': 'gemm', 'axes': {'dtype': 'fp16', 'm': 5000, 'n': 2312, 'k': 72}}]
json.dump(d, open('/tmp/g09_sanitize.json', 'w'), indent=1)
PY
for tool in memcheck racecheck; do
  timeout 60 $B/cli/flashscope run /tmp/g09_sanitize.json --sanitize=$tool --out $O/$tool-g09.json --color=never > $O/$tool-g09.txt 2>&1
  echo "$tool exit $? at $(( $(date +%s) - T0 )) s"; grep -E "cases with errors" $O/$tool-g09.txt | head -3
done
timeout 150 $B/cli/flashscope run smoke --out $O/smoke.json --deadline_s 140 --color=never > $O/smoke.table.txt 2> $O/smoke.log
echo "smoke exit $? at $(( $(date +%s) - T0 )) s"; tail -n 1 $O/smoke.log
python3 - $O/smoke.json <<'PY' | tee $O/smoke-summary.txt
import json, sys, collections
d = json.load(open(sys.argv[1]))
print('smoke (session 10 device call 5):', len(d['cases']), 'cases', dict(collections.Counter(c['status'] for c in d['cases'])), 'complete:', d.get('complete'))
for k in ('attn.a26_trim_warpgroups', 'gemm.g09_tall_tiles'):
    print(k, dict(collections.Counter(c['status'] for c in d['cases'] if c['kernel_id'] == k)))
print('not passed or skipped:', [(c['kernel_id'], c['problem_key'], c['status'], c.get('reason', '')[:200]) for c in d['cases'] if c['status'] not in ('passed', 'skipped')])
PY
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call5.tar.xz call5 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
