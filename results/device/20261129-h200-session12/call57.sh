#!/usr/bin/env bash
# Device call 1 (session 12, one H200): (1) the turn study — a24 with D = 64's 128-row path on
# ping-pong turns passed at issue (a14) or after the turn's wait, with a quarter of the
# exponentials polynomial, or with a15's overlap; D >= 128's turns late too (a29x_turn_wait,
# _overlap); bf16, every trust check on; (2) GPU tests of the per-device DeviceScratch (split-KV,
# g11 and both peers' workspaces now use it) and of g10's remembered plans: the device-scratch and
# peers GPU tests, kernels_hopper_rungs_gpu_test without the 131-second B·H > 65,535 case.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call1; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
python3 - <<'PY'
import json
d = json.load(open('suites/shapes.json'))
d['name'] = 'turn_study'
d['kernels'] = ['attn.a24_prefetch128', 'attn.a26_trim_warpgroups', 'attn.a29x_turn_issue',
                'attn.a29x_turn_wait', 'attn.a29x_turn_wait_poly', 'attn.a29x_turn_wait_overlap',
                'peer.cudnn_sdpa']
d['description'] = 'Session 12 call 1: ping-pong turns on the D=64 128-row path, passed at issue or after the wait (bf16).'
d['problems'] = [
 {"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 64, "heads": 32, "batch": 2, "seq_q": [256, 512], "seq_k": [4096, 16384], "causal": [False, True]}},
 {"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 64, "heads": 24, "batch": 3, "seq_q": [384, 640], "seq_k": [6000], "causal": [False, True]}},
 {"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 64, "heads": 32, "tokens": 16384, "seq": [512, 1024, 2048, 8192], "causal": [False, True]}},
 {"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 128, "heads": 16, "tokens": 16384, "seq": [512, 1024, 2048, 4096, 8192], "causal": [False, True]}},
 {"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 256, "heads": 8, "tokens": 16384, "seq": [512, 1024, 2048], "causal": [False, True]}},
]
json.dump(d, open('/tmp/turn_study.json', 'w'), indent=1)
PY
timeout 330 $B/cli/flashscope run /tmp/turn_study.json --out $O/study.json --deadline_s 320 --color=never > $O/study.table.txt 2> $O/study.log
echo "study exit $? at $(( $(date +%s) - T0 )) s"; tail -n 2 $O/study.log
python3 - $O/study.json <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1])); t = collections.defaultdict(dict)
print('not passed:', [(c['kernel_id'], c['problem_key'], c['status'], c.get('reason','')[:200]) for c in d['cases'] if c['status'] != 'passed'])
short = lambda k: k.split('.')[1].replace('a29x_turn_', 't_')[:9]
for c in d['cases']:
    if c['status'] == 'passed': t[c['problem_key']][short(c['kernel_id'])] = c['throughput']['tflops']
for p, v in t.items():
    peer = v.get('cudnn_sdp', 0)
    print('%-44s %s' % (p.replace('attention_fwd', ''), ' '.join('%s %.0f(%.2f)' % (k, x, x / peer if peer else 0) for k, x in sorted(v.items()))))
PY
for t in kernels_device_scratch_gpu_test kernels_peers_gpu_test; do
  timeout 120 $B/kernels/$t > $O/$t.log 2>&1; echo "$t exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|SKIPPED" $O/$t.log | head -5
done
timeout 200 $B/kernels/kernels_hopper_rungs_gpu_test --gtest_filter=-*ManyHeads* > $O/hopper-rungs-gpu-test.log 2>&1; echo "hopper rungs test exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|SKIPPED|Failure" $O/hopper-rungs-gpu-test.log | head -20
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call1.tar.xz call1 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
