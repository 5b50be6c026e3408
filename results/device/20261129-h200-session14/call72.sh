#!/usr/bin/env bash
# Device call 3 (session 14, one H200): a31_decode_tiles. (1) its GPU test (64-row tiles where
# Sq <= 64 at D 64/128/256, split and not, causal rows that see no key, launched twice) and the
# Hopper rungs' attention tests with a31 among the rungs (odd lengths, Sq != Sk with lse,
# B·H > 65,535, relaunch); (2) suites/decode.json (the study: a21, a24, a26, a31, cuDNN);
# (3) memcheck and racecheck of a31 on suites/shapes_tiny.json; (4) smoke with a31;
# (5) suites/shapes_heldout.json again with a31 added to its rungs.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call3; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
timeout 150 $B/kernels/kernels_hopper_rungs_gpu_test --gtest_filter='*Decode*:*EveryRung*:*ShortQuer*:*ManyHeads*:*Relaunch*' > $O/hopper-rungs-attn.log 2>&1; echo "hopper rungs tests exit $? at $(( $(date +%s) - T0 )) s"; grep -E "^\[  (PASSED|FAILED) |Failure|OK \]" $O/hopper-rungs-attn.log | head -12
timeout 150 $B/cli/flashscope run suites/decode.json --out $O/decode.json --deadline_s 140 --color=never > $O/decode.table.txt 2> $O/decode.log
echo "decode exit $? at $(( $(date +%s) - T0 )) s"; tail -n 1 $O/decode.log; grep -E "^suite" $O/decode.table.txt
python3 - $O/decode.json <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1]))
print('not passed:', [(c['kernel_id'], c['problem_key'], c['status'], c.get('reason', '')[:150]) for c in d['cases'] if c['status'] != 'passed'])
t = collections.defaultdict(dict)
for c in d['cases']:
    if c['status'] == 'passed': t[c['problem_key']][c['kernel_id'].split('.')[-1][:3]] = c['throughput']['tflops']
for k, v in t.items():
    best = max(v.get(x, 0) for x in ('a21', 'a24', 'a26'))
    if 'a31' in v and 'cud' in v: print(f"{k:62s} a31 {v['a31']:6.1f} best-base {best:6.1f} cudnn {v['cud']:6.1f}  a31/base {v['a31']/best:5.2f}  a31 x cudnn {v['a31']/v['cud']:5.2f}  base x cudnn {best/v['cud']:5.2f}")
PY
for tool in memcheck racecheck; do
  timeout 60 $B/cli/flashscope run suites/shapes_tiny.json --kernels 'attn.a31*' --sanitize=$tool --out $O/$tool-a31.json --color=never > $O/$tool-a31.txt 2>&1
  echo "$tool exit $? at $(( $(date +%s) - T0 )) s"; grep -E "\[sanitize" $O/$tool-a31.txt | head -12
done
timeout 60 $B/cli/flashscope run smoke --kernels 'attn.a31*' --out $O/smoke-a31.json --color=never > $O/smoke-a31.txt 2>&1
echo "smoke exit $? at $(( $(date +%s) - T0 )) s"; echo "smoke: $(grep -c '\] passed' $O/smoke-a31.txt) passed, $(grep -c '\] skipped' $O/smoke-a31.txt) skipped, $(grep -cE '\] (failed|error|timeout)' $O/smoke-a31.txt) failed"
timeout 60 $B/cli/flashscope run suites/shapes_heldout.json --out $O/heldout.json --deadline_s 55 --color=never > $O/heldout.table.txt 2> $O/heldout.log
echo "heldout exit $? at $(( $(date +%s) - T0 )) s"; grep -E "^suite" $O/heldout.table.txt
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call3.tar.xz call3 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
