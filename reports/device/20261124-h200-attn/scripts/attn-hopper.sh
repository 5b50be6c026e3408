#!/usr/bin/env bash
# One device call for the Hopper attention rungs (issue 15), in order of importance:
# correctness (smoke and attn_hopper: D 256, B·H > 65,535, odd multi-tile lengths), timing
# against cuDNN (attn_hopper_perf), compute-sanitizer memcheck and racecheck on one small problem
# per rung, and the basic hardware metrics (attn_hopper_metrics). Each step has its own time
# limit (flashscope's --deadline_s keeps the journal of a step cut short). Everything lands in
# $OUT/attn-hopper.tgz; the summary (scripts/device/attn_hopper_summary.py) is printed last.
# Usage, from the repository root on the device machine:
#   bash scripts/device/attn-hopper.sh DIR [KERNELS]
# DIR holds flashscope.xz (the stripped binary, xz-compressed: the carry limit is 64 MiB), the
# suite files (smoke.json, attn_hopper*.json) and this script's summary helper.
set -uo pipefail
dir=${1:-.scratch/attn}
kernels=${2:-attn.a1[2-9]*}
out=${OUT:-/tmp/out}
work=/tmp/attn-hopper
mkdir -p "$work" "$out"
xz -dc "$dir/flashscope.xz" >"$work/flashscope" && chmod +x "$work/flashscope" || exit 1
fs=$work/flashscope
start=$(date +%s)
step() {
  local name=$1
  shift
  echo "##### $name (t=$(($(date +%s) - start)) s)"
  "$@" >"$work/$name.log" 2>&1
  echo "exit $? (t=$(($(date +%s) - start)) s)"
  tail -n 2 "$work/$name.log"
  # Packed after every step: a call cut off at its limit still returns what was measured.
  tar -C "$work" --exclude=flashscope -czf "$out/attn-hopper.tgz" .
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu \
  --format=csv >"$work/gpu.txt" 2>&1
cat "$work/gpu.txt"
common=(--quiet --color=false --case_timeout_s 30)
step smoke "$fs" run "$dir/smoke.json" --kernels "$kernels" "${common[@]}" --deadline_s 60 \
  --out "$work/smoke.json"
step check "$fs" run "$dir/attn_hopper.json" --kernels "$kernels" "${common[@]}" --deadline_s 40 \
  --out "$work/check.json"
step perf "$fs" run "$dir/attn_hopper_perf.json" --kernels "$kernels,peer.cudnn_sdpa" \
  "${common[@]}" --deadline_s 75 --out "$work/perf.json"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  step "$tool" timeout 30 "$san" --tool "$tool" --target-processes all --print-limit 20 \
    "$fs" run "$dir/attn_hopper_tiny.json" --kernels "$kernels" "${common[@]}" \
    --out "$work/$tool.json"
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|Invalid" "$work/$tool.log" | sort | uniq -c | head
done
# Inputs, output and reference of two rungs on the small problems, for offline diagnosis.
step dump "$fs" run "$dir/attn_hopper_tiny.json" --kernels "attn.a12_wgmma_tma,attn.a15_intra_overlap" \
  "${common[@]}" --deadline_s 15 --dump "$work/dump" --out "$work/dump.json"
step metrics "$fs" run "$dir/attn_hopper_metrics.json" --kernels "$kernels,peer.cudnn_sdpa" \
  --metrics basic "${common[@]}" --deadline_s 35 --out "$work/metrics.json"
python3 "$dir/attn_hopper_summary.py" "$work" | tee "$work/summary.txt"
tar -C "$work" --exclude=flashscope -czf "$out/attn-hopper.tgz" .
ls -la "$out"
