#!/usr/bin/env bash
# One step of `git bisect run` that finds the commit which made a kernel slower (or wrong), with
# `flashscope ab` (docs/gating.md, "flashscope ab" and "Bisecting a regression"): build the plugin
# at the commit git checked out, and compare it with a known-good build in one session.
#
#   cmake --build build && cp build/example_attention.so /tmp/good.so   # at a good commit
#   git bisect start BAD_COMMIT GOOD_COMMIT
#   git bisect run ./bisect-step.sh /tmp/good.so example.json [more ab flags...]
#   git bisect reset
#
# Exit codes, as git bisect reads them:
#   0    good: ab passed (no case slower beyond the allowance, nothing broke)
#   1    bad: ab found a regression
#   125  skip: the plugin does not build at this commit, or flashscope cannot load it
#   255  stop the bisection: ab itself could not run (bad input, no GPU, interrupted); a bisection
#        that went on would call this commit bad for the wrong reason
# Settings (environment):
#   BISECT_BUILD   the build command (default: configure and build ./build-bisect with CMake)
#   BISECT_PLUGIN  the plugin it makes (default: build-bisect/example_attention.so)
#   BISECT_OUT     where each step's reports, verdict and build log go (default:
#                  /tmp/flashscope-bisect/<commit>, <commit>.verdict.json, <commit>.build.log)
set -u
if [[ $# -lt 2 ]]; then
  echo "usage: $0 GOOD_PLUGIN SUITE [flashscope ab flags...]" >&2
  exit 255
fi
good=$1 suite=$2
shift 2
build=${BISECT_BUILD:-"cmake -S . -B build-bisect -G Ninja && cmake --build build-bisect"}
plugin=${BISECT_PLUGIN:-build-bisect/example_attention.so}
commit=$(git rev-parse --short HEAD)
out=${BISECT_OUT:-/tmp/flashscope-bisect}/$commit
mkdir -p "$(dirname "$out")"
if ! bash -c "$build" >"$out.build.log" 2>&1; then
  echo "bisect-step: $commit does not build ($out.build.log): skip"
  exit 125
fi
[[ $plugin == /* ]] || plugin=$PWD/$plugin  # a path, never a bare name to look up
rm -rf "$out"
flashscope ab "$suite" --base "$good" --new "$plugin" --out-dir "$out" --json "$out.verdict.json" "$@"
rc=$?
case $rc in
  0) echo "bisect-step: $commit good" ;;
  1) echo "bisect-step: $commit bad (verdict: $out.verdict.json)" ;;
  125) echo "bisect-step: $commit cannot be tested: skip" ;;
  *)
    echo "bisect-step: flashscope ab exited $rc at $commit: stopping the bisection" >&2
    exit 255
    ;;
esac
exit $rc
