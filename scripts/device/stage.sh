#!/usr/bin/env bash
# Packs what a GPU run needs from a build made here (the lent GPU machine cannot install
# Abseil; our binaries link it statically): flashscope and flashscope-worker (side by side, as
# the supervisor expects), the plugins the build made (lib/flashscope/plugins: the test plugin
# that suites/testing/*.json load, the demo plugin of suites/demo.json, the Python bridge with its package and kernel modules;
# kernels/ab_fixtures: ab's quality fixture), every *_gpu_test binary, flashscope-metric-probe
# (scripts/device/ncu-crosscheck.sh), flashscope-reference-bench (reference-bench.sh) and
# flashscope-verify-host-bench (verify-host-bench.sh), stripped and compressed, at their
# build-relative paths, into .carry/ (git-ignored) for `device run --carry`.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-lead}
mkdir -p .carry
stage=$(mktemp -d)
# The C test plugins (plugins/tests) serve the GPU tests of plugin crashes at launch.
# The Python bridge's package and the shipped kernel modules (python/) travel beside it.
# Every shared object the build made is one of ours (plugins, test plugins, the tracer's test
# plugin that profiler_trace_sample_gpu_test dlopens by its build path, the five builds of ab's
# quality fixture in kernels/ab_fixtures that scripts/device/ab-quality.sh compares): all travel.
# The scripts themselves (ab-quality.sh, ab_quality_analyze.py) are in the checkout.
plugins=$( (cd "$build" && find . -type f -name '*.so' -not -path '*/CMakeFiles/*' | sed 's|^\./||'
  find lib/flashscope/plugins -type f -name '*.py') 2>/dev/null)
for f in cli/flashscope cli/flashscope-worker gpu_tests.txt $plugins $(cd "$build" && find . -type f \( -name '*_gpu_test' -o -name flashscope-metric-probe -o -name flashscope-reference-bench -o -name flashscope-verify-host-bench \) | sed 's|^\./||'); do
  mkdir -p "$stage/$build/$(dirname "$f")"
  # Plugins keep their dynamic symbol table (flashscope_plugin_v1): strip debug information only.
  case $f in
    *.so) strip --strip-debug -o "$stage/$build/$f" "$build/$f" ;;
    *.py | *.txt) cp "$build/$f" "$stage/$build/$f" ;;
    *) strip -o "$stage/$build/$f" "$build/$f" ;;
  esac
done
# -9: the working tree and the binaries travel together under the device's 64 MiB limit.
tar -C "$stage" -cf - "$build" | xz -9 -T0 >.carry/bins.tar.xz
rm -rf "$stage"
ls -la .carry/bins.tar.xz
