#!/usr/bin/env bash
# Device call 10 (session 11, one H200), the binaries of call 9 (a21's code path as in 982bc08):
# where in the loop a21's and cuDNN's warps stall on the D = 64 512-query chunk against 16k keys:
# ncu's SourceCounters (warp-stall sampling per SASS instruction) on each verify launch, the
# source page as CSV, and the 40 instructions with the most samples of each kernel.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call10; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
if [[ ! -e /work/main ]]; then mkdir -p /work && ln -sfn "$root" /work/main; fi
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
python3 - <<'PY'
import json
p = json.load(open('suites/shapes.json'))
p['name'] = 'chunk_sass_stalls'; p['kernels'] = ['attn.a21_short_tiles', 'peer.cudnn_sdpa']
p['description'] = 'Session 11 call 10: SASS-level stall sampling on the D = 64 chunk (bf16).'
p['timing'] = {'cold': True, 'warmup': 1, 'min_samples': 3, 'max_samples': 3, 'noise_target': 0.5, 'time_cap_s': 0.05}
p['problems'] = [{"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 64, "heads": 32, "batch": 2, "seq_q": 512, "seq_k": 16384, "causal": False}}]
json.dump(p, open('/tmp/chunk_sass.json', 'w'), indent=1)
PY
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
timeout 150 $NCU --target-processes all --nvtx --nvtx-include "flashscope@verify]" --kernel-name regex:'AttnSm90Kernel|cudnn' \
  --section SourceCounters --section WarpStateStats -o $O/chunk \
  $B/cli/flashscope run /tmp/chunk_sass.json --out $O/ncu-run.json --color=never > $O/ncu.log 2>&1
echo "ncu exit $? at $(( $(date +%s) - T0 )) s"; ls -la $O
timeout 60 $NCU -i $O/chunk.ncu-rep --page source --csv --print-source sass > $O/chunk-sass.csv 2> $O/sass.log
echo "source page exit $? at $(( $(date +%s) - T0 )) s"; wc -c $O/chunk-sass.csv; head -c 600 $O/chunk-sass.csv; echo; tail -n 3 $O/sass.log
python3 - $O/chunk-sass.csv > $O/chunk-sass-top.txt 2>&1 <<'PY'
import csv, sys, io, re
text = open(sys.argv[1]).read()
# The page holds one table per kernel, each starting with its header row.
blocks = re.split(r'\n(?="(?:#|Address|Source)")', text)
for b in blocks:
    rows = list(csv.reader(io.StringIO(b)))
    rows = [r for r in rows if r]
    if len(rows) < 3: print('block:', b[:200]); continue
    head = rows[0]
    print('columns:', head[:40])
    col = next((i for i, h in enumerate(head) if 'Warp Stall Sampling (All' in h), None)
    src = next((i for i, h in enumerate(head) if h == 'Source'), 1)
    if col is None: continue
    data = []
    for r in rows[1:]:
        try: data.append((float(r[col] or 0), r))
        except (ValueError, IndexError): pass
    tot = sum(x for x, _ in data) or 1
    print('instructions', len(data), 'samples', tot)
    for x, r in sorted(data, key=lambda t: -t[0])[:40]:
        print('%6.2f%%  %s' % (100 * x / tot, r[src][:90]))
PY
head -c 6000 $O/chunk-sass-top.txt
rm -f $O/chunk.ncu-rep
xz -T0 $O/*.json $O/chunk-sass.csv
tar -C $OUT -cJf $OUT/call10.tar.xz call10 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
