#!/usr/bin/env bash
# Device call 3 (session 12, one H200): g12_staged_c (C through shared memory and TMA stores).
# (1) G12StagedCMatchesTheReference and the other GEMM tests of kernels_hopper_rungs_gpu_test,
# kernels_gpu_test's GEMM tests (misaligned pointers: g12 must fall back); (2) memcheck and
# racecheck of g12 on a split shape, a padded one and one with tiles past M and N; (3) smoke's GEMM
# problems with g12, every trust check on; (4) the GEMM shapes of suites/shapes.json (bf16 and
# fp16) and held-out GEMMs with g11, g12 and cuBLAS.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call3; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
python3 - <<'PY'
import json
d = json.load(open('suites/shapes.json'))
g = dict(d); g['name'] = 'g12_study'; g['kernels'] = ['gemm.g11_padded_operands', 'gemm.g12_staged_c', 'peer.cublas_gemm']
g['description'] = 'Session 12 call 3: g12 (staged C, TMA stores) against g11 and cuBLAS on the shapes suite GEMMs and held-out sizes.'
g['problems'] = [p for p in d['problems'] if p.get('family') == 'gemm'] + [
    {"family": "gemm", "axes": {"dtype": "bf16", "m": 3001, "n": 2999, "k": 1001}},
    {"family": "gemm", "axes": {"dtype": "fp16", "m": 12288, "n": 4096, "k": 1536}},
    {"family": "gemm", "axes": {"dtype": "bf16", "m": 4096, "n": 14336, "k": 4096}},
    {"family": "gemm", "axes": {"dtype": "bf16", "m": 2048, "n": 2048, "k": 2048}},
    {"family": "gemm", "axes": {"dtype": "fp16", "m": 8192, "n": 1024, "k": 8192}},
    {"family": "gemm", "axes": {"dtype": "bf16", "m": 3900, "n": 3088, "k": 1024}}]
json.dump(g, open('/tmp/g12_study.json', 'w'), indent=1)
t = dict(d); t['name'] = 'g12_sanitize'; t['kernels'] = ['gemm.g12_staged_c']
t['description'] = 'Session 12 call 3: g12 on a split shape, a padded one and tiles past M and N, for compute-sanitizer.'
t['problems'] = [{"family": "gemm", "axes": {"dtype": "bf16", "m": 1800, "n": 3296, "k": 2048}},
                 {"family": "gemm", "axes": {"dtype": "bf16", "m": 1000, "n": 17, "k": 1000}},
                 {"family": "gemm", "axes": {"dtype": "fp16", "m": 1000, "n": 1000, "k": 520}}]
json.dump(t, open('/tmp/g12_sanitize.json', 'w'), indent=1)
PY
timeout 120 $B/kernels/kernels_hopper_rungs_gpu_test --gtest_filter=*G0*:*G1*:*Gemm* > $O/hopper-rungs-gemm.log 2>&1; echo "hopper rungs gemm tests exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|Failure|OK \]" $O/hopper-rungs-gemm.log | head -12
timeout 90 $B/kernels/kernels_gpu_test --gtest_filter=*Gemm* > $O/kernels-gpu-gemm.log 2>&1; echo "kernels gpu gemm tests exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|Failure" $O/kernels-gpu-gemm.log | head -5
for tool in memcheck racecheck; do
  timeout 80 $B/cli/flashscope run /tmp/g12_sanitize.json --sanitize=$tool --out $O/$tool-g12.json --color=never > $O/$tool-g12.txt 2>&1
  echo "$tool exit $? at $(( $(date +%s) - T0 )) s"; grep -E "\[sanitize" $O/$tool-g12.txt | head -6
done
timeout 100 $B/cli/flashscope run smoke --kernels 'gemm.g12*' --out $O/smoke-g12.json --color=never > $O/smoke-g12.txt 2>&1
echo "smoke exit $? at $(( $(date +%s) - T0 )) s"; tail -n 3 $O/smoke-g12.txt
timeout 200 $B/cli/flashscope run /tmp/g12_study.json --out $O/study.json --deadline_s 190 --color=never > $O/study.table.txt 2> $O/study.log
echo "study exit $? at $(( $(date +%s) - T0 )) s"
python3 - $O/study.json <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1])); t = collections.defaultdict(dict)
print('not passed:', [(c['kernel_id'], c['problem_key'], c['status'], c.get('reason', '')[:150]) for c in d['cases'] if c['status'] != 'passed'])
for c in d['cases']:
    if c['status'] == 'passed': t[c['problem_key']][c['kernel_id'].split('.')[1][:3]] = c['throughput']['tflops']
for p, v in t.items():
    print('  %-40s %s' % (p, ' '.join('%s %.0f(%.3f)' % (k, x, x / v['cub']) for k, x in sorted(v.items()))))
PY
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call3.tar.xz call3 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
