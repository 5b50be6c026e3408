#!/usr/bin/env bash
# Packs what a GPU run needs from a build made here (the lent GPU machine cannot install
# Abseil; our binaries link it statically): flashscope and flashscope-worker (side by side, as
# the supervisor expects), the plugins the build made (lib/flashscope/plugins: the test plugin
# that suites/testing/*.json load; kernels/ab_fixtures: ab's quality fixture), every *_gpu_test binary and flashscope-metric-probe
# (scripts/device/ncu-crosscheck.sh), stripped and compressed, at their build-relative paths,
# into .carry/ (git-ignored) for `device run --carry`.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-lead}
mkdir -p .carry
stage=$(mktemp -d)
# The C test plugins (plugins/tests) serve the GPU tests of plugin crashes at launch.
# The ab fixture's builds (kernels/ab_fixtures) serve scripts/device/ab-quality.sh.
plugins=$(cd "$build" && find lib/flashscope/plugins plugins/test_plugins kernels/ab_fixtures -type f -name '*.so' 2>/dev/null)
for f in cli/flashscope cli/flashscope-worker $plugins $(cd "$build" && find . -type f \( -name '*_gpu_test' -o -name flashscope-metric-probe \) | sed 's|^\./||'); do
  mkdir -p "$stage/$build/$(dirname "$f")"
  # Plugins keep their dynamic symbol table (flashscope_plugin_v1): strip debug information only.
  case $f in
    *.so) strip --strip-debug -o "$stage/$build/$f" "$build/$f" ;;
    *) strip -o "$stage/$build/$f" "$build/$f" ;;
  esac
done
tar -C "$stage" -cJf .carry/bins.tar.xz "$build"
rm -rf "$stage"
ls -la .carry/bins.tar.xz
