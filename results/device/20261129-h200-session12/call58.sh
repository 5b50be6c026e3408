#!/usr/bin/env bash
# Device call 2 (session 12, one H200): the suspend study — a24's and a26's paths with the
# producer's (and the consumers') mbarrier waits suspended until the phase completes, g10 with the
# pipeline's waits suspended; bf16, every trust check on.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call2; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
python3 - <<'PY'
import json
d = json.load(open('suites/shapes.json'))
base = dict(d)
d['name'] = 'suspend_study'
d['kernels'] = ['attn.a24_prefetch128', 'attn.a26_trim_warpgroups', 'attn.a29x_suspend_prod_a24',
                'attn.a29x_suspend_all_a24', 'attn.a29x_suspend_all_a26', 'peer.cudnn_sdpa',
                'gemm.g06_tma_ws', 'gemm.g10_row_bands', 'gemm.g10x_suspend', 'peer.cublas_gemm']
d['description'] = 'Session 12 call 2: mbarrier waits suspended until the phase completes (bf16).'
d['problems'] = [
 {"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 64, "heads": 32, "batch": 2, "seq_q": [256, 512], "seq_k": [4096, 16384], "causal": [False, True]}},
 {"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 64, "heads": 24, "batch": 3, "seq_q": [384, 640], "seq_k": [6000], "causal": [False, True]}},
 {"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 64, "heads": 32, "tokens": 16384, "seq": [512, 1024, 2048, 8192], "causal": [False, True]}},
 {"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 128, "heads": 16, "tokens": 16384, "seq": [512, 1024, 2048, 4096, 8192], "causal": [False, True]}},
 {"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 256, "heads": 8, "tokens": 16384, "seq": [512, 1024, 2048], "causal": [False, True]}},
]
gemms = [p for p in base['problems'] if p.get('family') == 'gemm' and p['axes'].get('dtype') == 'bf16']
d['problems'] += gemms
json.dump(d, open('/tmp/suspend_study.json', 'w'), indent=1)
print('gemm problem groups:', len(gemms))
PY
timeout 360 $B/cli/flashscope run /tmp/suspend_study.json --out $O/study.json --deadline_s 350 --color=never > $O/study.table.txt 2> $O/study.log
echo "study exit $? at $(( $(date +%s) - T0 )) s"; tail -n 2 $O/study.log
python3 - $O/study.json <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1])); t = collections.defaultdict(dict)
print('not passed:', [(c['kernel_id'], c['problem_key'], c['status'], c.get('reason','')[:200]) for c in d['cases'] if c['status'] != 'passed'])
short = lambda k: k.split('.')[1].replace('a29x_suspend_', 's_')[:9]
for c in d['cases']:
    if c['status'] == 'passed': t[c['problem_key']][short(c['kernel_id'])] = c['throughput']['tflops']
for p, v in t.items():
    peer = v.get('cudnn_sdp', v.get('cublas_ge', 0))
    print('%-44s %s' % (p.replace('attention_fwd', ''), ' '.join('%s %.0f(%.2f)' % (k, x, x / peer if peer else 0) for k, x in sorted(v.items()))))
PY
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call2.tar.xz call2 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
