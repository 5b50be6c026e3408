#!/usr/bin/env bash
# Device call 3 (session 13, one H200): the FP8 rungs a27 (no conditional rescaling), a28
# (a15's intra-warpgroup overlap on a27's body) and a29 (a19's split-KV on a27's body).
# (1) kernels_fp8_gpu_test (every FP8 rung; a27's B·H = 65538 case passed in call 1);
# (2) the whole of suites/fp8.json (the README's FP8 table); (3) memcheck and racecheck of
# a28 on odd shapes and a29 on split chunks; (4) smoke on the FP8 rungs and, for the verify paths
# the E4M3 change touched, on a26, g12 and the peers; (5) kernels_hopper_rungs_gpu_test whole
# (RunAttention sizes O by the output dtype now; call 2 cut it at 100 s).
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call3; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
timeout 150 $B/kernels/kernels_fp8_gpu_test --gtest_filter="${FP8_FILTER:--*A27Fp8ManyHeads*}" > $O/kernels_fp8_gpu_test.log 2>&1
echo "kernels_fp8_gpu_test exit $? at $(( $(date +%s) - T0 )) s"; grep -E "^\[  (FAILED|PASSED|SKIPPED)|OK \]|Failure" $O/kernels_fp8_gpu_test.log | head -30
timeout 230 $B/cli/flashscope run suites/fp8.json --out $O/fp8.json --deadline_s 220 --color=never > $O/fp8.table.txt 2> $O/fp8.log
echo "fp8 exit $? at $(( $(date +%s) - T0 )) s"; grep -E "^suite" $O/fp8.table.txt
python3 - $O/fp8.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = [(c['kernel_id'], c['problem_key'], c['status'], c.get('reason', '')[:200]) for c in d['cases'] if c['status'] not in ('passed', 'skipped')]
print('not passed:', bad)
tf = {(c['kernel_id'], c['problem_key']): c['throughput']['tflops'] for c in d['cases'] if c['status'] == 'passed'}
keys = sorted({k for (i, k) in tf if 'e4m3' in k}, key=lambda k: [c['problem_key'] for c in d['cases']].index(k))
for k in keys:
    print(f"{k:58s}", ' '.join(f"{i.split('.')[1][:3]} {tf.get((i, k), 0):7.1f}" for i in ('attn.a27_fp8', 'attn.a28_fp8_overlap', 'attn.a29_fp8_split_kv')))
PY
python3 - <<'PY'
import json
base = json.load(open('suites/fp8.json'))
a28 = dict(base); a28['name'] = 'a28_sanitize'; a28['kernels'] = ['attn.a28*']
a28['description'] = 'Session 13 call 3: a28 (its own kernel at D 64 and 128) on odd shapes, for compute-sanitizer.'
a28['problems'] = [{"family": "attention_fwd", "axes": {"dtype": "e4m3", "head_dim": [64, 128], "heads": 3, "batch": 1, "seq_q": [77, 300], "seq_k": [301], "causal": [False, True], "lse": True}}]
json.dump(a28, open('/tmp/a28_sanitize.json', 'w'), indent=1)
a29 = dict(base); a29['name'] = 'a29_sanitize'; a29['kernels'] = ['attn.a29*']
a29['description'] = 'Session 13 call 3: a29 on chunks it splits, for compute-sanitizer.'
a29['problems'] = [{"family": "attention_fwd", "axes": {"dtype": "e4m3", "head_dim": [64, 128, 256], "heads": 2, "batch": 1, "seq_q": [1, 128], "seq_k": [4099], "causal": [False, True], "lse": True}}]
json.dump(a29, open('/tmp/a29_sanitize.json', 'w'), indent=1)
PY
for r in a28 a29; do for tool in memcheck racecheck; do
  timeout 80 $B/cli/flashscope run /tmp/${r}_sanitize.json --sanitize=$tool --out $O/$tool-$r.json --color=never > $O/$tool-$r.txt 2>&1
  echo "$tool $r exit $? at $(( $(date +%s) - T0 )) s"; grep -E "^suite|sanitize=.*cases with" $O/$tool-$r.txt | head -3
done; done
timeout 90 $B/cli/flashscope run smoke --kernels 'attn.a2[6-9]*,gemm.g12*,peer.cudnn*,peer.cublas_gemm' --out $O/smoke.json --deadline_s 85 --color=never > $O/smoke.txt 2>&1
echo "smoke exit $? at $(( $(date +%s) - T0 )) s"; grep -E "^suite" $O/smoke.txt; grep -E "\] (failed|error|timeout)" $O/smoke.txt | head -5
left=$(( 590 - ($(date +%s) - T0) ))
timeout $left $B/kernels/kernels_hopper_rungs_gpu_test --gtest_brief=1 > $O/hopper-rungs.log 2>&1; echo "hopper rungs exit $? at $(( $(date +%s) - T0 )) s"; grep -E "^\[  (FAILED|PASSED)" $O/hopper-rungs.log | head -5
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call3.tar.xz call3 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
