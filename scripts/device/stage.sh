#!/usr/bin/env bash
# Packs what a GPU run needs from a build made here (the lent GPU machine cannot install
# Abseil; our binaries link it statically): flashscope, every *_gpu_test binary and
# flashscope-metric-probe (scripts/device/ncu-crosscheck.sh), stripped and
# compressed, at their build-relative paths, into .carry/ (git-ignored) for `device run --carry`.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-lead}
mkdir -p .carry
stage=$(mktemp -d)
for f in cli/flashscope $(cd "$build" && find . -type f \( -name '*_gpu_test' -o -name flashscope-metric-probe \) | sed 's|^\./||'); do
  mkdir -p "$stage/$build/$(dirname "$f")"
  strip -o "$stage/$build/$f" "$build/$f"
done
tar -C "$stage" -cJf .carry/bins.tar.xz "$build"
rm -rf "$stage"
ls -la .carry/bins.tar.xz
