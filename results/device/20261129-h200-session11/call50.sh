#!/usr/bin/env bash
# Device call 5 (session 11, one H200): g10 with its band widths 256/192/128 and a 5 us second
# launch (call 4: a 128 x 64 band measured -8 %), and g11_padded_operands (K or N off the
# 8-element grid on the tensor-map path). (1) the GEMM tests of kernels_hopper_rungs_gpu_test
# (g10's bands, g11's padded paths) and kernels_gpu_test's GEMM tests (misaligned pointers too);
# (2) memcheck and racecheck of g10 and g11; (3) smoke's GEMM problems with g10 and g11, every
# trust check on; (4) GEMM sizes outside shapes.json with g06, g10, g11 and cuBLAS.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call5; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
python3 - <<'PY'
import json
d = json.load(open('suites/shapes.json'))
g = dict(d); g['name'] = 'gemm_heldout2'; g['kernels'] = ['gemm.g06_tma_ws', 'gemm.g10_row_bands', 'gemm.g11_padded_operands', 'peer.cublas_gemm']
g['description'] = 'Session 11 call 5: GEMM sizes outside shapes.json: off the 8-element grid (g11) and shapes g10 splits.'
g['problems'] = [{"family": "gemm", "axes": {"dtype": ["bf16", "fp16"], "size": [4500, 5500]}},
                 {"family": "gemm", "axes": {"dtype": "bf16", "m": 3001, "n": 2999, "k": 1001}},
                 {"family": "gemm", "axes": {"dtype": "fp16", "m": 8192, "n": 8190, "k": 4100}},
                 {"family": "gemm", "axes": {"dtype": "bf16", "m": 1000, "n": 17, "k": 1000}},
                 {"family": "gemm", "axes": {"dtype": "bf16", "m": 16384, "n": 1000, "k": 4097}},
                 {"family": "gemm", "axes": {"dtype": ["bf16", "fp16"], "size": 5000}},
                 {"family": "gemm", "axes": {"dtype": "fp16", "m": 1800, "n": 3296, "k": 2048}},
                 {"family": "gemm", "axes": {"dtype": "bf16", "m": 3900, "n": 3088, "k": 1024}},
                 {"family": "gemm", "axes": {"dtype": "bf16", "m": 3600, "n": 3400, "k": 1024}},
                 {"family": "gemm", "axes": {"dtype": "bf16", "m": 5000, "n": 5000, "k": 2000}},
                 {"family": "gemm", "axes": {"dtype": "bf16", "m": 2200, "n": 1840, "k": 2048}}]
json.dump(g, open('/tmp/gemm_heldout2.json', 'w'), indent=1)
t = dict(d); t['name'] = 'g10_g11_sanitize'; t['kernels'] = ['gemm.g10_row_bands', 'gemm.g11_padded_operands']
t['description'] = 'Session 11 call 5: g10 on a shape it splits, g11 on shapes it pads, for compute-sanitizer.'
t['problems'] = [{"family": "gemm", "axes": {"dtype": "bf16", "m": 1800, "n": 3296, "k": 2048}},
                 {"family": "gemm", "axes": {"dtype": "bf16", "m": 1000, "n": 17, "k": 1000}},
                 {"family": "gemm", "axes": {"dtype": "fp16", "m": 517, "n": 301, "k": 1001}}]
json.dump(t, open('/tmp/g10_g11_sanitize.json', 'w'), indent=1)
PY
timeout 90 $B/kernels/kernels_hopper_rungs_gpu_test --gtest_filter=*G10*:*G11* > $O/hopper-rungs-gemm.log 2>&1; echo "hopper rungs g10/g11 tests exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|Failure|OK \]" $O/hopper-rungs-gemm.log | head -10
timeout 90 $B/kernels/kernels_gpu_test --gtest_filter=*Gemm* > $O/kernels-gpu-gemm.log 2>&1; echo "kernels gpu gemm tests exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|Failure" $O/kernels-gpu-gemm.log | head -5
for tool in memcheck racecheck; do
  timeout 80 $B/cli/flashscope run /tmp/g10_g11_sanitize.json --sanitize=$tool --out $O/$tool-g10-g11.json --color=never > $O/$tool-g10-g11.txt 2>&1
  echo "$tool exit $? at $(( $(date +%s) - T0 )) s"; grep -E "\[sanitize" $O/$tool-g10-g11.txt | head -6
done
timeout 100 $B/cli/flashscope run smoke --kernels 'gemm.g10*,gemm.g11*' --out $O/smoke-g10-g11.json --color=never > $O/smoke-g10-g11.txt 2>&1
echo "smoke exit $? at $(( $(date +%s) - T0 )) s"; tail -n 3 $O/smoke-g10-g11.txt
timeout 120 $B/cli/flashscope run /tmp/gemm_heldout2.json --out $O/heldout.json --deadline_s 110 --color=never > $O/heldout.table.txt 2> $O/heldout.log
echo "heldout exit $? at $(( $(date +%s) - T0 )) s"
python3 - $O/heldout.json <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1])); t = collections.defaultdict(dict)
print('not passed:', [(c['kernel_id'], c['problem_key'], c['status'], c.get('reason', '')[:150]) for c in d['cases'] if c['status'] != 'passed'])
for c in d['cases']:
    if c['status'] == 'passed': t[c['problem_key']][c['kernel_id'].split('.')[1][:3]] = c['throughput']['tflops']
for p, v in t.items():
    print('  %-36s %s' % (p, ' '.join('%s %.0f(%.3f)' % (k, x, x / v['cub']) for k, x in sorted(v.items()))))
PY
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call5.tar.xz call5 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
