#!/usr/bin/env bash
# Runs every GPU-labelled test binary of a build (the tests `scripts/test.sh` skips), directly
# rather than through ctest, so that it also works on a machine that received the build folder
# without the CMake tree it was configured in (the lent GPU machine).
set -uo pipefail
build=${1:-build-test}
passed=0
failed=0
for t in $(find "$build" -type f -name '*_gpu_test' -perm -u+x | sort); do
  echo "=== $t"
  if "$t" --gtest_brief=1; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED: $t"
  fi
done
echo "gpu tests: ${passed} passed, ${failed} failed (binaries)"
[[ $failed == 0 ]]
