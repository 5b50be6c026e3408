#!/usr/bin/env bash
# The main job (README's first command). With a GPU: build, run the suite (default: smoke), print
# the summary and write a report under results/runs/. With no GPU: say so, build the CPU parts only,
# and show the summary of the latest committed GPU report.
set -euo pipefail
cd "$(dirname "$0")/.."
suite=${1:-smoke}
shift || true

scripts/install-deps.sh

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  build=${FLASHSCOPE_BUILD_DIR:-build}
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLASHSCOPE_TESTS=OFF >/dev/null
  # The command, the worker that runs the cases beside it and the plugins the suites load.
  cmake --build "$build" -j "$(nproc)"
  exec "$build/cli/flashscope" run "$suite" "$@"
fi

echo "main-job: no GPU on this machine (nvidia-smi lists none), so no kernel can run here."
# Reports are named <utc time>-<suite>.json, so the newest of the suite sorts last; large ones
# are committed xz-compressed (<utc time>-<suite>.json.xz).
latest=$(ls results/runs/*-"$suite".json results/runs/*-"$suite".json.xz 2>/dev/null | sort |
  tail -n 1 || true)
if [[ -z "$latest" ]]; then
  echo "main-job: and no committed GPU report of suite '$suite' was found under results/runs/." >&2
  exit 1
fi
echo "main-job: showing the latest committed GPU report instead: $latest"
build=${FLASHSCOPE_CPU_BUILD_DIR:-build-cpu}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLASHSCOPE_CUDA=OFF \
  -DFLASHSCOPE_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target flashscope
if [[ $latest == *.xz ]]; then
  shown="$build/$(basename "$latest" .xz)"
  xz -dc "$latest" >"$shown"
  latest=$shown
fi
exec "$build/cli/flashscope" show "$latest"
