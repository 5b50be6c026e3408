#!/usr/bin/env bash
# Device call 8 (session 12, one H200): g12 (64-column parts, one buffer) against 32-column parts in
# two buffers (the same 32 KiB; g12x_db32), g11 and cuBLAS, on the GEMM shapes of
# suites/shapes.json and held-out sizes, every trust check on; memcheck and racecheck of g12x_db32.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call8; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
python3 - <<'PY'
import json
d = json.load(open('suites/shapes.json'))
g = dict(d); g['name'] = 'g12_db32_study'; g['kernels'] = ['gemm.g11_padded_operands', 'gemm.g12_staged_c', 'gemm.g12x_db32', 'peer.cublas_gemm']
g['description'] = 'Session 12 call 7: g12 with 32-column parts at 128 x 192 (five stages) against 64-column parts.'
g['problems'] = [p for p in d['problems'] if p.get('family') == 'gemm'] + [
    {"family": "gemm", "axes": {"dtype": "fp16", "m": 12288, "n": 4096, "k": 1536}},
    {"family": "gemm", "axes": {"dtype": "bf16", "m": 4096, "n": 14336, "k": 4096}},
    {"family": "gemm", "axes": {"dtype": "bf16", "m": 2048, "n": 2048, "k": 2048}},
    {"family": "gemm", "axes": {"dtype": "bf16", "m": 3900, "n": 3088, "k": 1024}},
    {"family": "gemm", "axes": {"dtype": "bf16", "m": 5000, "n": 5000, "k": 2000}}]
json.dump(g, open('/tmp/g12_db32.json', 'w'), indent=1)
t = dict(d); t['name'] = 'g12x_sanitize'; t['kernels'] = ['gemm.g12x_db32']
t['problems'] = [{"family": "gemm", "axes": {"dtype": "bf16", "m": 1800, "n": 3296, "k": 2048}},
                 {"family": "gemm", "axes": {"dtype": "fp16", "m": 1000, "n": 1000, "k": 520}}]
json.dump(t, open('/tmp/g12x_sanitize.json', 'w'), indent=1)
PY
for tool in memcheck racecheck; do
  timeout 80 $B/cli/flashscope run /tmp/g12x_sanitize.json --sanitize=$tool --out $O/$tool-g12x.json --color=never > $O/$tool-g12x.txt 2>&1
  echo "$tool exit $? at $(( $(date +%s) - T0 )) s"; grep -E "\[sanitize" $O/$tool-g12x.txt | head -4
done
timeout 90 $B/kernels/kernels_hopper_rungs_gpu_test --gtest_filter=*G12* > $O/hopper-rungs-g12.log 2>&1; echo "g12 test exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|Failure|OK \]" $O/hopper-rungs-g12.log | head -5
timeout 200 $B/cli/flashscope run /tmp/g12_db32.json --out $O/study.json --deadline_s 190 --color=never > $O/study.table.txt 2> $O/study.log
echo "study exit $? at $(( $(date +%s) - T0 )) s"
python3 - $O/study.json <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1])); t = collections.defaultdict(dict)
print('not passed:', [(c['kernel_id'], c['problem_key'], c['status'], c.get('reason', '')[:150]) for c in d['cases'] if c['status'] != 'passed'])
for c in d['cases']:
    if c['status'] == 'passed': t[c['problem_key']][c['kernel_id'].split('.')[1][:5]] = c['throughput']['tflops']
for p, v in t.items():
    print('  %-40s %s' % (p, ' '.join('%s %.0f(%.3f)' % (k, x, x / v['cubla']) for k, x in sorted(v.items()))))
PY
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call8.tar.xz call8 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
