#!/usr/bin/env bash
# Device call 7 (session 9, one H200): evidence for the next steps, no change measured.
# (1) suites/short_seq_d64.json: a20, a21 and cuDNN at head dim 64 from S = 256 to 4096, the fixed
# and per-key-tile costs per round; (2) the GEMM problems of suites/shapes_misses.json (3000^3,
# 5000^3 bf16) with g06, g07 and cuBLAS and its hardware metrics (SM active, tensor pipe): does
# g07's split tail shorten the last round at 5000^3?
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call7; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv > $O/gpus.csv
timeout 120 $B/cli/flashscope run suites/short_seq_d64.json --out $O/short-d64.json --deadline_s 110 --color=never > $O/short-d64.table.txt 2> $O/short-d64.log
echo "short d64 exit $? at $(( $(date +%s) - T0 )) s"; tail -n 1 $O/short-d64.log
python3 - $O/short-d64.json <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1])); t = collections.defaultdict(dict)
for c in d['cases']:
    t[c['problem_key']][c['kernel_id'].split('.')[1][:4]] = (round(c['throughput'].get('tflops', 0), 1), round(c['timing'].get('median_ms', 0) * 1000, 1)) if c['status'] == 'passed' else c['status']
for p, v in t.items(): print(p, v)
PY
timeout 200 $B/cli/flashscope run suites/shapes_misses.json --kernels 'gemm.g06*,gemm.g07*,peer.cublas_gemm' --out $O/misses-gemm.json --deadline_s 190 --color=never > $O/misses-gemm.table.txt 2> $O/misses-gemm.log
echo "misses gemm exit $? at $(( $(date +%s) - T0 )) s"; tail -n 1 $O/misses-gemm.log
python3 - $O/misses-gemm.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d['cases']:
    m = {}
    for k, v in (c.get('profile') or {}).get('metrics', {}).items() if isinstance((c.get('profile') or {}).get('metrics'), dict) else []:
        m[k] = v
    print(c['kernel_id'], c['problem_key'], c['status'], round(c['throughput'].get('tflops', 0), 1), json.dumps(c.get('profile'))[:600])
PY
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call7.tar.xz call7 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
