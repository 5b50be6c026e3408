#!/usr/bin/env bash
# Device call 8 (session 10, one H200): g06 v5 (128-byte L2 promotion for operands whose rows are
# off the 32-byte grid, g06::PromotionFor; g07-g09 share it). (1) the promotion study again, with
# g06 as registered; (2) the GEMM tests of kernels_hopper_rungs_gpu_test; (3) the whole of
# suites/shapes.json (the README's table), every trust check on.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call8; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
timeout 60 tools/gemm_sweep --promotion 25 > $O/promotion.txt 2>&1; echo "promotion exit $? at $(( $(date +%s) - T0 )) s"
grep -E "3000|5000" $O/promotion.txt | grep -E "cuBLAS|registered|256 B"; tail -n 1 $O/promotion.txt
timeout 60 $B/kernels/kernels_hopper_rungs_gpu_test --gtest_filter='*G0*:*SplitTail*:*EveryRung*' > $O/hopper-rungs-gemm.log 2>&1; echo "hopper rungs GEMM tests exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|Failure" $O/hopper-rungs-gemm.log | head
timeout 300 $B/cli/flashscope run suites/shapes.json --out $O/shapes.json --deadline_s 290 --color=never > $O/shapes.table.txt 2> $O/shapes.log
echo "shapes exit $? at $(( $(date +%s) - T0 )) s"; tail -n 1 $O/shapes.log
python3 scripts/ladder_tables.py $O/shapes.json --best --summary-only --vs peer.cudnn_sdpa,peer.cublas_gemm > $O/shapes.best.md 2>&1; tail -n 12 $O/shapes.best.md
python3 - $O/shapes.json <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1])); t = collections.defaultdict(dict)
print('complete:', d.get('complete'), 'not passed:', [(c['kernel_id'], c['problem_key'], c['status']) for c in d['cases'] if c['status'] != 'passed'])
for c in d['cases']:
    if c['status'] == 'passed' and c['family'] == 'gemm': t[c['problem_key']][c['kernel_id'].split('.')[1][:3]] = c['throughput']['tflops']
for p, v in t.items(): print('%-36s %s  best/cublas %.2f' % (p, ' '.join('%s %.1f' % kv for kv in sorted(v.items())), max(v.get('g06', 0), v.get('g07', 0)) / v['cub']))
PY
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call8.tar.xz call8 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
