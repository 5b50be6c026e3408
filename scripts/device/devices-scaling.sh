#!/usr/bin/env bash
# How `flashscope run --devices` scales, and where the time goes (issue 28), on the lent
# multi-GPU machine. Runs SUITE on 1 GPU, then on the first 2, then on every GPU (when more than
# 2), each with a worker phase trace (FLASHSCOPE_PHASE_TRACE, runner/phase_trace.h), and prints the
# wall times, the speed-ups and the per-case time of every segment (scripts/device/phase_trace.py).
#
# Usage (after scripts/device/stage.sh BUILD here, carrying .carry):
#   scripts/device/devices-scaling.sh BUILD SUITE [FLAGS...]
# FLAGS go to every run (e.g. --shard 1/4 or --kernels GLOB to fit a call). DEADLINE_S (default
# 170) caps each run. CHECKS=off runs a copy of the suite with the trust checks that collect
# counters and trace launches switched off (as scripts/device/trust-cost.sh does), to see what
# scales without them. Results: $OUT/scaling-NAME.md (the tables) and $OUT/scaling-NAME.tgz (the
# reports, traces and logs), NAME being the suite's file name (with -checks-off).
set -uo pipefail
build=${1:?usage: scripts/device/devices-scaling.sh BUILD SUITE [FLAGS...]}
suite=${2:?usage: scripts/device/devices-scaling.sh BUILD SUITE [FLAGS...]}
shift 2
root=$PWD
out=${OUT:-/tmp/out}
[[ -f $suite ]] || suite=suites/$suite.json
name=$(basename "$suite" .json)
if [[ ${CHECKS:-on} == off ]]; then
  name=$name-checks-off
  mkdir -p /tmp/scaling-suites
  python3 scripts/device/checks_off_suite.py "$suite" "/tmp/scaling-suites/$name.json"
  suite=/tmp/scaling-suites/$name.json
fi
work=/tmp/scaling-$name
mkdir -p "$out" "$work"
bins=${BINS:-.carry/bins.tar.xz}
if [[ ! -x $build/cli/flashscope && -f $bins ]]; then tar -C "$root" -xJf "$bins"; fi
if [[ "$root" != /work/main && ! -e /work/main ]]; then mkdir -p /work && ln -sfn "$root" /work/main; fi
fs="$root/$build/cli/flashscope"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
summary=$work/scaling-$name.md
{
  echo "# flashscope run $suite $* --devices: scaling ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
  echo
  nvidia-smi --query-gpu=index,name,uuid,pci.bus_id --format=csv
  echo
} >"$summary"
sets=("0")
((gpus >= 2)) && sets+=("0,1")
((gpus > 2)) && sets+=("all")
traces=()
for devices in "${sets[@]}"; do
  tag=gpus-${devices//,/-}
  rm -f "$work/$tag.trace.jsonl" "$work/$tag.json" "$work/$tag.json.journal.jsonl"
  start=$(date +%s%N)
  FLASHSCOPE_PHASE_TRACE="$work/$tag.trace.jsonl" "$fs" run "$suite" --devices "$devices" \
    --out "$work/$tag.json" --deadline_s "${DEADLINE_S:-170}" --color=false "$@" \
    >"$work/$tag.table.txt" 2>"$work/$tag.log"
  rc=$?
  wall=$(python3 -c "import sys; print('%.1f' % ((int(sys.argv[2]) - int(sys.argv[1])) / 1e9))" "$start" "$(date +%s%N)")
  echo "- \`flashscope run $suite --devices $devices $*\`: exit $rc, ${wall} s (command)" | tee -a "$summary"
  tail -n 2 "$work/$tag.log"
  traces+=("$tag=$work/$tag.trace.jsonl")
done
echo >>"$summary"
python3 scripts/device/phase_trace.py "${traces[@]}" | tee -a "$summary"
cp "$summary" "$out/"
tar -C "$work" -czf "$out/scaling-$name.tgz" .
