#!/usr/bin/env bash
# Runs on the lent GPU (issue 4 perf work, docs/perf-notes.md): the tile sweep built here by
#   nvcc -arch=sm_90 -std=c++17 -O3 --expt-relaxed-constexpr -I. -Xptxas -v \
#        -o build-perf/carry/tile_bench suites/perf/tile_bench.cu
# carried as build-perf/carry. Output: $OUT/tile_bench.txt (CPU checks first, then the table).
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
build-perf/carry/tile_bench "${SAMPLES:-30}" 2>&1 | tee "$out/tile_bench.txt"
echo "tile_bench rc ${PIPESTATUS[0]}"
