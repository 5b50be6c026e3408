#!/usr/bin/env bash
# Installs what flashscope needs to build and test, from Debian's packages.
# Idempotent: a package already installed is not touched; nothing is fetched when all are there.
# The CUDA toolkit (nvcc, CUPTI, NVTX3, cuBLAS, cuDNN) is expected at /usr/local/cuda and is
# never installed by this script; without it only the CPU parts build.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  libabsl-dev          # flags, status, strings
  nlohmann-json3-dev   # report and suite JSON
  libgtest-dev         # unit tests
  libbenchmark-dev     # flashscope-bench (Google Benchmark compatibility)
  clang-format
)
if [[ "${FLASHSCOPE_WITH_VIEWER:-0}" == 1 ]]; then
  packages+=(libimgui-dev libglfw3-dev libgl-dev libstb-dev xvfb xauth)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [[ $(id -u) != 0 ]]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
