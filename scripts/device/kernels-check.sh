#!/usr/bin/env bash
# One device call for issue 27's new rungs (RUNGS, default "attn.a19 attn.a20 attn.a21 gemm.g07"):
# their GPU tests, the held-out-style correctness suites, compute-sanitizer memcheck and racecheck
# on small problems of each new path, and a quick timing beside the best older rung and the peer on a handful of the
# target shapes. Builds nothing: run scripts/device/stage.sh BUILD here first (it packs the build
# into .carry/bins.tar.xz). Every step has its own time limit, and everything lands in
# $OUT/kernels-check.tgz after each step, so a call cut short still returns what it measured; the
# compact summary (kernels_check_summary.py) is printed last.
# Usage, from the repository root on the device machine:
#   bash scripts/device/kernels-check.sh [BUILD] [STEP...]
# STEP: tests, smoke, check, memcheck, racecheck, quick (default: all six, in that order; each has
# its own limit, 8.5 minutes in all at most, usually far less).
set -uo pipefail
build=${1:-build-lead}
shift
steps=("$@")
[[ ${#steps[@]} -eq 0 ]] && steps=(tests smoke check memcheck racecheck quick)
rungs=(${RUNGS:-attn.a19 attn.a20 attn.a21 gemm.g07})
kernels=$(printf '%s*,' "${rungs[@]}")
kernels=${kernels%,}
work=/tmp/kernels-check
rm -rf "$work" && mkdir -p "$work"
source "$(dirname "${BASH_SOURCE[0]}")/staged_build.sh"
start_device_script "$build" /work/main /work/wt/kernels
[[ -x $fs ]] || { echo "kernels-check: no $fs (run scripts/device/stage.sh $build first)"; exit 2; }
start=$(date +%s)
common=(--quiet --color=false)

step() {
  local name=$1
  shift
  echo "##### $name (t=$(($(date +%s) - start)) s)"
  "$@" >"$work/$name.log" 2>&1
  local rc=$?
  echo "exit $rc (t=$(($(date +%s) - start)) s)" | tee "$work/$name.rc"
  tail -n 3 "$work/$name.log"
  tar -C "$work" -czf "$out/kernels-check.tgz" .
}

gpu_tests() {
  local t=$build/kernels/kernels_hopper_rungs_gpu_test
  timeout 150 "$t" --gtest_brief=1 || return
  # Every rung's small problems (odd lengths, Sq != Sk, -inf rows), narrowed to the new rungs.
  local r
  for r in "${rungs[@]}"; do
    FS_KERNELS_TEST_FILTER="${r}_" timeout 60 "$build/kernels/kernels_gpu_test" \
      --gtest_filter='*Every*KernelMatches*' --gtest_brief=1 || return
  done
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu \
  --format=csv >"$work/gpu.txt" 2>&1
for s in "${steps[@]}"; do
  case $s in
    tests) step tests gpu_tests ;;
    smoke) step smoke "$fs" run suites/smoke.json --kernels "$kernels" "${common[@]}" \
      --deadline_s 60 --out "$work/smoke.json" ;;
    check) step check "$fs" run suites/attn_hopper.json --kernels "$kernels" "${common[@]}" \
      --deadline_s 75 --out "$work/check.json" ;;
    # The sanitizer reruns come after the run; `timeout` bounds both (the journal survives).
    memcheck | racecheck) step "$s" timeout 170 "$fs" run suites/shapes_tiny.json \
      --kernels "$kernels" --sanitize="$s" "${common[@]}" --deadline_s 60 --out "$work/$s.json" ;;
    quick) step quick "$fs" run suites/shapes_quick.json "${common[@]}" --deadline_s 120 \
      --out "$work/quick.json" ;;
    *) echo "unknown step $s (tests, smoke, check, memcheck, racecheck, quick)" && exit 2 ;;
  esac
done
python3 scripts/device/kernels_check_summary.py "$work" | tee "$work/summary.txt"
tar -C "$work" -czf "$out/kernels-check.tgz" .
