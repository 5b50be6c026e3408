#!/usr/bin/env bash
# One device call for the Hopper attention rungs (issue 15): correctness (smoke, attn_hopper),
# timing beside cuDNN (attn_hopper_perf), the basic hardware metrics (attn_hopper_metrics) and
# compute-sanitizer memcheck and racecheck (attn_hopper_tiny). Each step has its own time limit
# (flashscope's --deadline_s keeps the journal of a step cut short) and everything is packed into
# $OUT/attn-hopper.tgz after every step, so a call cut off at its limit still returns what it
# measured; the summary (attn_hopper_summary.py) is printed last.
# Usage, from the repository root on the device machine:
#   bash scripts/device/attn-hopper.sh DIR [STEP...]
# DIR holds flashscope.xz (the stripped binary, xz-compressed: a call carries 64 MiB at most),
# the suite files (smoke.json, attn_hopper*.json) and attn_hopper_summary.py. STEP: smoke, check,
# perf, metrics, sanitize (default: all five, in that order). KERNELS overrides the rungs
# ('attn.a1[2-9]*'); PERF_DEADLINE_S the timing step's limit (150 s: 180 cases take ~160 s).
# The raw outputs of the calls made with it (and its earlier forms) are in
# results/device/20261124-h200-attn/.
set -uo pipefail
dir=${1:-.scratch/attn}
shift
steps=("$@")
[[ ${#steps[@]} -eq 0 ]] && steps=(smoke check perf metrics sanitize)
kernels=${KERNELS:-attn.a1[2-9]*}
out=${OUT:-/tmp/out}
work=/tmp/attn-hopper
mkdir -p "$work" "$out"
xz -dc "$dir/flashscope.xz" >"$work/flashscope" && chmod +x "$work/flashscope" || exit 1
fs=$work/flashscope
start=$(date +%s)
common=(--quiet --color=false --case_timeout_s 30)

step() {
  local name=$1
  shift
  echo "##### $name (t=$(($(date +%s) - start)) s)"
  "$@" >"$work/$name.log" 2>&1
  echo "exit $? (t=$(($(date +%s) - start)) s)"
  tail -n 2 "$work/$name.log"
  tar -C "$work" --exclude=flashscope -czf "$out/attn-hopper.tgz" .
}

# The tools slow the worker's peak measurement (a cuBLAS GEMM) to minutes, so the tiny suite
# runs once without them and the tools resume a journal that holds only that run's header and
# measured environment: the worker reuses the peaks and runs every case under the tool.
sanitize() {
  step tiny "$fs" run "$dir/attn_hopper_tiny.json" --kernels "$kernels" "${common[@]}" \
    --out "$work/tiny.json"
  python3 - "$work/tiny.json" "$work/tools.journal.jsonl" <<'PY' || return
import json, sys
report = json.load(open(sys.argv[1]))
header = {"type": "header", "schema": "flashscope.journal", "schema_version": 1,
          "command_line": "header and environment of " + sys.argv[1],
          "started_at": "", "suite": report["suite"]}
with open(sys.argv[2], "w") as f:
    f.write(json.dumps(header) + "\n")
    f.write(json.dumps({"type": "environment", "environment": report["environment"]}) + "\n")
PY
  local san
  san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck; do
    cp "$work/tools.journal.jsonl" "$work/$tool.journal.jsonl"
    step "$tool" timeout 120 "$san" --tool "$tool" --target-processes all --print-limit 20 \
      "$fs" run "$dir/attn_hopper_tiny.json" --kernels "$kernels" "${common[@]}" \
      --resume "$work/$tool.journal.jsonl" --out "$work/$tool.json"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$work/$tool.log"
  done
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu \
  --format=csv >"$work/gpu.txt" 2>&1
for s in "${steps[@]}"; do
  case $s in
    smoke) step smoke "$fs" run "$dir/smoke.json" --kernels "$kernels" "${common[@]}" \
      --deadline_s 60 --out "$work/smoke.json" ;;
    check) step check "$fs" run "$dir/attn_hopper.json" --kernels "$kernels" "${common[@]}" \
      --deadline_s 90 --out "$work/check.json" ;;
    perf) step perf "$fs" run "$dir/attn_hopper_perf.json" --kernels "$kernels,peer.cudnn_sdpa" \
      "${common[@]}" --deadline_s "${PERF_DEADLINE_S:-150}" --out "$work/perf.json" ;;
    metrics) step metrics "$fs" run "$dir/attn_hopper_metrics.json" \
      --kernels "$kernels,peer.cudnn_sdpa" --metrics basic "${common[@]}" --deadline_s 60 \
      --out "$work/metrics.json" ;;
    sanitize) sanitize ;;
    *) echo "unknown step $s (smoke, check, perf, metrics, sanitize)" && exit 2 ;;
  esac
done
python3 "$dir/attn_hopper_summary.py" "$work" | tee "$work/summary.txt"
tar -C "$work" --exclude=flashscope -czf "$out/attn-hopper.tgz" .
