#!/usr/bin/env bash
# Device call 1 (session 10, one H200): a26 (each consumer warpgroup computes only the key tiles
# its own rows see). (1) the D = 64 short-sequence study with a20, a26 and cuDNN; (2) the 44
# head-dim-64 problems of suites/shapes.json with a20, a21, a26 and cuDNN; (3) the 44 head-dim-128
# problems with a24, a26 and cuDNN; (4) kernels_hopper_rungs_gpu_test (a26 in every attention
# test, bit-identity against a20 and a24); (5) memcheck and racecheck of shapes_tiny with a26.
# Every trust check on.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call1; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
python3 - <<'PY'
import json
d = json.load(open('suites/short_seq_d64.json'))
d['name'] = 'short_seq_d64_a26'
d['description'] = 'suites/short_seq_d64.json with a20, a26 and cuDNN (session 10, call 1).'
d['kernels'] = ['attn.a20_dynamic_schedule', 'attn.a26_trim_warpgroups', 'peer.cudnn_sdpa']
json.dump(d, open('/tmp/short.json', 'w'), indent=1)
for dim, ks in ((64, ['attn.a20_dynamic_schedule', 'attn.a21_short_tiles', 'attn.a26_trim_warpgroups', 'peer.cudnn_sdpa']),
                (128, ['attn.a24_prefetch128', 'attn.a26_trim_warpgroups', 'peer.cudnn_sdpa'])):
    d = json.load(open('suites/shapes.json'))
    d['name'] = 'shapes_d%d' % dim
    d['description'] = 'suites/shapes.json at head dim %d only, with %s (session 10, call 1).' % (dim, ', '.join(ks))
    d['kernels'] = ks
    d['problems'] = [p for p in d['problems'] if p['family'] == 'attention_fwd' and p['axes'].get('head_dim') == dim]
    json.dump(d, open('/tmp/shapes_d%d.json' % dim, 'w'), indent=1)
PY
timeout 60 $B/cli/flashscope run /tmp/short.json --out $O/short-a26.json --deadline_s 55 --color=never > $O/short-a26.table.txt 2> $O/short-a26.log
echo "short exit $? at $(( $(date +%s) - T0 )) s"; tail -n 1 $O/short-a26.log
for dim in 64 128; do
  timeout 150 $B/cli/flashscope run /tmp/shapes_d$dim.json --out $O/shapes-d$dim.json --deadline_s 140 --color=never > $O/shapes-d$dim.table.txt 2> $O/shapes-d$dim.log
  echo "shapes_d$dim exit $? at $(( $(date +%s) - T0 )) s"; tail -n 1 $O/shapes-d$dim.log
done
python3 - $O/short-a26.json $O/shapes-d64.json $O/shapes-d128.json <<'PY'
import json, sys, collections
for f in sys.argv[1:]:
    d = json.load(open(f)); t = collections.defaultdict(dict)
    bad = [(c['kernel_id'], c['problem_key'], c['status'], c.get('reason', '')[:200]) for c in d['cases'] if c['status'] != 'passed']
    for c in d['cases']:
        if c['status'] == 'passed': t[c['problem_key']][c['kernel_id'].split('.')[1][:3]] = c['throughput']['tflops']
    print('==', f, 'not passed:', bad)
    for p, v in t.items():
        cud = v.get('cud', 0); base = v.get('a20', v.get('a24', 0)); a26 = v.get('a26', 0)
        print('%-58s %s  a26/base %.3f  best/cudnn %.2f' % (p.replace('attention_fwd', ''), ' '.join('%s %.1f' % kv for kv in sorted(v.items())),
              a26 / base if base else 0, max(x for k, x in v.items() if k != 'cud') / cud if cud else 0))
PY
timeout 280 $B/kernels/kernels_hopper_rungs_gpu_test > $O/hopper-rungs-gpu-test.log 2>&1; echo "hopper rungs test exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|Failure" $O/hopper-rungs-gpu-test.log | head -20
for tool in memcheck racecheck; do
  timeout 80 $B/cli/flashscope run suites/shapes_tiny.json --kernels 'attn.a26*' --sanitize=$tool --out $O/$tool-a26.json --color=never > $O/$tool-a26.txt 2>&1
  echo "$tool exit $? at $(( $(date +%s) - T0 )) s"; grep -E "cases with errors" $O/$tool-a26.txt
done
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call1.tar.xz call1 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
