#!/usr/bin/env bash
# Device call 5 (session 9, one H200): the experiment a25 = a24 on a17's tile schedule (ping-pong
# turns, intra-warpgroup overlap, conditional rescaling) in the persistent loop, which ptxas
# compiles with 68 bytes of spills (the audit refuses it as it stands): does the faster tile
# schedule pay? The short-sequence study with a17, a24, a25 and cuDNN; the head-dim-128 problems
# of shapes.json with a24, a25 and cuDNN. Every trust check on.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call5; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
python3 - <<'PY'
import json
d = json.load(open('suites/short_seq_d128.json'))
d['name'] = 'short_seq_d128_a25'
d['description'] = 'suites/short_seq_d128.json with a24 and a25, causal S = 512 and 1024 (session 9, call 5).'
d['kernels'] = ['attn.a17_per_dim_schedule', 'attn.a24_prefetch128', 'attn.a25_prefetch128_overlap', 'peer.cudnn_sdpa']
for b, s in [(32, 512), (16, 1024)]:
    d['problems'].append({'family': 'attention_fwd', 'axes': {'dtype': 'bf16', 'head_dim': 128, 'heads': 16, 'batch': b, 'seq': s, 'causal': True}})
json.dump(d, open('/tmp/short.json', 'w'), indent=1)
d = json.load(open('suites/shapes.json'))
d['name'] = 'shapes_d128'
d['description'] = 'suites/shapes.json at head dim 128 only, with a24, a25 and cuDNN (session 9, call 5).'
d['kernels'] = ['attn.a24_prefetch128', 'attn.a25_prefetch128_overlap', 'peer.cudnn_sdpa']
d['problems'] = [p for p in d['problems'] if p['family'] == 'attention_fwd' and p['axes'].get('head_dim') == 128]
json.dump(d, open('/tmp/shapes_d128.json', 'w'), indent=1)
PY
timeout 100 $B/cli/flashscope run /tmp/short.json --out $O/short-a25.json --deadline_s 90 --color=never > $O/short-a25.table.txt 2> $O/short-a25.log
echo "short exit $? at $(( $(date +%s) - T0 )) s"; tail -n 1 $O/short-a25.log
python3 - $O/short-a25.json <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1])); t = collections.defaultdict(dict)
for c in d['cases']:
    t[c['problem_key']][c['kernel_id'].split('.')[1][:4]] = (round(c['throughput'].get('tflops', 0), 1), round(c['timing'].get('median_ms', 0) * 1000, 1)) if c['status'] == 'passed' else c['status']
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
    if k == 'attn.a25_prefetch128_overlap' and ('attn.a24_prefetch128', p) in t:
        a24 = t[('attn.a24_prefetch128', p)]; cud = t.get(('peer.cudnn_sdpa', p), 0)
        if abs(v / a24 - 1) > 0.015: print('%-58s a24 %6.1f a25 %6.1f x%.3f  cudnn %6.1f  a25/cudnn %.2f' % (p, a24, v, v / a24, cud, v / cud if cud else 0))
        r.append(v / a24)
print('not passed:', bad)
if r: print('a25/a24 median %.3f min %.3f max %.3f over %d' % (statistics.median(r), min(r), max(r), len(r)))
PY
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call5.tar.xz call5 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
