#!/usr/bin/env bash
# The trust checks' cost (docs/trust.md, "Cost"): the smoke suite with every check on and with
# every check off, one after the other in one device call on one GPU, and the table of the two
# (scripts/device/trust_cost_table.py). Runs on the lent GPU machine in a copy of the repo with
# .carry/bins.tar.xz (scripts/device/stage.sh BUILD).
#
# Usage: scripts/device/trust-cost.sh BUILD [SUITE]     (SUITE defaults to suites/smoke.json)
# Writes $OUT/trust-cost.md (the table), $OUT/cost-on.json.xz, $OUT/cost-off.json.xz, each run's
# phase trace (cost-*.trace.jsonl.xz) with their table (phase-trace.md) and the progress logs.
# DEADLINE_S (default 560) bounds the whole call; each run gets half of what is left when it
# starts, so a run cut short says so in the table (its case count).
# What it must show: "on / off" of the suite's wall time <= 1.5, every honest case passed with
# the checks on, and the profiled/timed duration ratios of honest kernels (the threshold's
# evidence: kProfiledSlowdownMax in analysis/trust_checks.h).
set -uo pipefail
build=$1
suite=${2:-suites/smoke.json}
source "$(dirname "${BASH_SOURCE[0]}")/staged_build.sh"
start_device_script "$build" /work/main
work=$(mktemp -d)
start=$(date +%s)
left() { echo $((${DEADLINE_S:-560} - ($(date +%s) - start))); }

# The same suite with every switchable check off (suites/suite.cc, SwitchableTrustChecks; the
# isolation and integrity checks cannot be switched off and run in both): the run without them.
python3 scripts/device/checks_off_suite.py "$suite" "$work/suite-off.json"

# run NAME SUITE: the report NAME.json, its wall time in NAME.wall_s.
run() {
  local name=$1 file=$2 budget t0
  budget=$(($(left) / 2))
  [[ $name == on ]] && budget=$(left)
  t0=$(date +%s.%N)
  FLASHSCOPE_PHASE_TRACE="$work/cost-$name.trace.jsonl" \
    "$fs" run "$file" --out "$work/cost-$name.json" --deadline_s "$budget" --color=never \
    2>"$out/cost-$name.progress.log" | tail -n 4
  python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$t0" "$(date +%s.%N)" \
    >"$work/cost-$name.wall_s"
}
# Off first: the on run then gets the rest of the call, which it needs more.
run off "$work/suite-off.json"
run on "$suite"
python3 scripts/device/trust_cost_table.py "$work/cost-on.json" "$(cat "$work/cost-on.wall_s")" \
  "$work/cost-off.json" "$(cat "$work/cost-off.wall_s")" | tee "$out/trust-cost.md"
# Where each run's time went, segment by segment (runner/phase_trace.h): what the checks add.
python3 scripts/device/phase_trace.py "off=$work/cost-off.trace.jsonl" \
  "on=$work/cost-on.trace.jsonl" >"$out/phase-trace.md" 2>&1
for n in on off; do
  xz -T0 -c "$work/cost-$n.json" >"$out/cost-$n.json.xz"
  xz -T0 -c "$work/cost-$n.trace.jsonl" >"$out/cost-$n.trace.jsonl.xz"
done
