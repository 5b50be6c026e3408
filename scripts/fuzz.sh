#!/usr/bin/env bash
# Fuzzes every parser of user-supplied files (issue 7) with libFuzzer: suites, reports, journals
# and gate policies (fuzz/*_fuzzer.cc). Builds them with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer in their own build folder (CPU only, no CUDA), then runs each target
# for FUZZ_SECONDS (default 20) starting from its committed corpus fuzz/corpus/<target>/ and the
# hostile-input corpus's files fuzz/hostile/files/<target>/ (docs/robustness.md).
# Fails on a crash, an uncaught exception, undefined behaviour, a leak, an input that takes more
# than FUZZ_TIMEOUT_S (default 10) or memory past FUZZ_RSS_MB (default 2048). The failing input is
# saved as <build>/artifacts/<target>-crash-* (re-run it: <build>/fuzz/fuzz_<target> FILE).
# New interesting inputs go to a scratch folder, never into the repository.
#   FUZZ_SECONDS=300 scripts/fuzz.sh suite     # one target, longer
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-20}
timeout_s=${FUZZ_TIMEOUT_S:-10}
rss_mb=${FUZZ_RSS_MB:-2048}
build=${FLASHSCOPE_FUZZ_BUILD_DIR:-build-fuzz}
targets=("$@")
if ((${#targets[@]} == 0)); then targets=(suite report journal gate); fi

FLASHSCOPE_WITH_FUZZ=1 scripts/install-deps.sh >/dev/null
cxx=$(command -v clang++-14 || command -v clang++ || true)

if [[ -z $cxx ]]; then
  echo "fuzz: clang not found; install it with FLASHSCOPE_WITH_FUZZ=1 scripts/install-deps.sh" >&2
  exit 2
fi

flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
flags+=" -fno-omit-frame-pointer -g -O1"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=None \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="$flags" -DFLASHSCOPE_CUDA=OFF \
  -DFLASHSCOPE_TESTS=OFF -DFLASHSCOPE_VIEWER=OFF -DFLASHSCOPE_FUZZ=ON >/dev/null
start=$(date +%s)
if ! cmake --build "$build" -j "${FLASHSCOPE_JOBS:-$(nproc)}" --target "${targets[@]/#/fuzz_}" \
  >"$build/build.log" 2>&1; then
  grep -E "error|FAILED" "$build/build.log" | head -n 20
  echo "fuzz: building the fuzz targets failed (log: $build/build.log)"
  exit 1
fi
echo "fuzz: built ${#targets[@]} targets in $(($(date +%s) - start)) s ($build, clang, ASan+UBSan)"

mkdir -p "$build/artifacts"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=()
total_runs=0
for t in "${targets[@]}"; do
  corpus=fuzz/corpus/$t
  # The hostile-input corpus's files of this kind (fuzz/hostile/files/<target>/) seed it too.
  hostile=fuzz/hostile/files/$t
  [[ -d $hostile ]] || hostile=
  scratch=$(mktemp -d)
  log=$build/artifacts/$t.log
  set +e
  # The scratch folder comes first: libFuzzer writes the new inputs it finds into it.
  "$build/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout="$timeout_s" -rss_limit_mb="$rss_mb" \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" \
    "$scratch" "$corpus" ${hostile:+"$hostile"} >"$log" 2>&1
  rc=$?
  set -e
  rm -rf "$scratch"
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  seeds=$(find "$corpus" $hostile -type f | wc -l)
  total_runs=$((total_runs + ${runs:-0}))
  if ((rc == 0)); then
    echo "fuzz: $t: ${runs:-0} inputs in ${seconds} s from $seeds seeds: no crash, hang or leak"
  else
    failed+=("$t")
    echo "fuzz: $t: FAILED (libFuzzer exit $rc); the input is in $build/artifacts/$t-*; log $log:"
    grep -E "ERROR: |SUMMARY: |runtime error|Test unit written|invariant broken" "$log" | head -n 12
  fi
done
if ((${#failed[@]} > 0)); then
  echo "fuzz: ${#failed[@]} of ${#targets[@]} targets failed: ${failed[*]}"
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, $total_runs inputs, no crash, hang or leak"
