#!/usr/bin/env bash
# Device call 5 (session 12, one H200): the final code (g12 with C staged in 64-column parts).
# (1) the whole of suites/shapes.json, g12 among its kernels (the README's table); (2) the GEMM
# tests of kernels_hopper_rungs_gpu_test (g06-g12), kernels_gpu_test whole, the device-scratch and
# peers GPU tests; (3) memcheck and racecheck of g12; (4) smoke's GEMM problems with g12.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call5; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
python3 - <<'PY'
import json
d = json.load(open('suites/shapes.json'))
t = dict(d); t['name'] = 'g12_sanitize'; t['kernels'] = ['gemm.g12_staged_c']
t['description'] = 'Session 12 call 5: g12 on a split shape, a padded one and tiles past M and N, for compute-sanitizer.'
t['problems'] = [{"family": "gemm", "axes": {"dtype": "bf16", "m": 1800, "n": 3296, "k": 2048}},
                 {"family": "gemm", "axes": {"dtype": "bf16", "m": 1000, "n": 17, "k": 1000}},
                 {"family": "gemm", "axes": {"dtype": "fp16", "m": 1000, "n": 1000, "k": 520}}]
json.dump(t, open('/tmp/g12_sanitize.json', 'w'), indent=1)
PY
timeout 330 $B/cli/flashscope run suites/shapes.json --out $O/shapes.json --deadline_s 320 --color=never > $O/shapes.table.txt 2> $O/shapes.log
echo "shapes exit $? at $(( $(date +%s) - T0 )) s"; tail -n 2 $O/shapes.log; grep -E "^suite" $O/shapes.table.txt
python3 - $O/shapes.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print('not passed:', [(c['kernel_id'], c['problem_key'], c['status'], c.get('reason', '')[:150]) for c in d['cases'] if c['status'] != 'passed'])
PY
timeout 120 $B/kernels/kernels_hopper_rungs_gpu_test --gtest_filter=*G0*:*G1*:*Gemm* > $O/hopper-rungs-gemm.log 2>&1; echo "hopper rungs gemm tests exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|Failure" $O/hopper-rungs-gemm.log | head -5
for t in kernels_gpu_test kernels_device_scratch_gpu_test kernels_peers_gpu_test; do
  timeout 120 $B/kernels/$t > $O/$t.log 2>&1; echo "$t exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|SKIPPED" $O/$t.log | head -5
done
for tool in memcheck racecheck; do
  timeout 80 $B/cli/flashscope run /tmp/g12_sanitize.json --sanitize=$tool --out $O/$tool-g12.json --color=never > $O/$tool-g12.txt 2>&1
  echo "$tool exit $? at $(( $(date +%s) - T0 )) s"; grep -E "\[sanitize" $O/$tool-g12.txt | head -6
done
timeout 100 $B/cli/flashscope run smoke --kernels 'gemm.g12*' --out $O/smoke-g12.json --color=never > $O/smoke-g12.txt 2>&1
echo "smoke exit $? at $(( $(date +%s) - T0 )) s"; echo "smoke: $(grep -c '\] passed' $O/smoke-g12.txt) passed, $(grep -c '\] skipped' $O/smoke-g12.txt) skipped, $(grep -cE '\] (failed|error|timeout)' $O/smoke-g12.txt) failed"
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call5.tar.xz call5 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
