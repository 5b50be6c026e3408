#!/usr/bin/env bash
# The regression gate's quality, measured on the GPU machine (docs/gate-quality.md); ~3-4 minutes.
# Runs in a copy of the repo holding .carry/bins.tar.xz (scripts/device/stage.sh), like session.sh.
#
#   scripts/device/gate-quality.sh BUILD [TRIALS]      (TRIALS slowdown runs, default 4)
#
#   1. A/A: suite gate_quality (22 cases: a10, a09, g04, cuBLAS at several shapes) run twice with
#      the same build; `flashscope gate` between the two counts false regressions.
#   2. Injected slowdown: TRIALS runs of a10 beside test.a10_slow3/5/10 (a10 plus a calibrated 3, 5,
#      10 % of its time); every slow variant is gated against a10, within a run and across runs.
#   3. The noise: run-to-run relative differences of medians (A/A pairs and a10 across trials).
# Results: $OUT/gate-quality/ (reports, gate verdicts, results.json, results.md).
set -uo pipefail
build=$1
trials=${2:-4}
root=$PWD
out=${OUT:-/tmp/out}/gate-quality
mkdir -p "$out"
source "$(dirname "${BASH_SOURCE[0]}")/staged_build.sh"
unpack_staged_build "$root"
fs="$root/$build/cli/flashscope"
suite=suites/testing/gate_quality.json
aa_kernels='attn.a10_fa2,attn.a09_swizzle,gemm.g04_mma,peer.cublas_gemm'
slow_kernels='attn.a10_fa2,test.a10_slow*'
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv \
  >"$out/gpu.txt" 2>&1

run() {  # NAME KERNELS
  local started=$SECONDS
  "$fs" run "$suite" --kernels "$2" --out "$out/$1.json" --color=false --quiet \
    --deadline_s 150 >"$out/$1.table.txt" 2>"$out/$1.progress.log"
  echo "run $1: exit $? in $((SECONDS - started)) s ($(grep -c . "$out/$1.table.txt") table lines)"
}

echo "=== A/A ($(date -u +%H:%M:%S))"
run aa1 "$aa_kernels"
run aa2 "$aa_kernels"
echo "=== injected slowdown, $trials trials ($(date -u +%H:%M:%S))"
for ((i = 1; i <= trials; i++)); do run "trial$i" "$slow_kernels"; done
echo "=== analysis ($(date -u +%H:%M:%S))"
python3 scripts/device/gate_quality_analyze.py --flashscope "$fs" --dir "$out" --trials "$trials" \
  --command "scripts/device/gate-quality.sh $build $trials"
cat "$out/results.md"
