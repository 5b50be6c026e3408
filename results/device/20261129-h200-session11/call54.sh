#!/usr/bin/env bash
# Device call 9 (session 11, one H200): a28_ilp_softmax (the row max and row sum in four chains).
# (1) bf16 study: the 22 D = 64 problems of shapes and D = 128 16k tokens S 512-4096, causal and
# not, with a21, a24, a26, a28 and cuDNN, every trust check on; (2) the attention tests of
# kernels_hopper_rungs_gpu_test (a28 in each) but the 131-second B·H > 65,535 case; (3) ncu's
# stall reasons for a28 on the D = 64 512-query chunk (call 8's metrics).
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call9; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
if [[ ! -e /work/main ]]; then mkdir -p /work && ln -sfn "$root" /work/main; fi
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
python3 - <<'PY'
import json
d = json.load(open('suites/shapes.json'))
s = dict(d); s['name'] = 'ilp_study'
s['kernels'] = ['attn.a21_short_tiles', 'attn.a24_prefetch128', 'attn.a26_trim_warpgroups', 'attn.a28_ilp_softmax', 'peer.cudnn_sdpa']
s['description'] = 'Session 11 call 9: the softmax row reductions in four chains (a28), bf16.'
s['problems'] = [p for p in d['problems'] if p['family'] == 'attention_fwd' and p['axes']['dtype'] == 'bf16' and p['axes']['head_dim'] == 64]
s['problems'].append({"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 128, "heads": 16, "tokens": 16384, "seq": [512, 1024, 2048, 4096], "causal": [False, True]}})
json.dump(s, open('/tmp/ilp_study.json', 'w'), indent=1)
n = dict(d); n['name'] = 'ilp_stalls'; n['kernels'] = ['attn.a28_ilp_softmax']
n['timing'] = {'cold': True, 'warmup': 1, 'min_samples': 3, 'max_samples': 3, 'noise_target': 0.5, 'time_cap_s': 0.05}
n['problems'] = [{"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 64, "heads": 32, "batch": 2, "seq_q": 512, "seq_k": 16384, "causal": False}}]
json.dump(n, open('/tmp/ilp_stalls.json', 'w'), indent=1)
PY
timeout 150 $B/cli/flashscope run /tmp/ilp_study.json --out $O/study.json --deadline_s 140 --color=never > $O/study.table.txt 2> $O/study.log
echo "study exit $? at $(( $(date +%s) - T0 )) s"; tail -n 1 $O/study.log
python3 - $O/study.json <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1])); t = collections.defaultdict(dict)
ab = {'attn.a21_short_tiles': 'a21', 'attn.a24_prefetch128': 'a24', 'attn.a26_trim_warpgroups': 'a26', 'attn.a28_ilp_softmax': 'a28', 'peer.cudnn_sdpa': 'cud'}
print('not passed:', [(c['kernel_id'], c['problem_key'], c['status'], c.get('reason', '')[:200]) for c in d['cases'] if c['status'] != 'passed'])
for c in d['cases']:
    if c['status'] == 'passed': t[c['problem_key']][ab[c['kernel_id']]] = c['throughput']['tflops']
for p, v in t.items():
    base = max(v.get('a21', 0), v.get('a24', 0), v.get('a26', 0))
    print('%-46s %s  a28/best %.3f' % (p.replace('attention_fwd', ''), ' '.join('%s %.0f(%.2f)' % (k, v.get(k, 0), v.get(k, 0) / v['cud']) for k in ['a21', 'a24', 'a26', 'a28', 'cud']), v.get('a28', 0) / base))
PY
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
timeout 60 $NCU --target-processes all --nvtx --nvtx-include "flashscope@verify]" --kernel-name regex:'AttnSm90Kernel' \
  --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,gpu__time_duration.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active' \
  --csv --page raw --print-units base $B/cli/flashscope run /tmp/ilp_stalls.json --out $O/ncu-run.json --color=never > $O/ncu-stalls.csv 2> $O/ncu.log
echo "ncu exit $? at $(( $(date +%s) - T0 )) s"
python3 - $O/ncu-stalls.csv <<'PY'
import csv, sys, io
lines = open(sys.argv[1]).read().splitlines()
start = next(i for i, l in enumerate(lines) if l.startswith('"ID"'))
rows = list(csv.reader(io.StringIO('\n'.join(lines[start:]))))
head, data = rows[0], rows[2:]
for r in data:
    v = dict(zip(head, r))
    st = sorted(((float(x), h[34:-26]) for h, x in v.items() if h.startswith('smsp__average_warps_issue_stalled_') and x not in ('', 'n/a')), reverse=True)[:6]
    print(v['Kernel Name'][:60], 'ns', v['gpu__time_duration.sum'], 'inst', v['smsp__inst_executed.sum'], 'issue%', v['smsp__issue_active.avg.pct_of_peak_sustained_active'], 'tensor%', v['sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active'], 'xu%', v['sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active'])
    print('   stalls/issue:', ', '.join('%s %.2f' % (h, x) for x, h in st))
PY
timeout 150 $B/kernels/kernels_hopper_rungs_gpu_test --gtest_filter=-*ManyHeads*:*G0*:*G1*:*SplitTail*:*Trimmed* > $O/hopper-rungs-attn.log 2>&1; echo "hopper rungs attention tests exit $? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|Failure" $O/hopper-rungs-attn.log | head -6
xz -T0 $O/*.json $O/ncu-stalls.csv
tar -C $OUT -cJf $OUT/call9.tar.xz call9 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
