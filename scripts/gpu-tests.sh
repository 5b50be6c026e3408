#!/usr/bin/env bash
# Runs every GPU-labelled test binary of a build (the tests `scripts/test.sh` skips), directly
# rather than through ctest, so that it also works on a machine that received the build folder
# without the CMake tree it was configured in (the lent GPU machine).
# On a GPU machine nothing may quietly not run: a binary the build listed (BUILD/gpu_tests.txt,
# written by CMake) that is missing, a binary that ran no test, and a test that skipped itself
# (GTEST_SKIP, e.g. "no GPU found") each count as a failure.
set -uo pipefail
# GPU_TESTS_LIST=FILE runs the binaries FILE names instead (a share of the list, e.g. one per GPU
# of a multi-GPU machine, each run with its own CUDA_VISIBLE_DEVICES).
build=${1:-build-test}
list=${GPU_TESTS_LIST:-"$build/gpu_tests.txt"}
if [[ ! -f $list ]]; then
  echo "gpu tests: $list not found: configure the build with this version of flashscope" >&2
  exit 2
fi
passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
while read -r t; do
  [[ -z $t ]] && continue
  echo "=== $build/$t"
  if [[ ! -x $build/$t ]]; then
    failed=$((failed + 1))
    echo "FAILED: $build/$t: missing (listed in $list but not built or not carried)"
    continue
  fi
  "$build/$t" --gtest_brief=1 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  skipped=$(grep -c '^\[  SKIPPED \]' "$log")
  ran=$(sed -n 's/^\[==========\] \([0-9]*\) tests\? from .* ran\..*/\1/p' "$log" | tail -n 1)
  if ((rc != 0)); then
    failed=$((failed + 1))
    echo "FAILED: $build/$t (exit $rc)"
  elif ((skipped > 0)); then
    failed=$((failed + 1))
    echo "FAILED: $build/$t: $skipped test(s) skipped; on a GPU machine a skip is a failure"
  elif [[ -z $ran || $ran == 0 ]]; then
    failed=$((failed + 1))
    echo "FAILED: $build/$t: ran no test"
  else
    passed=$((passed + 1))
  fi
done <"$list"
echo "gpu tests: ${passed} passed, ${failed} failed (binaries of $list)"
[[ $failed == 0 ]]
