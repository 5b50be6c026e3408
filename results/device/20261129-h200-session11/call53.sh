#!/usr/bin/env bash
# Device call 8 (session 11, one H200), the binaries of 982bc08: where the warps of our best rung
# and cuDNN's kernel wait, on the two attention misses ncu named in call 2 (D = 64 512-query chunk
# against 16k keys: a21 and cuDNN's knob_32_64x256x64; D = 128 S = 512: a24 and knob_7_64x128x128):
# ncu on each case's verify launch, the issue-stall reasons per issued instruction and the pipes'
# utilisation, read from the hardware counters.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call8; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
if [[ ! -e /work/main ]]; then mkdir -p /work && ln -sfn "$root" /work/main; fi
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
python3 - <<'PY'
import json
p = json.load(open('suites/shapes.json'))
p['name'] = 'miss_stalls'
p['kernels'] = ['attn.a21_short_tiles', 'attn.a24_prefetch128', 'peer.cudnn_sdpa']
p['description'] = 'Session 11 call 8: two attention misses of issue 27 under ncu (bf16): stall reasons and pipes.'
p['timing'] = {'cold': True, 'warmup': 1, 'min_samples': 3, 'max_samples': 3, 'noise_target': 0.5, 'time_cap_s': 0.05}
p['problems'] = [
 {"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 64, "heads": 32, "batch": 2, "seq_q": 512, "seq_k": 16384, "causal": False}},
 {"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 128, "heads": 16, "tokens": 16384, "seq": 512, "causal": False}},
]
json.dump(p, open('/tmp/miss_stalls.json', 'w'), indent=1)
PY
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
timeout 300 $NCU --target-processes all --nvtx --nvtx-include "flashscope@verify]" \
  --kernel-name regex:'AttnSm90Kernel|cudnn' \
  --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$,regex:sm__pipe_.*_cycles_active\.avg\.pct_of_peak_sustained_active$,regex:sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active$,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,gpu__time_duration.sum' \
  --csv --page raw --print-units base \
  $B/cli/flashscope run /tmp/miss_stalls.json --out $O/ncu-run.json --color=never > $O/ncu-stalls.csv 2> $O/ncu.log
echo "ncu exit $? at $(( $(date +%s) - T0 )) s"; grep -c "==PROF==" $O/ncu.log; wc -c $O/ncu-stalls.csv
python3 - $O/ncu-stalls.csv <<'PY'
import csv, sys, io
lines = open(sys.argv[1]).read().splitlines()
start = next(i for i, l in enumerate(lines) if l.startswith('"ID"'))
rows = list(csv.reader(io.StringIO('\n'.join(lines[start:]))))
head, units, data = rows[0], rows[1], rows[2:]
name = head.index('Kernel Name')
for r in data:
    kn = r[name][:70]
    vals = {h: r[i] for i, h in enumerate(head)}
    stalls = sorted(((float(v), h.replace('smsp__average_warps_issue_stalled_', '').replace('_per_issue_active.ratio', '')) for h, v in vals.items() if h.startswith('smsp__average_warps_issue_stalled_') and v not in ('', 'n/a')), reverse=True)[:8]
    pipes = sorted(((float(v), h.replace('.avg.pct_of_peak_sustained_active', '')) for h, v in vals.items() if (h.startswith('sm__pipe_') or h.startswith('sm__inst_executed_pipe_')) and v not in ('', 'n/a')), reverse=True)[:8]
    print(kn, 'ns', vals.get('gpu__time_duration.sum'), 'inst', vals.get('smsp__inst_executed.sum'), 'issue%', vals.get('smsp__issue_active.avg.pct_of_peak_sustained_active'))
    print('   stalls/issue:', ', '.join('%s %.2f' % (h, v) for v, h in stalls))
    print('   pipes %:', ', '.join('%s %.1f' % (h, v) for v, h in pipes))
PY
xz -T0 $O/*.json $O/ncu-stalls.csv
tar -C $OUT -cJf $OUT/call8.tar.xz call8 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
