#!/usr/bin/env bash
# Device call 3 (session 11, one H200): a27_wide_keys (D = 64: two consumer warpgroups over
# 256-key tiles, cuDNN's geometry, on the persistent dynamic grid or split-KV) and a27x_wide_short
# (the same tiles one CTA per query tile). (1) the 22 D = 64 bf16 problems of shapes with a21, a26,
# a27, a27x_wide_short and cuDNN, every trust check on; (2) the attention tests of
# kernels_hopper_rungs_gpu_test (a27 in each; its own path test) and kernels_gpu_test's
# EveryAttentionKernelMatchesTheCpuReference; (3) memcheck and racecheck of shapes_tiny with a27.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call3; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
python3 - <<'PY'
import json
d = json.load(open('suites/shapes.json'))
d['name'] = 'wide_keys_study'
d['kernels'] = ['attn.a21_short_tiles', 'attn.a26_trim_warpgroups', 'attn.a27_wide_keys', 'attn.a27x_wide_short', 'peer.cudnn_sdpa']
d['description'] = 'Session 11 call 3: 256-key tiles at D = 64 (bf16), the D = 64 problems of shapes.'
d['problems'] = [p for p in d['problems'] if p['family'] == 'attention_fwd' and p['axes']['dtype'] == 'bf16' and p['axes']['head_dim'] == 64]
json.dump(d, open('/tmp/wide_keys.json', 'w'), indent=1)
t = json.load(open('suites/shapes_tiny.json'))
t['name'] = 'shapes_tiny_a27'; t['kernels'] = ['attn.a27_wide_keys']
t['description'] = 'suites/shapes_tiny.json with a27 only (session 11, sanitizers).'
json.dump(t, open('/tmp/tiny_a27.json', 'w'), indent=1)
PY
timeout 150 $B/cli/flashscope run /tmp/wide_keys.json --out $O/study.json --deadline_s 140 --color=never > $O/study.table.txt 2> $O/study.log
echo "study exit $? at $(( $(date +%s) - T0 )) s"; tail -n 1 $O/study.log
python3 - $O/study.json <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1])); t = collections.defaultdict(dict)
ab = {'attn.a21_short_tiles': 'a21', 'attn.a26_trim_warpgroups': 'a26', 'attn.a27_wide_keys': 'a27', 'attn.a27x_wide_short': 'a27s', 'peer.cudnn_sdpa': 'cud'}
print('not passed:', [(c['kernel_id'], c['problem_key'], c['status'], c.get('reason', '')[:200]) for c in d['cases'] if c['status'] != 'passed'])
for c in d['cases']:
    if c['status'] == 'passed': t[c['problem_key']][ab[c['kernel_id']]] = c['throughput']['tflops']
for p, v in t.items():
    print('%-46s %s' % (p.replace('attention_fwd', ''), ' '.join('%s %.0f(%.2f)' % (k, v.get(k, 0), v.get(k, 0) / v['cud']) for k in ['a21', 'a26', 'a27', 'a27s', 'cud'])))
PY
timeout 150 $B/kernels/kernels_hopper_rungs_gpu_test --gtest_filter=-*ManyHeads*:*G0*:*Gemm*:*Trimmed* > $O/hopper-rungs-gpu-test.log 2>&1; echo "hopper rungs test exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|Failure" $O/hopper-rungs-gpu-test.log | head -10
timeout 120 $B/kernels/kernels_gpu_test --gtest_filter=*EveryAttentionKernel* > $O/kernels-gpu-test.log 2>&1; echo "kernels gpu test exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|Failure" $O/kernels-gpu-test.log | head -10
for tool in memcheck racecheck; do
  timeout 70 $B/cli/flashscope run /tmp/tiny_a27.json --sanitize=$tool --out $O/$tool-a27.json --color=never > $O/$tool-a27.txt 2>&1
  echo "$tool exit $? at $(( $(date +%s) - T0 )) s"; grep -E "cases with errors|errors" $O/$tool-a27.txt | head -3
done
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call3.tar.xz call3 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
