#!/usr/bin/env bash
# Device call 5 (session 13, one H200): suites/fp8_python.json on 45ad763: the FP8 rungs (a27,
# a28, a29) against torch.sdpa_{flash,cudnn}_e4m3_upcast (E4M3 upcast to BF16 inside the launch,
# then torch's SDPA) on the same E4M3 problems, through the Python bridge with real torch (the
# bridge's E4M3 path: torch.float8_e4m3fn inputs, a BF16 out, accepts_fp8).
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call5; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
export FLASHSCOPE_PYTHON=python3 PYTHONUNBUFFERED=1
timeout 250 $B/cli/flashscope run suites/fp8_python.json --out $O/fp8_python.json --deadline_s 240 --color=never > $O/fp8_python.table.txt 2> $O/fp8_python.log
echo "fp8_python exit $? at $(( $(date +%s) - T0 )) s"; grep -E "^suite" $O/fp8_python.table.txt; grep -E "flashscope-python" $O/fp8_python.log | head -3
python3 - $O/fp8_python.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d['cases']:
    if c['status'] != 'skipped':
        print(f"{c['kernel_id']:30s} {c['problem_key']:50s} {c['status']:7s} {c.get('throughput', {}).get('tflops', 0):7.1f} {c.get('reason', '')[:160]}")
PY
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call5.tar.xz call5 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
