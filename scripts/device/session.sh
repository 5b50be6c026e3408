#!/usr/bin/env bash
# Runs on the lent GPU machine, in a copy of the repo with .carry/bins.tar.xz (scripts/device/stage.sh).
# Usage: scripts/device/session.sh BUILD STEP...   steps: info gpu-tests smoke ladder python_peers python-facts faults
# Logs and reports go to $OUT (and results/runs/ in the copy).
set -uo pipefail
build=$1
shift
root=$PWD
out=${OUT:-/tmp/out}
mkdir -p "$out" results/runs
tar -C "$root" -xJf .carry/bins.tar.xz
# The binaries carry absolute paths of the machine that built them (/work/main): mirror it.
if [[ "$root" != /work/main ]]; then mkdir -p /work && ln -sfn "$root" /work/main; fi
fs="$root/$build/cli/flashscope"
for step in "$@"; do
  echo "=== step $step ($(date -u +%H:%M:%S))"
  case $step in
    info)
      nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
      ;;
    gpu-tests)
      scripts/gpu-tests.sh "$build" 2>&1 | tee "$out/gpu-tests.log" | grep -E "^(===|FAILED|gpu tests|\[  FAILED|.*Failure)" ;;
    smoke | ladder | python_peers)
      "$fs" run "$step" --out "results/runs/$(date -u +%Y%m%d-%H%M%S)-$step.json" --color=false \
        ${FS_ARGS:-} 2>"$out/$step.progress.log" | tee "$out/$step.table.txt" | tail -n 40
      cp results/runs/*-"$step".json "$out/" 2>/dev/null
      tail -n 5 "$out/$step.progress.log"
      ;;
    resumable-*)
      # A long suite across several calls: stop before the call's limit (--deadline_s), keep the
      # journal in /tmp (and in $OUT, carried back as .carry/NAME.journal.jsonl when the machine
      # was given back between calls), and resume from it next time.
      name=${step#resumable-}
      dir=/tmp/fs-$name
      mkdir -p "$dir"
      journal="$dir/run.json.journal.jsonl"
      if [[ ! -f $journal && -f .carry/$name.journal.jsonl ]]; then cp ".carry/$name.journal.jsonl" "$journal"; fi
      resume=()
      if [[ -f $journal ]]; then resume=(--resume "$journal"); fi
      "$fs" run "$name" --out "$dir/run.json" "${resume[@]}" --deadline_s "${DEADLINE_S:-480}" \
        --color=false ${FS_ARGS:-} 2>"$out/$name.progress.log" | tee "$out/$name.table.txt" | tail -n 30
      tail -n 3 "$out/$name.progress.log"
      [[ -f $journal ]] && cp "$journal" "$out/$name.journal.jsonl"
      [[ -f $dir/run.json ]] && cp "$dir/run.json" "$out/$name.json"
      ;;
    python-facts)
      PYTHONUNBUFFERED=1 python3 scripts/device/python_facts.py 2>&1 | tee "$out/python-facts.txt" ;;
    faults)
      "$fs" run suites/testing/faults.json --out "$out/faults.json" --case_timeout_s 10 --color=false \
        2>&1 | tail -n 30
      ;;
    *) echo "unknown step $step" ;;
  esac
done
