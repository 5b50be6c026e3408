#!/usr/bin/env bash
# One device call of the release runs: several steps, one bundle back ($OUT/release-TAG.tgz, since
# the device tool returns at most 8 files). Runs on the lent GPU machine in a copy of the repo with
# .carry/bins.tar.xz (scripts/device/stage.sh). Every report lands in the bundle's reports/ with
# the step's progress log beside it; commit what you keep under results/runs/ and name this
# command in the commit message.
#
# Usage: scripts/device/release.sh BUILD TAG STEP...
#   info          nvidia-smi: the GPU, its clocks, power and temperature now
#   facts         scripts/device/python_facts.py: the Python the bridge will embed
#   trust         suites/testing/trust.json (the cheats beside honest kernels)
#   trust-python  suites/testing/trust_python.json (the Python cheat beside torch's SDPA)
#   trust-test    runner_harness_checks_gpu_test (integrity and isolation by hand), then
#                 supervisor_trust_gpu_test on the two reports above (each cheat failed by its
#                 check, every honest case passed); logs kept as trust-test.log
#   gpu-tests     scripts/gpu-tests.sh (FLASHSCOPE_TRUST_REPORT and FLASHSCOPE_TRUST_PYTHON_REPORT
#                 reuse the trust steps' reports when they ran);
#                 keeps the demo suite's report that supervisor_demo_gpu_test writes
#   faults        suites/testing/faults.json
#   example       examples/attention-plugin/example.json with the example plugin
#   new-plugin    scripts/device/new-plugin.sh: the four `flashscope new-plugin` projects run on
#                 their suites (reports and logs under new-plugin/)
#   SUITE         any suite name or path: run it (FS_ARGS_<SUITE> adds flags, e.g. --kernels)
#   resume:SUITE  continue SUITE's run from .carry/SUITE.journal.jsonl (a previous call's)
# DEADLINE_S (default 540) is the call's own limit: the step in flight is given the time left
# (--deadline_s), its journal is kept in the bundle for a `resume:` step in the next call.
set -uo pipefail
build=$1 tag=$2
shift 2
# The staged build is unpacked only where it is not yet: unpacking over binaries another job on
# the machine is running fails theirs ("Text file busy", device call 2 of 2026-11-28).
source "$(dirname "${BASH_SOURCE[0]}")/staged_build.sh"
start_device_script "$build" /work/main
real_out=$out
work=/tmp/release-$tag
mkdir -p "$work/reports" "$real_out"
start=$(date +%s)
left() { echo $((${DEADLINE_S:-540} - ($(date +%s) - start))); }

# run_suite NAME SUITE [FLAGS...]: a report NAME.json, stopped in time and resumable.
run_suite() {
  local name=$1 suite=$2
  shift 2
  local budget
  budget=$(left)
  if ((budget < 20)); then
    echo "release: $name not started: ${budget} s left"
    return
  fi
  "$fs" run "$suite" --out "$work/reports/$name.json" --deadline_s "$budget" --color=never "$@" \
    2>"$work/reports/$name.progress.log" | tail -n 12
  tail -n 3 "$work/reports/$name.progress.log"
}

# The trust steps' reports, for the tests that judge them instead of running the suites again.
trust_reports() {
  unset FLASHSCOPE_TRUST_REPORT FLASHSCOPE_TRUST_PYTHON_REPORT
  [[ -f $work/reports/trust.json ]] && export FLASHSCOPE_TRUST_REPORT=$work/reports/trust.json
  [[ -f $work/reports/trust_python.json ]] &&
    export FLASHSCOPE_TRUST_PYTHON_REPORT=$work/reports/trust_python.json
  return 0
}

for step in "$@"; do
  echo "##### $step ($(date -u +%H:%M:%S), $(left) s left)"
  case $step in
    info)
      nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv | tee "$work/nvidia-smi.csv"
      ;;
    facts)
      python3 scripts/device/python_facts.py 2>&1 | tee "$work/python-facts.txt" | tail -n 15
      ;;
    trust) run_suite trust suites/testing/trust.json ;;
    trust-python) run_suite trust_python suites/testing/trust_python.json ;;
    trust-test)
      trust_reports
      "$build/runner/runner_harness_checks_gpu_test" --gtest_brief=1 >"$work/trust-test.log" 2>&1
      echo "trust-test: harness checks exit $?"
      "$build/supervisor/supervisor_trust_gpu_test" --gtest_brief=1 >>"$work/trust-test.log" 2>&1
      echo "trust-test: trust suites exit $?"
      grep -E "^\[  (FAILED|PASSED) |not judged|Failure|was not caught|Expected" \
        "$work/trust-test.log" | head -n 40
      ;;
    gpu-tests)
      trust_reports
      scripts/gpu-tests.sh "$build" >"$work/gpu-tests.log" 2>&1
      grep -E "^(===|FAILED|gpu tests)" "$work/gpu-tests.log"
      cp /tmp/flashscope_demo.json "$work/reports/demo.json" 2>/dev/null
      ;;
    faults) run_suite faults suites/testing/faults.json --case_timeout_s 10 ;;
    example) run_suite example examples/attention-plugin/example.json --plugin example_attention ;;
    new-plugin) scripts/device/new-plugin.sh "$fs" "$work/new-plugin" ;;
    resume:*)
      name=${step#resume:}
      journal="$work/reports/$name.json.journal.jsonl"
      cp ".carry/$name.journal.jsonl" "$journal"
      budget=$(left)
      "$fs" run "$name" --resume "$journal" --out "$work/reports/$name.json" --deadline_s "$budget" \
        --color=never 2>"$work/reports/$name.progress.log" | tail -n 12
      tail -n 3 "$work/reports/$name.progress.log"
      ;;
    *)
      var="FS_ARGS_${step//[^A-Za-z0-9]/_}"
      # shellcheck disable=SC2086
      run_suite "$(basename "$step" .json)" "$step" ${!var:-}
      ;;
  esac
done
tar -C "$work" -czf "$real_out/release-$tag.tgz" .
ls -la "$real_out"
echo "release: done in $(($(date +%s) - start)) s"
