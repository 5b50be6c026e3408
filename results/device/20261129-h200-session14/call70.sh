#!/usr/bin/env bash
# Device call 1 (session 14, one H200): a30_chunked_pv. (1) its bit-identity test against a21/a26
# and the rest of kernels_hopper_rungs_gpu_test's attention tests (odd lengths, Sq != Sk with lse,
# B·H > 65,535, relaunch, the dynamic schedule); (2) the study: the bf16 attention problems of
# suites/shapes.json at D = 64 and 128 with a21, a24, a26, a30 and cuDNN; (3) memcheck and
# racecheck of a30 on suites/shapes_tiny.json; (4) smoke with a30.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call1; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
python3 - <<'PY'
import json
d = json.load(open('suites/shapes.json'))
t = dict(d); t['name'] = 'chunked_pv_study'
t['kernels'] = ['attn.a21_short_tiles', 'attn.a24_prefetch128', 'attn.a26_trim_warpgroups', 'attn.a30_chunked_pv', 'peer.cudnn_sdpa']
t['description'] = 'Session 14 call 1: the bf16 attention problems of suites/shapes.json at D = 64 and 128, a30 against the rungs whose paths it chunks and cuDNN.'
t['problems'] = [p for p in d['problems'] if p['family'] == 'attention_fwd' and p['axes']['dtype'] == 'bf16' and p['axes']['head_dim'] in (64, 128)]
json.dump(t, open('/tmp/chunked_pv_study.json', 'w'), indent=1)
PY
timeout 100 $B/kernels/kernels_hopper_rungs_gpu_test --gtest_filter='*ChunkedPV*' > $O/chunked-bits.log 2>&1; echo "chunked bit test exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|Failure|differs" $O/chunked-bits.log | head -8
timeout 200 $B/cli/flashscope run /tmp/chunked_pv_study.json --out $O/study.json --deadline_s 190 --color=never > $O/study.table.txt 2> $O/study.log
echo "study exit $? at $(( $(date +%s) - T0 )) s"; tail -n 2 $O/study.log; grep -E "^suite" $O/study.table.txt
python3 - $O/study.json <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1]))
print('not passed:', [(c['kernel_id'], c['problem_key'], c['status'], c.get('reason', '')[:150]) for c in d['cases'] if c['status'] != 'passed'])
t = collections.defaultdict(dict)
for c in d['cases']:
    if c['status'] == 'passed': t[c['problem_key']][c['kernel_id'].split('.')[-1]] = c['timing']['median_ms']
for k, v in t.items():
    base = min(v[x] for x in ('a21_short_tiles', 'a24_prefetch128', 'a26_trim_warpgroups') if x in v)
    a30 = v.get('a30_chunked_pv'); cu = v.get('cudnn_sdpa')
    if a30 and cu: print(f"{k:70s} a30/best-base {base/a30:5.3f}  a30 x cudnn {cu/a30:5.3f}  best-base x cudnn {cu/base:5.3f}")
PY
for tool in memcheck racecheck; do
  timeout 120 $B/cli/flashscope run suites/shapes_tiny.json --kernels 'attn.a30*' --sanitize=$tool --out $O/$tool-a30.json --color=never > $O/$tool-a30.txt 2>&1
  echo "$tool exit $? at $(( $(date +%s) - T0 )) s"; grep -E "\[sanitize" $O/$tool-a30.txt | head -8
done
timeout 200 $B/kernels/kernels_hopper_rungs_gpu_test --gtest_filter='-*G0*:*G1*:*Gemm*:*ChunkedPV*' > $O/hopper-rungs-attn.log 2>&1; echo "hopper rungs attention tests exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|Failure" $O/hopper-rungs-attn.log | head -8
timeout 60 $B/cli/flashscope run smoke --kernels 'attn.a30*' --out $O/smoke-a30.json --color=never > $O/smoke-a30.txt 2>&1
echo "smoke exit $? at $(( $(date +%s) - T0 )) s"; echo "smoke: $(grep -c '\] passed' $O/smoke-a30.txt) passed, $(grep -c '\] skipped' $O/smoke-a30.txt) skipped, $(grep -cE '\] (failed|error|timeout)' $O/smoke-a30.txt) failed"
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call1.tar.xz call1 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
