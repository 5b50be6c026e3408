#!/usr/bin/env bash
# The test command (README's second): installs what is missing, builds everything that builds
# here (CUDA code is compiled when nvcc is present, for sm_90 only to keep CI fast), runs every CPU
# test, and says how many GPU-labelled tests it skipped (run those on a GPU with scripts/gpu-tests.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

# The viewer is part of the tests: its screenshot tests render under Xvfb (Mesa).
export FLASHSCOPE_WITH_VIEWER=${FLASHSCOPE_WITH_VIEWER:-1}
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

cd "$build"
gpu_tests=$(ctest -N -L gpu | sed -n 's/^Total Tests: //p')
set +e
ctest -LE gpu --output-on-failure -j "$jobs"
rc=$?
set -e
echo "test: skipped ${gpu_tests:-0} GPU-labelled tests (no GPU in this run; scripts/gpu-tests.sh runs them on a GPU)"
exit $rc
