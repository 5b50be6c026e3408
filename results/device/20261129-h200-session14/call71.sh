#!/usr/bin/env bash
# Device call 2 (session 14, one H200): the final code (a30 refuted and moved to a branch).
# (1) the whole of suites/shapes.json (the README's table); (2) suites/shapes_misses.json with its
# hardware metrics: one problem per kind of remaining miss, the best rungs and the peer; (3) the
# issue-slot and instruction counters on the D = 64 chunk and the D = 128 S = 512 miss; (4) the
# Hopper rungs' attention GPU tests and memcheck/racecheck of shapes_tiny (its new 192-row and
# D = 128 persistent problems) with a26.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call2; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
timeout 300 $B/cli/flashscope run suites/shapes.json --out $O/shapes.json --deadline_s 290 --color=never > $O/shapes.table.txt 2> $O/shapes.log
echo "shapes exit $? at $(( $(date +%s) - T0 )) s"; tail -n 1 $O/shapes.log; grep -E "^suite" $O/shapes.table.txt
python3 - $O/shapes.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print('not passed:', [(c['kernel_id'], c['problem_key'], c['status'], c.get('reason', '')[:150]) for c in d['cases'] if c['status'] != 'passed'])
PY
timeout 170 $B/cli/flashscope run suites/shapes_misses.json --out $O/misses.json --deadline_s 160 --color=never > $O/misses.table.txt 2> $O/misses.log
echo "misses exit $? at $(( $(date +%s) - T0 )) s"; tail -n 1 $O/misses.log; grep -E "^suite" $O/misses.table.txt
python3 - <<'PY'
import json
d = json.load(open('suites/shapes_misses.json'))
d['name'] = 'shapes_misses_issue'
d['kernels'] = ['attn.a21_short_tiles', 'attn.a24_prefetch128', 'attn.a26_trim_warpgroups', 'peer.cudnn_sdpa']
d['problems'] = [{"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 64, "heads": 32, "batch": 2, "seq_q": 512, "seq_k": 16384}},
                 {"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 128, "heads": 16, "tokens": 16384, "seq": 512}}]
d['metrics'] = 'smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,gpu_time'
d['description'] = 'Session 14 call 2: issue-slot use and instruction counts of two misses.'
json.dump(d, open('/tmp/misses_issue.json', 'w'), indent=1)
PY
timeout 60 $B/cli/flashscope run /tmp/misses_issue.json --out $O/misses-issue.json --deadline_s 50 --color=never > $O/misses-issue.table.txt 2> $O/misses-issue.log
echo "misses issue exit $? at $(( $(date +%s) - T0 )) s"; grep -E "^suite" $O/misses-issue.table.txt
for tool in memcheck racecheck; do
  timeout 60 $B/cli/flashscope run suites/shapes_tiny.json --kernels 'attn.a26*' --sanitize=$tool --out $O/$tool-a26.json --color=never > $O/$tool-a26.txt 2>&1
  echo "$tool exit $? at $(( $(date +%s) - T0 )) s"; grep -E "\[sanitize" $O/$tool-a26.txt | head -8
done
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call2.tar.xz call2 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
