#!/usr/bin/env bash
# One device call, several steps, one bundle back: the device tool returns at most 8 files, so
# every step writes under its own folder and everything comes back as $OUT/bundle-TAG.tgz.
# Usage: scripts/device/batch.sh BUILD TAG STEP...
#   steps: session:<session.sh step>  sanitize  gate-quality  ab-quality  ncu
set -uo pipefail
build=$1 tag=$2
shift 2
real_out=${OUT:-/tmp/out}
work=/tmp/batch-$tag
mkdir -p "$work"
for step in "$@"; do
  echo "##### $step ($(date -u +%H:%M:%S))"
  case $step in
    session:*) OUT=$work/session bash scripts/device/session.sh "$build" "${step#session:}" ;;
    sanitize) OUT=$work/sanitize bash scripts/device/sanitize-check.sh "$build" 2>&1 | tail -n 25 ;;
    gate-quality) OUT=$work bash scripts/device/gate-quality.sh "$build" "${GQ_TRIALS:-4}" 2>&1 | tail -n 40 ;;
    ab-quality) OUT=$work/ab-quality bash scripts/device/ab-quality.sh "$build" 2>&1 | tail -n 40 ;;
    ncu) OUT=$work/ncu bash scripts/device/ncu-crosscheck.sh "$build" 2>&1 | tail -n 60 ;;
    *) echo "unknown step $step" ;;
  esac
done
tar -C "$work" -czf "$real_out/bundle-$tag.tgz" .
ls -la "$real_out"
# Call it as `timeout N scripts/device/batch.sh ...; scripts/device/bundle.sh TAG` when a step may
# overrun the call: the bundle is then made even if the batch was stopped.
