#!/usr/bin/env bash
# The tiled GPU attention reference and same-precision baseline (verify/gpu_reference_attention.cu)
# on the lent GPU machine, from a copy of the repo with .carry/bins.tar.xz (scripts/device/stage.sh
# BUILD): correctness first, then speed.
#   1. verify_gpu_reference_tiles_gpu_test: every element of 14 shapes against host models with
#      derived bounds (fp32 and fp64 reference, baseline), then verify_gpu_reference_gpu_test (the
#      CPU cross-check, the baseline's size, 16384 keys, the gemm references);
#   2. the tiles test's small shapes again under compute-sanitizer memcheck and racecheck (shared
#      memory hazards between the K and V tiles), when the tool is there;
#   3. flashscope-reference-bench: ms and TFLOP/s per kernel at the ladder's verification shapes
#      (docs/perf-notes.md, "The GPU reference and baseline, tiled").
# Usage: scripts/device/reference-bench.sh BUILD     (e.g. build-lead; writes into $OUT)
# Writes $OUT/reference-tests.txt, $OUT/reference-sanitize.txt, $OUT/reference-bench.txt.
# What it must show: "[  PASSED  ] 14 tests" and "[  PASSED  ] 8 tests" (the two binaries),
# "ERROR SUMMARY: 0 errors" for each sanitizer run, and the bench's four lines; exit 0.
set -uo pipefail
build=${1:-build-lead}
source "$(dirname "${BASH_SOURCE[0]}")/staged_build.sh"
start_device_script "$build" /work/main /work/wt/ref
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$out/reference-bench.txt"

for t in verify_gpu_reference_tiles_gpu_test verify_gpu_reference_gpu_test; do
  "$build/verify/$t" 2>&1 | tee -a "$out/reference-tests.txt" | grep -E "^\[  (PASSED|FAILED) |worst err/bound|Failure|error" 
  rc=${PIPESTATUS[0]}
  echo "$t: exit $rc"
  ((rc == 0)) || status=1
done

sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [[ -x $sanitizer ]]; then
  # Shapes small enough for the tools' slowdown: odd lengths, Sq != Sk, D 3..256, fp32.
  small='*b1h2q1k1d64*:*b2h3q7k7d96*:*b1h1q65k129d64*:*b1h3q70k50d3*:*b1h1q40k40d200*:*b1h2q33k33d128*'
  for tool in memcheck racecheck; do
    "$sanitizer" --tool "$tool" --error-exitcode 3 "$build/verify/verify_gpu_reference_tiles_gpu_test" \
      --gtest_filter="$small" >>"$out/reference-sanitize.txt" 2>&1
    rc=$?
    echo "compute-sanitizer --tool $tool: exit $rc ($(grep -c 'ERROR SUMMARY: 0 errors' "$out/reference-sanitize.txt") clean summaries so far)"
    ((rc == 0)) || status=1
  done
else
  echo "compute-sanitizer not found: the sanitizer step did not run" | tee "$out/reference-sanitize.txt"
  status=1
fi

"$build/verify/flashscope-reference-bench" --reps 5 2>&1 | tee -a "$out/reference-bench.txt"
((PIPESTATUS[0] == 0)) || status=1
echo "reference-bench.sh: exit $status"
exit $status
