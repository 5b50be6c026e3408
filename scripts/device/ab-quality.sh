#!/usr/bin/env bash
# flashscope ab's quality, measured on the GPU machine (docs/gate-quality.md, "flashscope ab"),
# against the separate runs + gate it replaces. Runs in a copy of the repo holding
# .carry/bins.tar.xz (scripts/device/stage.sh, which packs the ab fixture's plugins), like
# gate-quality.sh:
#
#   scripts/device/ab-quality.sh BUILD
#
# Suite suites/testing/ab_quality.json: 50 case pairs (5 copies of a10 + a calibrated spin on 10
# shapes of 0.25-1.9 ms, kernels/testing/ab_fixture.h); builds 0 % (twice), 1 %, 2 %, 5 %.
#   1. ab: the 0 % build against the second 0 % build (A/A: false regressions) and against the
#      1, 2 and 5 % builds (detections), one session each.
#   2. separate runs: `flashscope run` of each build, then `flashscope gate` of the 0 % run
#      against each other run, with the gate's default policy (2 %) and with ab's thresholds
#      (0.5 %); and the gate's rule on ab's own two reports (interleaved samples, unpaired test).
# Device time, estimated from the suite's timing policy on an H100/H200 (a10 at ~300 TFLOPS):
# a pair of samples ~2 x (0.7 ms kernel + 0.1 ms flush, probe, sync), 30 pairs minimum, the
# noise target met there for these shapes: ~0.05 s of timing per case pair; each side verified
# (~0.12 s of host statistics on 4-17 M elements); inputs and references for 10 problems ~3 s;
# a worker's start and peak measurement ~4 s. ab: ~23 s a session x 4; a run: ~15 s x 5;
# about 3 minutes in all (under 4); every step's wall time is printed below.
# Results: $OUT/results.md and results.json (the tables), and $OUT/ab-quality.tgz (every report,
# verdict and log), packed on exit even when the call's time limit stops the script: the device
# tool brings back 8 files at most.
set -uo pipefail
build=$1
source "$(dirname "${BASH_SOURCE[0]}")/staged_build.sh"
start_bundled_script ab-quality "$build" results.md results.json
suite=suites/testing/ab_quality.json
started=$SECONDS

ab() {  # NAME NEW_BUILD
  local t=$SECONDS
  "$fs" ab "$suite" --base "$fixtures/libfs_ab_a10_p0.so" --new "$fixtures/libfs_ab_a10_$2.so" \
    --out-dir "$out/ab-$1" --json "$out/ab-$1.verdict.json" --color=never \
    >"$out/ab-$1.table.txt" 2>"$out/ab-$1.progress.log"
  echo "ab $1 (p0 vs $2): exit $? in $((SECONDS - t)) s"
}
run() {  # BUILD
  local t=$SECONDS
  "$fs" run "$suite" --plugin "$fixtures/libfs_ab_a10_$1.so" --out "$out/run-$1.json" \
    --color=never --quiet >"$out/run-$1.table.txt" 2>"$out/run-$1.progress.log"
  echo "run $1: exit $? in $((SECONDS - t)) s"
}

echo "=== ab ($(date -u +%H:%M:%S))"
ab aa p0b
for p in 1 2 5; do ab "$p" "p$p"; done
echo "=== separate runs ($(date -u +%H:%M:%S))"
for b in p0 p0b p1 p2 p5; do run "$b"; done
echo "=== analysis ($(date -u +%H:%M:%S)), device steps took $((SECONDS - started)) s"
python3 scripts/device/ab_quality_analyze.py --flashscope "$fs" --dir "$out" \
  --command "scripts/device/ab-quality.sh $build"
cat "$out/results.md"
