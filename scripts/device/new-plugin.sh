#!/usr/bin/env bash
# On the lent GPU machine: the four projects `flashscope new-plugin` writes (CUDA and Python,
# gemm and attention), each run on its own suite with a report, to show that the kernels they
# start from are correct: every case passed (flashscope's FP32 reference, poisoned outputs, the
# trust checks). The CUDA kernel is compiled with nvcc straight from the project's source (the GPU
# machine has no installed flashscope package for the project's CMakeLists.txt; test-install.sh
# builds it that way in CI); the Python modules run with the machine's python3 and its torch.
#
# Usage: scripts/device/new-plugin.sh FLASHSCOPE OUT_DIR [ARCH]   (release.sh's step new-plugin)
# Exit codes: 0 every project's run passed; 1 a run failed or could not start.
set -uo pipefail
fs=$1 out=$2 arch=${3:-90}
root=$PWD
mkdir -p "$out"
status=0
for kind in cuda python; do
  for family in gemm attention; do
    name=np_${kind}_${family}
    project=$out/$name
    rm -rf "$project"
    "$fs" new-plugin "$name" "--$kind" --family "$family" --dir "$out" >/dev/null || {
      echo "new-plugin: $name: flashscope new-plugin failed"
      status=1
      continue
    }
    if [[ $kind == cuda ]]; then
      # What flashscope_add_plugin does: hidden symbols but the entry, the static CUDA runtime.
      mkdir -p "$project/build"
      echo '#define FLASHSCOPE_PLUGIN_VERSION "device-check"' >"$project/build/flashscope_plugin_version.h"
      if ! nvcc -std=c++17 -O3 -arch="sm_$arch" -shared -Xcompiler -fPIC,-fvisibility=hidden \
        -cudart static -I"$root/include" -I"$project/build" -o "$project/build/$name.so" \
        "$project/$name.cu" >"$project/build/nvcc.log" 2>&1; then
        echo "new-plugin: $name: nvcc failed:"
        tail -n 20 "$project/build/nvcc.log"
        status=1
        continue
      fi
    fi
    (cd "$project" && "$fs" run suite.json --out report.json --color=never --quiet) \
      >"$project/run.log" 2>&1
    rc=$?
    echo "new-plugin: $name: flashscope run suite.json exited $rc"
    tail -n 25 "$project/run.log"  # the summary and the case table
    ((rc == 0)) || status=1
  done
done
echo "new-plugin: $([[ $status == 0 ]] && echo "every project's cases passed" || echo "FAILED (above)")"
exit $status
