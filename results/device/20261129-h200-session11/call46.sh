#!/usr/bin/env bash
# Device call 1 (session 11, one H200): a27's experiment — a15's intra-warpgroup overlap on the
# free-running schedules. (1) the attention tests of kernels_hopper_rungs_gpu_test with a27 and the
# two a27x_ experiments (without the 131-second B·H > 65,535 case); (2) a bf16 study suite: D = 64
# 16k tokens S 512-8192, D = 64 256/512-query chunks, D = 128 S 512-4096, causal and not, with
# a21, a24, a26, a27, a27x_three_overlap, a27x_two_persistent and cuDNN; every trust check on.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call1; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
python3 - <<'PY'
import json
d = json.load(open('suites/shapes.json'))
d['name'] = 'overlap_study'
d['kernels'] = ['attn.a21_short_tiles', 'attn.a24_prefetch128', 'attn.a26_trim_warpgroups',
                'attn.a27_free_overlap', 'attn.a27x_three_overlap', 'attn.a27x_two_persistent',
                'peer.cudnn_sdpa']
d['description'] = 'Session 11 call 1: the intra-warpgroup overlap on free-running schedules (bf16).'
d['problems'] = [
 {"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 64, "heads": 32, "batch": 2, "seq_q": [256, 512], "seq_k": [4096, 16384], "causal": [False, True]}},
 {"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 64, "heads": 32, "tokens": 16384, "seq": [512, 1024, 2048, 8192], "causal": [False, True]}},
 {"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 128, "heads": 16, "tokens": 16384, "seq": [512, 1024, 2048, 4096], "causal": [False, True]}},
]
json.dump(d, open('/tmp/overlap_study.json', 'w'), indent=1)
PY
timeout 300 $B/cli/flashscope run /tmp/overlap_study.json --out $O/study.json --deadline_s 290 --color=never > $O/study.table.txt 2> $O/study.log
echo "study exit $? at $(( $(date +%s) - T0 )) s"; tail -n 2 $O/study.log
python3 - $O/study.json <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1])); t = collections.defaultdict(dict)
print('not passed:', [(c['kernel_id'], c['problem_key'], c['status'], c.get('reason','')[:200]) for c in d['cases'] if c['status'] != 'passed'])
for c in d['cases']:
    if c['status'] == 'passed': t[c['problem_key']][c['kernel_id'].split('.')[1][:5]] = c['throughput']['tflops']
for p, v in t.items():
    peer = v.get('cudnn', 0)
    print('%-46s %s' % (p.replace('attention_fwd', ''), ' '.join('%s %.0f(%.2f)' % (k, x, x / peer if peer else 0) for k, x in sorted(v.items()))))
PY
timeout 200 $B/kernels/kernels_hopper_rungs_gpu_test --gtest_filter=-*ManyHeads*:*G0*:*Gemm* > $O/hopper-rungs-gpu-test.log 2>&1; echo "hopper rungs test exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|Failure|OK \]" $O/hopper-rungs-gpu-test.log | head -30
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call1.tar.xz call1 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
