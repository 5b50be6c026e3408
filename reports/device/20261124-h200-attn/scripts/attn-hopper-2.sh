#!/usr/bin/env bash
# Device call 2 for the Hopper attention rungs (after call 1, scripts/device/attn-hopper.sh):
# correctness of the new a17 (smoke, attn_hopper), the attn_hopper problems call 1's deadline
# left out for a12..a16 (attn_hopper_rest.json), every rung and cuDNN on attn_hopper_perf, a17's
# metrics, and racecheck on the tiny suite. Racecheck cannot measure the device peaks in time
# (the peak GEMM under racecheck runs for minutes), so it resumes a journal whose environment a
# plain run measured: the journal keeps header and environment, drops the cases.
# Usage, from the repository root on the device machine: bash scripts/device/attn-hopper-2.sh DIR
set -uo pipefail
dir=${1:-.scratch/attn}
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
  tar -C "$work" --exclude=flashscope -czf "$out/attn-hopper-2.tgz" .
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu \
  --format=csv >"$work/gpu.txt" 2>&1
common=(--quiet --color=false --case_timeout_s 30)
step smoke "$fs" run "$dir/smoke.json" --kernels 'attn.a17*' "${common[@]}" --deadline_s 20 \
  --out "$work/smoke.json"
step check "$fs" run "$dir/attn_hopper.json" --kernels 'attn.a17*' "${common[@]}" --deadline_s 35 \
  --out "$work/check.json"
step rest "$fs" run "$dir/attn_hopper_rest.json" --kernels 'attn.a1[2-6]*' "${common[@]}" \
  --deadline_s 25 --out "$work/rest.json"
step perf "$fs" run "$dir/attn_hopper_perf.json" --kernels 'attn.a1[2-9]*,peer.cudnn_sdpa' \
  "${common[@]}" --deadline_s 150 --out "$work/perf.json"
step metrics "$fs" run "$dir/attn_hopper_metrics.json" --kernels 'attn.a17*' --metrics basic \
  "${common[@]}" --deadline_s 15 --out "$work/metrics.json"
step race_env "$fs" run "$dir/attn_hopper_tiny.json" --kernels 'attn.a1[2-9]*' "${common[@]}" \
  --deadline_s 8 --out "$work/race_env.json"
grep -v '"type":"case' "$work/race_env.json.journal.jsonl" >"$work/racecheck.json.journal.jsonl"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
left=$((285 - ($(date +%s) - start)))
step racecheck timeout $((left > 10 ? left : 10)) "$san" --tool racecheck --target-processes all \
  --print-limit 20 "$fs" run "$dir/attn_hopper_tiny.json" --kernels 'attn.a1[2-9]*' \
  "${common[@]}" --resume "$work/racecheck.json.journal.jsonl" --out "$work/racecheck.json"
grep -E "RACECHECK SUMMARY|ERROR SUMMARY|hazard" "$work/racecheck.log" | sort | uniq -c | head
python3 "$dir/attn_hopper_summary.py" "$work" | tee "$work/summary.txt"
tar -C "$work" --exclude=flashscope -czf "$out/attn-hopper-2.tgz" .
