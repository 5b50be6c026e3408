#!/usr/bin/env bash
# Device call 4 (session 11, one H200): g10_row_bands (g06 in two row bands where the wave-time
# model prices them lower). (1) the GEMM tests of kernels_hopper_rungs_gpu_test (g10's bands
# against the CPU reference, launched twice; g06's widths; g07) and kernels_gpu_test's
# EveryGemmKernelMatchesTheCpuReference; (2) memcheck and racecheck of g10 on a shape it splits;
# (3) held-out GEMM sizes with g06, g10 and cuBLAS; (4) the whole of suites/shapes.json (g10 now in
# it), every trust check on: the README's table if g10 stays.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call4; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
python3 - <<'PY'
import json
d = json.load(open('suites/shapes.json'))
g = dict(d); g['name'] = 'gemm_heldout'; g['kernels'] = ['gemm.g06_tma_ws', 'gemm.g10_row_bands', 'peer.cublas_gemm']
g['description'] = 'Session 11 call 4: GEMM sizes outside shapes.json (g10 splits some).'
g['problems'] = [{"family": "gemm", "axes": {"dtype": ["bf16", "fp16"], "size": [4500, 5500, 7000]}},
                 {"family": "gemm", "axes": {"dtype": "bf16", "m": 3500, "n": 6000, "k": 4096}},
                 {"family": "gemm", "axes": {"dtype": "bf16", "m": 5000, "n": 5000, "k": 1000}},
                 {"family": "gemm", "axes": {"dtype": "fp16", "m": 12000, "n": 4000, "k": 4000}},
                 {"family": "gemm", "axes": {"dtype": "bf16", "m": 2200, "n": 1840, "k": 2048}}]
json.dump(g, open('/tmp/gemm_heldout.json', 'w'), indent=1)
t = dict(d); t['name'] = 'g10_sanitize'; t['kernels'] = ['gemm.g10_row_bands']
t['description'] = 'Session 11 call 4: g10 on shapes it splits, for compute-sanitizer.'
t['problems'] = [{"family": "gemm", "axes": {"dtype": "bf16", "m": 2200, "n": 1840, "k": 2048}},
                 {"family": "gemm", "axes": {"dtype": "fp16", "m": 1800, "n": 3296, "k": 1024}}]
json.dump(t, open('/tmp/g10_sanitize.json', 'w'), indent=1)
PY
timeout 90 $B/kernels/kernels_hopper_rungs_gpu_test --gtest_filter=*G10*:*G06*:*SplitTail* > $O/hopper-rungs-gemm.log 2>&1; echo "hopper rungs gemm tests exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|Failure|OK \]" $O/hopper-rungs-gemm.log | head -10
timeout 90 $B/kernels/kernels_gpu_test --gtest_filter=*Gemm* > $O/kernels-gpu-gemm.log 2>&1; echo "kernels gpu gemm tests exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|Failure" $O/kernels-gpu-gemm.log | head -5
for tool in memcheck racecheck; do
  timeout 60 $B/cli/flashscope run /tmp/g10_sanitize.json --sanitize=$tool --out $O/$tool-g10.json --color=never > $O/$tool-g10.txt 2>&1
  echo "$tool exit $? at $(( $(date +%s) - T0 )) s"; grep -E "\[sanitize" $O/$tool-g10.txt | head -3
done
timeout 60 $B/cli/flashscope run /tmp/gemm_heldout.json --out $O/heldout.json --deadline_s 55 --color=never > $O/heldout.table.txt 2> $O/heldout.log
echo "heldout exit $? at $(( $(date +%s) - T0 )) s"
timeout 330 $B/cli/flashscope run suites/shapes.json --out $O/shapes.json --deadline_s 320 --color=never > $O/shapes.table.txt 2> $O/shapes.log
echo "shapes exit $? at $(( $(date +%s) - T0 )) s"; tail -n 1 $O/shapes.log
python3 - $O/heldout.json $O/shapes.json <<'PY'
import json, sys, collections
for f in sys.argv[1:]:
    d = json.load(open(f)); t = collections.defaultdict(dict)
    print(f.split('/')[-1], 'not passed:', [(c['kernel_id'], c['problem_key'], c['status']) for c in d['cases'] if c['status'] != 'passed'])
    for c in d['cases']:
        if c['status'] == 'passed' and c['family'] == 'gemm': t[c['problem_key']][c['kernel_id'].split('.')[1][:3]] = c['throughput']['tflops']
    for p, v in t.items():
        print('  %-36s %s' % (p, ' '.join('%s %.0f(%.3f)' % (k, x, x / v['cub']) for k, x in sorted(v.items()))))
PY
python3 scripts/ladder_tables.py $O/shapes.json --best --summary-only --vs peer.cudnn_sdpa,peer.cublas_gemm > $O/shapes.best.md 2>&1; tail -n 11 $O/shapes.best.md
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call4.tar.xz call4 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
