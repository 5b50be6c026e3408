#!/usr/bin/env bash
# a18 device call: unpack the carried binaries, check a17/a18, then time a17, a18 and cuDNN.
set -u
here=.scratch/a18
tar -C "$here" -xJf "$here/bins.tar.xz"
fs=$here/bin/flashscope
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv | tee "$OUT/nvidia-smi.csv"
step() {  # name suite deadline
  "$fs" run "$here/$2.json" --out "$OUT/$1.json" --deadline_s "$3" --color=never 2>"$OUT/$1.log" | tail -n "$4"
  echo "== $1 rc=${PIPESTATUS[0]}"
}
step check a18_check "${CHECK_S:-45}" 8
step perf a18_perf "${PERF_S:-45}" 30
step perf2 a18_perf "${PERF2_S:-35}" 30
xz -9 "$OUT"/*.json
