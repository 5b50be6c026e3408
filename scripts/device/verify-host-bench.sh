#!/usr/bin/env bash
# The host side of verification on the GPU machine (docs/perf-notes.md, "Host verification:
# copies, passes and heatmaps"): flashscope-verify-host-bench on the CPU side (all cores, then
# one), then --device: the device-to-host copies of a redraw and of a verify into fresh vectors
# (before) and into the Workspace's kept pinned buffers (after), and Workspace::Redraw and
# ::Verify at the ladder's size with its heatmaps. Builds nothing: run scripts/device/stage.sh
# BUILD here first (.carry/bins.tar.xz).
# Usage, from the repository root on the device machine:
#   bash scripts/device/verify-host-bench.sh [BUILD]
# BENCH_ARGS adds flags (default: the ladder's B=1 H=32 S=16384 D=64 bf16 with --lse).
set -uo pipefail
build=${1:-build-lead}
source "$(dirname "${BASH_SOURCE[0]}")/staged_build.sh"
start_device_script "$build" /work/main /work/wt/hostverify
bench="$root/$build/verify/flashscope-verify-host-bench"
[[ -x $bench ]] || { echo "verify-host-bench: no $bench (run scripts/device/stage.sh $build first)"; exit 2; }
args=${BENCH_ARGS:---lse}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/verify-host-bench.txt"
echo "cores: $(nproc)" | tee -a "$out/verify-host-bench.txt"
# shellcheck disable=SC2086
{
  rc=0
  echo "## CPU, all cores"; "$bench" $args --reps 5 || rc=1
  echo "## CPU, one core (taskset -c 0)"; taskset -c 0 "$bench" $args --reps 3 || rc=1
  echo "## device"; "$bench" $args --reps 5 --device || rc=1
  exit $rc
} 2>&1 | tee -a "$out/verify-host-bench.txt"
exit "${PIPESTATUS[0]}"
