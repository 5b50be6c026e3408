#!/usr/bin/env bash
# Makes docs/heatmaps.md's pictures (docs/img/heatmap-bug-*.png) headless from a committed demo
# report: one case-view screenshot per bug kernel, under Xvfb (Mesa), no GPU needed.
#
#   scripts/heatmap-pictures.sh [REPORT.json[.xz]] [VIEWER]
#
# REPORT defaults to the demo report docs/heatmaps.md reads; VIEWER to build/viewer/flashscope-view
# (cmake -DFLASHSCOPE_VIEWER=ON, docs/viewer.md). Exit codes: 0 written, 1 a screenshot failed,
# 2 a missing report, viewer or xvfb-run.
set -euo pipefail

cd "$(dirname "$0")/.."
report=${1:-results/runs/20261124-103416-demo.json.xz}
viewer=${2:-build/viewer/flashscope-view}
out=docs/img

for need in "$report" "$viewer"; do
  if [[ ! -e $need ]]; then
    echo "heatmap-pictures: $need does not exist (usage: $0 [REPORT] [VIEWER])" >&2
    exit 2
  fi
done
if ! command -v xvfb-run > /dev/null; then
  echo "heatmap-pictures: xvfb-run is missing (FLASHSCOPE_WITH_VIEWER=1 scripts/install-deps.sh)" >&2
  exit 2
fi

# The viewer reads plain JSON: the report is unpacked (or copied) into a temporary folder and
# named there by its own file name, which the pictures' title line then shows.
root=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
name=$(basename "${report%.xz}")
if [[ $report == *.xz ]]; then xz -dc "$report" > "$tmp/$name"; else cp "$report" "$tmp/$name"; fi
viewer=$(realpath "$viewer")

bf16='attention_fwd{B=2,H=4,S=255,D=64,bf16,causal}'
fp16='attention_fwd{B=2,H=4,Sq=255,Sk=16383,D=64,fp16,causal}'
# The bug kernels are demo.bug_* (the demo plugin); reports made before that plugin existed, the
# committed default among them, name them test.bug_*.
bug=demo.bug
if ! grep -q '"demo\.bug_' "$tmp/$name"; then bug=test.bug; fi
# picture name : kernel : problem : heatmap kind
pictures=(
  "grid-floor:${bug}_grid_floor:$bf16:position_x_dim"
  "key-tile-floor:${bug}_key_tile_floor:$bf16:position_x_dim"
  "causal-diagonal:${bug}_causal_diagonal:$bf16:position_x_dim"
  "stale-rescale:${bug}_stale_rescale:$fp16:position_x_dim"
  "stale-rescale-fold:${bug}_stale_rescale:$fp16:tile_fold"
  "ldmatrix-trans:${bug}_ldmatrix_trans:$bf16:position_x_dim"
  "fp16-accumulate:${bug}_fp16_accumulate:$fp16:position_x_dim"
)
for p in "${pictures[@]}"; do
  IFS=: read -r picture kernel problem kind <<< "$p"
  (cd "$tmp" && xvfb-run -a -s '-screen 0 1600x1000x24' "$viewer" "$name" \
    --screenshot "$root/$out/heatmap-bug-$picture.png" --view case --case "$kernel $problem" \
    --heatmap "$kind" --size 1280x800) ||
    { echo "heatmap-pictures: no picture of $kernel $problem ($kind)" >&2; exit 1; }
done
