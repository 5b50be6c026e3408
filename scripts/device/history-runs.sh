#!/usr/bin/env bash
# A real history on the GPU machine (docs/history.md, "On a GPU"): six runs of one suite, each a
# successive revision, ingested with `flashscope history add`, then `history changes` (with the
# explanations from the counters) and `history show`. Runs in a copy of the repo holding
# .carry/bins.tar.xz (scripts/device/stage.sh packs the ab quality fixture's plugins):
#
#   scripts/device/history-runs.sh BUILD
#
# The revisions are builds of ONE kernel id, test.ab_a10_1 (kernels/ab_fixtures, docs/
# gate-quality.md: a10 plus a calibrated spin of known relative length; the other four copies are
# left out with --kernels to keep the call short) on suites/testing/ab_quality.json's 10 shapes:
#   r1 p0 (0 %), r2 p0b (0 %, a second build), r3 p1 (+1 %), r4 p5 (+5 %), r5 p5, r6 p5
# Expected: one change point per series between r3 and r4 (about +4 %, the 1 % step of r3 being
# under the gate's 2 % minimum effect; where r3's 1 % shows it is between r2 and r4 or a 5 %
# step), slowdowns beyond the allowance: `history changes` exits 1. No change point elsewhere.
# Each run collects the basic hardware metrics (--metrics basic) so that every change carries
# its explanation. Estimated 6 x 20-40 s of device time (10 cases a run: verification, 30 or
# more samples, the metrics' replay passes; every run's wall time is printed).
# Results in $OUT: changes.json, changes.txt, history.md, history.html, history.csv and
# history-runs.tgz (the SQLite history, every report and log), packed on exit even when the
# call's time limit stops the script.
set -uo pipefail
build=${1:?usage: scripts/device/history-runs.sh BUILD}
source "$(dirname "${BASH_SOURCE[0]}")/staged_build.sh"
start_bundled_script history-runs "$build" changes.json changes.txt history.md history.html \
  history.csv
suite=suites/testing/ab_quality.json
db="$out/history.sqlite"
started=$SECONDS
revision=0
for build_name in p0 p0b p1 p5 p5 p5; do
  revision=$((revision + 1))
  name="r$revision-$build_name"
  t=$SECONDS
  "$fs" run "$suite" --plugin "$fixtures/libfs_ab_a10_$build_name.so" --kernels test.ab_a10_1 \
    --metrics basic \
    --out "$out/$name.json" --color=never --quiet >"$out/$name.table.txt" 2>"$out/$name.log"
  echo "run $name: exit $? in $((SECONDS - t)) s"
  "$fs" history add --db "$db" "$out/$name.json" --revision "r$revision" --branch device \
    --testbed lent-gpu 2>&1 | tee -a "$out/add.log"
done
echo "device steps took $((SECONDS - started)) s"
"$fs" history changes --db "$db" --json "$out/changes.json" >"$out/changes.txt" 2>&1
echo "history changes: exit $? (1 expected: slowdowns beyond the allowance)"
cat "$out/changes.txt"
"$fs" history show --db "$db" --format markdown --out "$out/history.md"
"$fs" history show --db "$db" --format html --out "$out/history.html"
"$fs" history show --db "$db" --format csv --out "$out/history.csv"
