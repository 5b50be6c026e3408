#!/usr/bin/env bash
# Device call 3 (session 10, one H200): a26 with its own-tile count made warp-uniform (call 2: the
# loop state had moved from uniform to vector registers, -10 % at D = 64 S >= 2048). (1) the whole
# of suites/shapes.json, a26 now in it (the README's table), every trust check on; (2) memcheck and
# racecheck of shapes_tiny's problems with a26; (3) kernels_hopper_rungs_gpu_test without the
# 131-second B·H > 65,535 case (whole in the next call).
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call3; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
python3 - <<'PY'
import json
d = json.load(open('suites/shapes_tiny.json'))
d['name'] = 'shapes_tiny_a26'; d['kernels'] = ['attn.a26_trim_warpgroups']
d['description'] = 'suites/shapes_tiny.json with a26 only (session 10, sanitizers).'
json.dump(d, open('/tmp/tiny_a26.json', 'w'), indent=1)
PY
timeout 340 $B/cli/flashscope run suites/shapes.json --out $O/shapes.json --deadline_s 330 --color=never > $O/shapes.table.txt 2> $O/shapes.log
echo "shapes exit $? at $(( $(date +%s) - T0 )) s"; tail -n 2 $O/shapes.log
python3 scripts/ladder_tables.py $O/shapes.json --best --summary-only --vs peer.cudnn_sdpa,peer.cublas_gemm > $O/shapes.best.md 2>&1; tail -n 12 $O/shapes.best.md
python3 - $O/shapes.json <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1])); t = collections.defaultdict(dict)
print('not passed:', [(c['kernel_id'], c['problem_key'], c['status']) for c in d['cases'] if c['status'] != 'passed'])
for c in d['cases']:
    if c['status'] == 'passed' and c['family'] == 'attention_fwd': t[c['problem_key']][c['kernel_id'].split('.')[1][:3]] = c['throughput']['tflops']
for p, v in t.items():
    if 'D=256' in p: continue
    base = v.get('a20') if 'D=64' in p else v.get('a24')
    print('%-50s %s  a26/base %.3f' % (p.replace('attention_fwd', ''), ' '.join('%s %.0f' % kv for kv in sorted(v.items())), v.get('a26', 0) / base if base else 0))
PY
for tool in memcheck racecheck; do
  timeout 60 $B/cli/flashscope run /tmp/tiny_a26.json --sanitize=$tool --out $O/$tool-a26.json --color=never > $O/$tool-a26.txt 2>&1
  echo "$tool exit $? at $(( $(date +%s) - T0 )) s"; grep -E "cases with errors" $O/$tool-a26.txt | head -3
done
timeout 150 $B/kernels/kernels_hopper_rungs_gpu_test --gtest_filter=-*ManyHeads* > $O/hopper-rungs-gpu-test.log 2>&1; echo "hopper rungs test exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|Failure" $O/hopper-rungs-gpu-test.log | head -20
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call3.tar.xz call3 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
