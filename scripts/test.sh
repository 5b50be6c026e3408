#!/usr/bin/env bash
# The test command (README's second): installs what is missing, builds everything that builds
# here (CUDA code is compiled when nvcc is present, for sm_90 only to keep CI fast), runs every CPU
# test, and says how many GPU-labelled tests it skipped (run those on a GPU with scripts/gpu-tests.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

# The viewer is part of the tests: its screenshot tests render under Xvfb (Mesa).
export FLASHSCOPE_WITH_VIEWER=${FLASHSCOPE_WITH_VIEWER:-1}
# The HTML report is checked in headless Chromium (test label `html`; Debian chromium, ~100 MB).
export FLASHSCOPE_WITH_HTML_CHECK=${FLASHSCOPE_WITH_HTML_CHECK:-1}
scripts/install-deps.sh

build=${FLASHSCOPE_BUILD_DIR:-build-test}
arch=${FLASHSCOPE_CUDA_ARCHS:-90}
jobs=${FLASHSCOPE_JOBS:-$(nproc)}
viewer=OFF
[[ $FLASHSCOPE_WITH_VIEWER == 1 ]] && viewer=ON
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch" \
  -DFLASHSCOPE_VIEWER=$viewer \
  ${FLASHSCOPE_CMAKE_ARGS:-} >/dev/null
echo "test: building in $build (CUDA architectures: $arch, $jobs jobs)"
cmake --build "$build" -j "$jobs"

root=$PWD  # the repository, for the gate and install steps below
# The history store's PostgreSQL tests (docs/history.md) need a real server: a throw-away cluster
# on a unix socket, stopped on exit. Without it they fail (CI=true), never skip.
if pg_env=$("$root/scripts/pg-test-cluster.sh" start); then
  eval "$pg_env"
  trap '"$root/scripts/pg-test-cluster.sh" stop "$FLASHSCOPE_TEST_PG_DIR"' EXIT
  echo "test: PostgreSQL test cluster at $FLASHSCOPE_TEST_PG_URL"
else
  echo "test: the PostgreSQL test cluster did not start (above): the history's PostgreSQL tests will fail"
fi
cd "$build"
gpu_tests=$(ctest -N -L gpu | sed -n 's/^Total Tests: //p')
set +e
ctest -LE gpu --output-on-failure -j "$jobs"
rc=$?
set -e
# The static SASS audit (docs/audit.md): no spills, tensor instructions in tensor-core rungs.
# Gated: a violation fails the test command. It needs the CUDA build and cuobjdump + nvdisasm
# (installed from PyPI by scripts/install-deps.sh); without them it says so and is not counted.
if [[ -x audit/flashscope-audit ]]; then
  set +e
  audit/flashscope-audit --input kernels/libfs_kernels.a --out audit.json >audit.log 2>&1
  audit_rc=$?
  set -e
  grep -E "^(VIOLATION|audit)" audit.log || tail -n 5 audit.log
  if ((audit_rc == 1)); then rc=1; fi
  if ((audit_rc == 2)); then echo "test: static audit not run (see $build/audit.log)"; fi
else
  echo "test: static audit not run: flashscope-audit is built only with CUDA (nvcc)"
fi
# The performance gate (docs/gating.md): the latest committed GPU run of each suite against its
# committed baseline (results/baselines/<gpu>/<label>.json pairs with results/runs/*-<label>.json
# or .json.xz).
# CI has no GPU, so it gates committed runs; on a GPU runner the same command gates a fresh run.
gate_failed=0
gate_count=0
for baseline in "$root"/results/baselines/*/*.json; do
  [[ -e $baseline ]] || continue
  label=$(basename "$baseline" .json)
  # The runs may be kept xz-compressed (flashscope reads .json.xz as it is); a label with no run
  # at all must reach the message below, not stop the script through ls's exit status.
  latest=$( (ls "$root"/results/runs/*-"$label".json "$root"/results/runs/*-"$label".json.xz     2>/dev/null || true) | sort | tail -n 1)
  gate_count=$((gate_count + 1))
  if [[ -z $latest ]]; then
    echo "test: gate: no committed run results/runs/*-$label.json for baseline $baseline"
    gate_failed=$((gate_failed + 1))
    continue
  fi
  set +e
  cli/flashscope gate "$baseline" "$latest" --policy "$root/results/baselines/policy.json" \
    --json "gate-$label.json" --color=false
  gate_rc=$?
  set -e
  if ((gate_rc != 0)); then gate_failed=$((gate_failed + 1)); fi
done
echo "test: gate: $gate_count baselines gated, $gate_failed failed (verdicts in $build/gate-*.json)"
if ((gate_failed > 0 && rc == 0)); then rc=1; fi
# The package as a user gets it (docs/plugins.md): installed into a temporary prefix, the examples
# built against it alone, the example plugin listed and its suite planned by the installed command.
set +e
"$root/scripts/test-install.sh" "$PWD"
install_rc=$?
set -e
if ((install_rc != 0)); then rc=1; fi
# The parsers under libFuzzer (clang, ASan+UBSan, own build folder; FLASHSCOPE_FUZZ=0 skips it).
fuzz_summary="test: fuzz: skipped (FLASHSCOPE_FUZZ=0)"
if [[ "${FLASHSCOPE_FUZZ:-1}" != 0 ]]; then
  set +e
  (cd "$OLDPWD" && FLASHSCOPE_FUZZ_BUILD_DIR=${FLASHSCOPE_FUZZ_BUILD_DIR:-build-fuzz} scripts/fuzz.sh)
  fuzz_rc=$?
  set -e
  fuzz_summary="test: fuzz: $( ((fuzz_rc == 0)) && echo "no crash, hang or leak" || echo "FAILED (see above)")"
  if ((fuzz_rc != 0 && rc == 0)); then rc=1; fi
fi
echo "$fuzz_summary"
echo "test: skipped ${gpu_tests:-0} GPU-labelled tests (no GPU in this run; scripts/gpu-tests.sh runs them on a GPU)"
exit $rc
