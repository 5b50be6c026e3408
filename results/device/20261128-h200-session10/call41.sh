#!/usr/bin/env bash
# Device call 4 (session 10, one H200): g09 (192 x 192 tiles on three consumer warpgroups). (1) the
# GEMM tests of kernels_hopper_rungs_gpu_test (g06 widths, g07, g08 on the changed templates, g09's
# own); (2) the 14 GEMM problems of suites/shapes.json with g06, g07, g09 and cuBLAS, every trust
# check on.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call4; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
timeout 120 $B/kernels/kernels_hopper_rungs_gpu_test --gtest_filter='*G0*:*SplitTail*:*EveryRung*' > $O/hopper-rungs-gemm.log 2>&1; echo "hopper rungs GEMM tests exit $? at $(( $(date +%s) - T0 )) s"; grep -E "OK|FAILED|PASSED|Failure" $O/hopper-rungs-gemm.log | head -20
python3 - <<'PY'
import json
d = json.load(open('suites/shapes.json'))
d['name'] = 'shapes_gemm_g09'
d['description'] = 'suites/shapes.json, GEMM only, with g06, g07, g09 and cuBLAS (session 10, call 4).'
d['kernels'] = ['gemm.g06_tma_ws', 'gemm.g07_split_tail', 'gemm.g09_tall_tiles', 'peer.cublas_gemm']
d['problems'] = [p for p in d['problems'] if p['family'] == 'gemm']
json.dump(d, open('/tmp/gemm.json', 'w'), indent=1)
PY
timeout 200 $B/cli/flashscope run /tmp/gemm.json --out $O/shapes-gemm.json --deadline_s 190 --color=never > $O/shapes-gemm.table.txt 2> $O/shapes-gemm.log
echo "shapes gemm exit $? at $(( $(date +%s) - T0 )) s"; tail -n 1 $O/shapes-gemm.log
python3 - $O/shapes-gemm.json <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1])); t = collections.defaultdict(dict); fn = {}
print('not passed:', [(c['kernel_id'], c['problem_key'], c['status'], c.get('reason', '')[:300]) for c in d['cases'] if c['status'] != 'passed'])
for c in d['cases']:
    if c['status'] == 'passed': t[c['problem_key']][c['kernel_id'].split('.')[1][:3]] = c['throughput']['tflops']
for p, v in t.items():
    base = max(v.get('g06', 0), v.get('g07', 0)); cub = v.get('cub', 0)
    print('%-36s %s  g09/best(g06,g07) %.3f  g09/cublas %.2f' % (p, ' '.join('%s %.1f' % kv for kv in sorted(v.items())), v.get('g09', 0) / base if base else 0, v.get('g09', 0) / cub if cub else 0))
PY
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call4.tar.xz call4 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
