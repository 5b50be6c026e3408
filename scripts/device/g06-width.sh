#!/usr/bin/env bash
# g06's tile width by predicted wave time (128x192 tiles at 3000^3, docs/perf-notes.md "g06 v4")
# in one short device call: the g06/g07 GPU tests (the new widths on odd shapes against the CPU
# reference), then the 14 GEMM problems of suites/shapes.json with g06, g07 and cuBLAS, the width
# each g06/g07 case ran (the device function's name) and the best-rung-vs-cuBLAS table. Builds
# nothing: run scripts/device/stage.sh BUILD here first (.carry/bins.tar.xz). About a minute on one
# H200; every step has its own limit (45 + 2 x 25 s of tests, a 75 s run deadline): under 3 minutes.
# Usage, from the repository root on the device machine:
#   bash scripts/device/g06-width.sh [BUILD]
set -uo pipefail
build=${1:-build-lead}
source "$(dirname "${BASH_SOURCE[0]}")/staged_build.sh"
start_device_script "$build" /work/main /work/wt/gemm
[[ -x $fs ]] || { echo "g06-width: no $fs (run scripts/device/stage.sh $build first)"; exit 2; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu \
  --format=csv | tee "$out/g06-width.gpu.csv"
start=$(date +%s)
rc=0

echo "##### GPU tests: g06's widths, g07's split tail, every GEMM kernel's odd shapes (g06, g07)"
timeout 45 "$build/kernels/kernels_hopper_rungs_gpu_test" --gtest_brief=1 \
  --gtest_filter='*G06TileWidths*:*SplitTailGemm*' || rc=1
for id in gemm.g06_ gemm.g07_; do
  FS_KERNELS_TEST_FILTER=$id timeout 25 "$build/kernels/kernels_gpu_test" --gtest_brief=1 \
    --gtest_filter='*Gemm*' || rc=1
done
echo "tests: exit $rc (t=$(($(date +%s) - start)) s)"

echo "##### suites/shapes.json, GEMM: g06, g07, cuBLAS"
"$fs" run suites/shapes.json --kernels gemm.g06_tma_ws,gemm.g07_split_tail,peer.cublas_gemm \
  --out "$out/g06-width.json" --deadline_s 75 --color=never \
  >"$out/g06-width.table.txt" 2>"$out/g06-width.progress.log"
run_rc=$?
echo "run: exit $run_rc (t=$(($(date +%s) - start)) s)"
tail -n 3 "$out/g06-width.progress.log"
[[ $run_rc -ne 0 ]] && rc=1
python3 - "$out/g06-width.json" <<'PY'
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
print("problem | kernel | TFLOP/s | device function")
for c in sorted(cases, key=lambda c: (c["problem_key"], c["kernel_id"])):
    if c["kernel_id"].startswith("gemm."):
        fn = ", ".join(r["function"] for r in c.get("resources", []))
        tf = (c.get("throughput") or {}).get("tflops")
        print(f'{c["problem_key"]} | {c["kernel_id"]} | {tf and round(tf, 1)} | {fn}')
PY
python3 scripts/ladder_tables.py "$out/g06-width.json" --best --vs peer.cublas_gemm |
  tee "$out/g06-width.best.md"
xz -k -9 "$out/g06-width.json" 2>/dev/null
echo "g06-width: exit $rc in $(($(date +%s) - start)) s"
exit $rc
