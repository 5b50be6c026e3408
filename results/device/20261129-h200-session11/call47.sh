#!/usr/bin/env bash
# Device call 2 (session 11, one H200): (1) a27x_two_persistent_plain (128-row tiles at D = 64 on
# the persistent dynamic grid, no overlap, trimmed) beside a21, a27x_two_persistent and cuDNN on
# the D = 64 chunks and S = 512-2048 (bf16); (2) ncu (LaunchStats, Occupancy, SpeedOfLight,
# WarpStateStats, ComputeWorkloadAnalysis) of the verify launch of cuDNN / cuBLAS and our best
# rung on the target's misses: D = 64 chunks, D = 128 S = 512, D = 256 S = 512, GEMM 3000^3 and
# 5000^3 (what tile, grid, registers, occupancy the peers run, where our rungs' warps stall).
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call2; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
if [[ ! -e /work/main ]]; then mkdir -p /work && ln -sfn "$root" /work/main; fi
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
python3 - <<'PY'
import json
d = json.load(open('suites/shapes.json'))
d['name'] = 'two_persistent_study'
d['kernels'] = ['attn.a21_short_tiles', 'attn.a27x_two_persistent', 'attn.a27x_two_persistent_plain', 'peer.cudnn_sdpa']
d['description'] = 'Session 11 call 2: 128-row D = 64 tiles on the persistent grid (bf16).'
d['problems'] = [
 {"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 64, "heads": 32, "batch": 2, "seq_q": [256, 512], "seq_k": [4096, 16384], "causal": [False, True]}},
 {"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 64, "heads": 32, "tokens": 16384, "seq": [512, 1024, 2048], "causal": [False, True]}},
]
json.dump(d, open('/tmp/two_persistent.json', 'w'), indent=1)
p = json.load(open('suites/shapes.json'))
p['name'] = 'miss_profiles'
p['kernels'] = ['attn.a21_short_tiles', 'attn.a26_trim_warpgroups', 'peer.cudnn_sdpa', 'gemm.g06_tma_ws', 'peer.cublas_gemm']
p['description'] = 'Session 11 call 2: the misses of issue 27 under ncu (bf16).'
p['timing'] = {'cold': True, 'warmup': 1, 'min_samples': 3, 'max_samples': 3, 'noise_target': 0.5, 'time_cap_s': 0.05}
p['problems'] = [
 {"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 64, "heads": 32, "batch": 2, "seq_q": [256, 512], "seq_k": 16384, "causal": False}},
 {"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 128, "heads": 16, "tokens": 16384, "seq": 512, "causal": False}},
 {"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 256, "heads": 8, "tokens": 16384, "seq": 512, "causal": True}},
 {"family": "gemm", "axes": {"dtype": "bf16", "size": [3000, 5000]}},
]
json.dump(p, open('/tmp/miss_profiles.json', 'w'), indent=1)
PY
timeout 120 $B/cli/flashscope run /tmp/two_persistent.json --out $O/study.json --deadline_s 110 --color=never > $O/study.table.txt 2> $O/study.log
echo "study exit $? at $(( $(date +%s) - T0 )) s"; tail -n 1 $O/study.log
python3 - $O/study.json <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1])); t = collections.defaultdict(dict)
ab = {'attn.a21_short_tiles': 'a21', 'attn.a27x_two_persistent': 'x2p', 'attn.a27x_two_persistent_plain': 'x2pt', 'peer.cudnn_sdpa': 'cud'}
print('not passed:', [(c['kernel_id'], c['problem_key'], c['status'], c.get('reason', '')[:200]) for c in d['cases'] if c['status'] != 'passed'])
for c in d['cases']:
    if c['status'] == 'passed': t[c['problem_key']][ab[c['kernel_id']]] = c['throughput']['tflops']
for p, v in t.items():
    print('%-46s %s' % (p.replace('attention_fwd', ''), ' '.join('%s %.0f(%.2f)' % (k, v.get(k, 0), v.get(k, 0) / v['cud']) for k in ['a21', 'x2p', 'x2pt', 'cud'])))
PY
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
timeout 330 $NCU --target-processes all --nvtx --nvtx-include "flashscope@verify]" \
  --section LaunchStats --section Occupancy --section SpeedOfLight --section WarpStateStats \
  --section ComputeWorkloadAnalysis --print-units base \
  $B/cli/flashscope run /tmp/miss_profiles.json --out $O/ncu-run.json --color=never > $O/ncu.txt 2> $O/ncu.log
echo "ncu exit $? at $(( $(date +%s) - T0 )) s"; grep -c "==PROF==" $O/ncu.log; grep -E "^  [A-Za-z_].*\(.*\)x\(.*\)" $O/ncu.txt | cut -c1-200 | head -40
timeout 100 $B/kernels/kernels_hopper_rungs_gpu_test --gtest_filter=*DynamicSchedule*:*ShortQueries*:*ShortTiles* > $O/hopper-rungs-gpu-test.log 2>&1; echo "hopper rungs test exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|Failure" $O/hopper-rungs-gpu-test.log | head -10
xz -T0 $O/*.json $O/ncu.txt
tar -C $OUT -cJf $OUT/call2.tar.xz call2 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
