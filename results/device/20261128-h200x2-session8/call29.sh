#!/usr/bin/env bash
# Device call 9 (session 8, one H200; branch a23-persistent128-s8 = main 9304b64 + 6b7d4b1, built
# before its commit onto main): a23 against a21 and cuDNN on the head-dim-128 problems of
# suites/shapes.json (a suite made from it here). Every trust check on: a wrong a23 fails there.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT; mkdir -p $O
[[ -x $B/cli/flashscope ]] || tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv > $O/gpus.csv
python3 - <<'PY'
import json
d = json.load(open('suites/shapes.json'))
d['name'] = 'shapes_d128'
d['description'] = 'suites/shapes.json at head dim 128 only, with a21, a23 and cuDNN (session 8, a23).'
d['kernels'] = ['attn.a21_short_tiles', 'attn.a23_persistent128', 'peer.cudnn_sdpa']
d['problems'] = [p for p in d['problems'] if p['family'] == 'attention_fwd' and p['axes'].get('head_dim') == 128]
json.dump(d, open('/tmp/shapes_d128.json', 'w'), indent=1)
PY
timeout 150 $B/cli/flashscope run /tmp/shapes_d128.json --out $O/shapes-d128.json --deadline_s 140 --color=never > $O/shapes-d128.table.txt 2> $O/shapes-d128.log
echo "shapes_d128 exit $? at $(( $(date +%s) - T0 )) s"; tail -n 2 $O/shapes-d128.log
python3 - $O/shapes-d128.json <<'PY'
import json, sys, statistics
d = json.load(open(sys.argv[1])); t = {}
bad = [(c['kernel_id'], c['problem_key'], c['status'], c.get('reason', '')[:200]) for c in d['cases'] if c['status'] != 'passed']
for c in d['cases']:
    if c['status'] == 'passed': t[(c['kernel_id'], c['problem_key'])] = c['throughput']['tflops']
r = []
for (k, p), v in sorted(t.items()):
    if k == 'attn.a23_persistent128' and ('attn.a21_short_tiles', p) in t:
        a21 = t[('attn.a21_short_tiles', p)]; cud = t.get(('peer.cudnn_sdpa', p), 0)
        r.append(v / a21); print('%-58s a21 %6.1f a23 %6.1f x%.3f  cudnn %6.1f' % (p, a21, v, v / a21, cud))
print('not passed:', bad)
if r: print('a23/a21 median %.3f min %.3f max %.3f over %d' % (statistics.median(r), min(r), max(r), len(r)))
PY
xz -T0 $O/shapes-d128.json
