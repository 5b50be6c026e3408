#!/usr/bin/env bash
# Device call 2 (session 10, one H200): a26 with the trimmed tiles in a loop of their own (call 1:
# a test inside the computing loop cost a20's schedule 9-12 % at S >= 2048). (1) the 44
# head-dim-64 problems of suites/shapes.json with a20, a26 and cuDNN; (2) the head-dim-128
# sequences of S <= 2048 (a24's persistent path) with a24, a26 and cuDNN; (3) memcheck and
# racecheck of shapes_tiny's problems with a26; (4) kernels_hopper_rungs_gpu_test without the
# 131-second B·H > 65,535 case (run whole in the next call). Every trust check on.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call2; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
python3 - <<'PY'
import json
for dim, ks in ((64, ['attn.a20_dynamic_schedule', 'attn.a26_trim_warpgroups', 'peer.cudnn_sdpa']),
                (128, ['attn.a24_prefetch128', 'attn.a26_trim_warpgroups', 'peer.cudnn_sdpa'])):
    d = json.load(open('suites/shapes.json'))
    d['name'] = 'shapes_d%d' % dim
    d['description'] = 'suites/shapes.json at head dim %d (128: S <= 2048 sequences), with %s (session 10, call 2).' % (dim, ', '.join(ks))
    d['kernels'] = ks
    d['problems'] = [p for p in d['problems'] if p['family'] == 'attention_fwd' and p['axes'].get('head_dim') == dim
                     and (dim == 64 or 'seq' in p['axes'])]
    for p in d['problems']:
        if dim == 128: p['axes']['seq'] = [s for s in p['axes']['seq'] if s <= 2048]
    json.dump(d, open('/tmp/shapes_d%d.json' % dim, 'w'), indent=1)
d = json.load(open('suites/shapes_tiny.json'))
d['name'] = 'shapes_tiny_a26'; d['kernels'] = ['attn.a26_trim_warpgroups']
d['description'] = 'suites/shapes_tiny.json with a26 only (session 10, sanitizers).'
json.dump(d, open('/tmp/tiny_a26.json', 'w'), indent=1)
PY
for dim in 64 128; do
  timeout 150 $B/cli/flashscope run /tmp/shapes_d$dim.json --out $O/shapes-d$dim.json --deadline_s 140 --color=never > $O/shapes-d$dim.table.txt 2> $O/shapes-d$dim.log
  echo "shapes_d$dim exit $? at $(( $(date +%s) - T0 )) s"; tail -n 1 $O/shapes-d$dim.log
done
python3 - $O/shapes-d64.json $O/shapes-d128.json <<'PY'
import json, sys, collections
for f in sys.argv[1:]:
    d = json.load(open(f)); t = collections.defaultdict(dict)
    bad = [(c['kernel_id'], c['problem_key'], c['status'], c.get('reason', '')[:200]) for c in d['cases'] if c['status'] != 'passed']
    for c in d['cases']:
        if c['status'] == 'passed': t[c['problem_key']][c['kernel_id'].split('.')[1][:3]] = c['throughput']['tflops']
    print('==', f, 'not passed:', bad)
    for p, v in t.items():
        cud = v.get('cud', 0); base = v.get('a20', v.get('a24', 0)); a26 = v.get('a26', 0)
        print('%-52s %s  a26/base %.3f  best/cudnn %.2f' % (p.replace('attention_fwd', ''), ' '.join('%s %.1f' % kv for kv in sorted(v.items())),
              a26 / base if base else 0, max(x for k, x in v.items() if k != 'cud') / cud if cud else 0))
PY
for tool in memcheck racecheck; do
  timeout 80 $B/cli/flashscope run /tmp/tiny_a26.json --sanitize=$tool --out $O/$tool-a26.json --color=never > $O/$tool-a26.txt 2>&1
  echo "$tool exit $? at $(( $(date +%s) - T0 )) s"; grep -E "cases with errors|error" $O/$tool-a26.txt | head -5
done
timeout 200 $B/kernels/kernels_hopper_rungs_gpu_test --gtest_filter=-*ManyHeads* > $O/hopper-rungs-gpu-test.log 2>&1; echo "hopper rungs test exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|Failure" $O/hopper-rungs-gpu-test.log | head -20
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call2.tar.xz call2 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
