#!/usr/bin/env bash
# Device call 6 (session 11, one H200), the binaries of 982bc08: (1) the whole of
# suites/shapes.json (g10 with its final band rule), every trust check on: the README's table;
# (2) kernels_gpu_test whole (every attention and GEMM kernel against the CPU reference,
# misaligned pointers, the planted faults); (3) the GEMM tests of kernels_hopper_rungs_gpu_test.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call6; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
timeout 330 $B/cli/flashscope run suites/shapes.json --out $O/shapes.json --deadline_s 320 --color=never > $O/shapes.table.txt 2> $O/shapes.log
echo "shapes exit $? at $(( $(date +%s) - T0 )) s"; tail -n 1 $O/shapes.log
python3 - $O/shapes.json <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1])); t = collections.defaultdict(dict)
print('not passed:', [(c['kernel_id'], c['problem_key'], c['status']) for c in d['cases'] if c['status'] != 'passed'])
for c in d['cases']:
    if c['status'] == 'passed' and c['family'] == 'gemm': t[c['problem_key']][c['kernel_id'].split('.')[1][:3]] = c['throughput']['tflops']
for p, v in t.items():
    print('  %-36s %s' % (p, ' '.join('%s %.0f(%.3f)' % (k, x, x / v['cub']) for k, x in sorted(v.items()))))
PY
python3 scripts/ladder_tables.py $O/shapes.json --best --summary-only --vs peer.cudnn_sdpa,peer.cublas_gemm > $O/shapes.best.md 2>&1; tail -n 11 $O/shapes.best.md
timeout 150 $B/kernels/kernels_gpu_test > $O/kernels-gpu-test.log 2>&1; echo "kernels gpu test exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|Failure|SKIPPED" $O/kernels-gpu-test.log | head -8
timeout 60 $B/kernels/kernels_hopper_rungs_gpu_test --gtest_filter=*G0*:*G1*:*SplitTail* > $O/hopper-rungs-gemm.log 2>&1; echo "hopper rungs gemm tests exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|Failure|OK \]" $O/hopper-rungs-gemm.log | head -10
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call6.tar.xz call6 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
