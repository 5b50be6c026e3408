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
  python3 util-linux   # the hostile-input corpus (fuzz/hostile/: python3, flock) and the layering check
  zlib1g-dev           # gzip-compressed reports; PNG decoding in the HTML screenshot test
  liblzma-dev          # xz-compressed reports (results/runs/*.json.xz)
  libzstd-dev          # zstd-compressed reports
  libsqlite3-dev       # the history store's default database (docs/history.md)
  libpq-dev            # the history store on a PostgreSQL server
  postgresql           # a throw-away server for the history tests (scripts/pg-test-cluster.sh)
)
if [[ "${FLASHSCOPE_WITH_FUZZ:-0}" == 1 ]]; then
  packages+=(clang-14 libclang-rt-14-dev)  # libFuzzer, ASan, UBSan runtimes (scripts/fuzz.sh)
fi
if [[ "${FLASHSCOPE_WITH_HTML_CHECK:-0}" == 1 ]]; then
  packages+=(chromium)  # headless screenshot of the HTML report (test label `html`); ~100 MB
fi
if [[ "${FLASHSCOPE_WITH_VIEWER:-0}" == 1 ]]; then
  packages+=(libimgui-dev libglfw3-dev libgl-dev libstb-dev xvfb xauth)
fi

# cuobjdump and nvdisasm for the static audit (flashscope-audit, docs/audit.md): not in every CUDA
# install, so taken from PyPI's NVIDIA wheels (about 5 MB) into a tools folder the audit searches.
install_audit_tools() {
  local tools=${FLASHSCOPE_TOOLS_DIR:-$HOME/.cache/flashscope/tools}
  local version=13.2.86
  if [[ -x $tools/nvidia/cu13/bin/cuobjdump && -x $tools/nvidia/cu13/bin/nvdisasm ]]; then return; fi
  echo "install-deps: installing cuobjdump and nvdisasm $version from PyPI into $tools"
  if ! python3 -m pip install --quiet --no-deps --upgrade --target "$tools" \
      "nvidia-cuda-cuobjdump==$version" "nvidia-cuda-nvdisasm==$version" 2>&1 | grep -v "as the 'root' user"; then
    :
  fi
  if [[ ! -x $tools/nvidia/cu13/bin/cuobjdump ]]; then
    echo "install-deps: WARNING: could not install cuobjdump (no pip or no network?): the static audit will not run"
  fi
}
install_audit_tools

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
