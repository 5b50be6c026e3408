#!/usr/bin/env bash
# Device call 3 (session 9, one H200): a24 (head dim 128 on a persistent dynamic grid with two Q
# buffers). (1) kernels_hopper_rungs_gpu_test (a24 in every attention test, its dynamic path
# launch after launch); (2) memcheck and racecheck of shapes_tiny with a24; (3) the short-sequence
# study again with a17, a21, a24 and cuDNN (causal S = 512 added); (4) the 44 head-dim-128
# problems of suites/shapes.json with a21, a24 and cuDNN. Every trust check on.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call3; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
python3 - <<'PY'
import json
d = json.load(open('suites/short_seq_d128.json'))
d['name'] = 'short_seq_d128_a24'
d['description'] = 'suites/short_seq_d128.json with a21 and a24, and causal S = 512 (session 9, call 3).'
d['kernels'] = ['attn.a17_per_dim_schedule', 'attn.a21_short_tiles', 'attn.a24_prefetch128', 'peer.cudnn_sdpa']
d['problems'].append({'family': 'attention_fwd', 'axes': {'dtype': 'bf16', 'head_dim': 128, 'heads': 16, 'batch': 32, 'seq': 512, 'causal': True}})
json.dump(d, open('/tmp/short.json', 'w'), indent=1)
d = json.load(open('suites/shapes.json'))
d['name'] = 'shapes_d128'
d['description'] = 'suites/shapes.json at head dim 128 only, with a21, a24 and cuDNN (session 9, call 3).'
d['kernels'] = ['attn.a21_short_tiles', 'attn.a24_prefetch128', 'peer.cudnn_sdpa']
d['problems'] = [p for p in d['problems'] if p['family'] == 'attention_fwd' and p['axes'].get('head_dim') == 128]
json.dump(d, open('/tmp/shapes_d128.json', 'w'), indent=1)
PY
timeout 100 $B/cli/flashscope run /tmp/short.json --out $O/short-a24.json --deadline_s 90 --color=never > $O/short-a24.table.txt 2> $O/short-a24.log
echo "short exit $? at $(( $(date +%s) - T0 )) s"; tail -n 1 $O/short-a24.log
python3 - $O/short-a24.json <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1])); t = collections.defaultdict(dict)
for c in d['cases']:
    t[c['problem_key']][c['kernel_id'].split('.')[1][:4]] = c['throughput'].get('tflops', 0) if c['status'] == 'passed' else c['status']
for p, v in t.items(): print(p, v)
PY
timeout 150 $B/cli/flashscope run /tmp/shapes_d128.json --out $O/shapes-d128.json --deadline_s 140 --color=never > $O/shapes-d128.table.txt 2> $O/shapes-d128.log
echo "shapes_d128 exit $? at $(( $(date +%s) - T0 )) s"; tail -n 1 $O/shapes-d128.log
python3 - $O/shapes-d128.json <<'PY'
import json, sys, statistics
d = json.load(open(sys.argv[1])); t = {}
bad = [(c['kernel_id'], c['problem_key'], c['status'], c.get('reason', '')[:200]) for c in d['cases'] if c['status'] != 'passed']
for c in d['cases']:
    if c['status'] == 'passed': t[(c['kernel_id'], c['problem_key'])] = c['throughput']['tflops']
r = []
for (k, p), v in sorted(t.items()):
    if k == 'attn.a24_prefetch128' and ('attn.a21_short_tiles', p) in t:
        a21 = t[('attn.a21_short_tiles', p)]; cud = t.get(('peer.cudnn_sdpa', p), 0)
        r.append(v / a21); print('%-58s a21 %6.1f a24 %6.1f x%.3f  cudnn %6.1f  best/cudnn %.2f' % (p, a21, v, v / a21, cud, max(a21, v) / cud if cud else 0))
print('not passed:', bad)
if r: print('a24/a21 median %.3f min %.3f max %.3f over %d' % (statistics.median(r), min(r), max(r), len(r)))
PY
timeout 280 $B/kernels/kernels_hopper_rungs_gpu_test > $O/hopper-rungs-gpu-test.log 2>&1; echo "hopper rungs test exit $? at $(( $(date +%s) - T0 )) s"; tail -n 3 $O/hopper-rungs-gpu-test.log
for tool in memcheck racecheck; do
  timeout 100 $B/cli/flashscope run suites/shapes_tiny.json --kernels 'attn.a24*' --sanitize=$tool --out $O/$tool-a24.json --color=never > $O/$tool-a24.txt 2>&1
  echo "$tool exit $? at $(( $(date +%s) - T0 )) s"; grep -E "cases with errors" $O/$tool-a24.txt
done
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call3.tar.xz call3 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
