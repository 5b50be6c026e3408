#!/usr/bin/env bash
# Issue 27's target in one device call: suites/shapes.json (the best rungs beside cuDNN and
# cuBLAS on exactly the issue's shapes) under a deadline, the report and its progress log into
# $OUT, and the best-rung-vs-peer table (scripts/ladder_tables.py --best) printed last. Builds
# nothing: run scripts/device/stage.sh BUILD here first (.carry/bins.tar.xz).
# Usage, from the repository root on the device machine:
#   bash scripts/device/shapes.sh [BUILD]
# DEADLINE_S (default 360) bounds the run; a run cut short keeps its journal beside the report
# ($OUT/shapes.json.journal.jsonl): `flashscope run suites/shapes.json --resume JOURNAL` in the
# next call finishes it on the same build. FS_ARGS adds flags (e.g. --kernels).
set -uo pipefail
build=${1:-build-lead}
source "$(dirname "${BASH_SOURCE[0]}")/staged_build.sh"
start_device_script "$build" /work/main /work/wt/kernels
[[ -x $fs ]] || { echo "shapes: no $fs (run scripts/device/stage.sh $build first)"; exit 2; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu \
  --format=csv | tee "$out/shapes.gpu.csv"
start=$(date +%s)
# shellcheck disable=SC2086
"$fs" run suites/shapes.json --out "$out/shapes.json" --deadline_s "${DEADLINE_S:-360}" \
  --color=never ${FS_ARGS:-} >"$out/shapes.table.txt" 2>"$out/shapes.progress.log"
rc=$?
echo "shapes: exit $rc in $(($(date +%s) - start)) s"
tail -n 3 "$out/shapes.progress.log"
python3 scripts/ladder_tables.py "$out/shapes.json" --best \
  --vs peer.cudnn_sdpa,peer.cublas_gemm | tee "$out/shapes.best.md"
xz -k -9 "$out/shapes.json" 2>/dev/null
exit $rc
