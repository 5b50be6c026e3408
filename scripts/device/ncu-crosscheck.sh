#!/usr/bin/env bash
# Issue 3's proof, on the lent GPU machine (ncu is there; nothing else is installed there):
#   crosscheck: flashscope-metric-probe --mode ours (our range profiler, the `full` set) against
#               ncu over --mode plain (one launch per workload in its NVTX range), the same
#               hardware metric names; a side-by-side table (within 2 pp or 2 % relative).
#   overhead:   `flashscope run smoke` plain, with --metrics basic, and under ncu collecting the
#               same basic metrics for the verify-phase launch of each case; ratio ours / ncu.
# Usage, in the repo copy on the device with .carry/bins.tar.xz (scripts/device/stage.sh packs
# cli/flashscope and profiler/tools/flashscope-metric-probe):
#   scripts/device/ncu-crosscheck.sh BUILD [crosscheck] [overhead]     (both by default)
# Environment:
#   OUT                  where results go (default /tmp/out)
#   OVERHEAD_KERNELS     --kernels filter of the smoke runs (default below; "all" = whole suite)
#   NCU_SMOKE_TIMEOUT_S  limit of the ncu smoke run (default 200); a stopped run bounds the ratio
#   NCU                  the ncu binary (default: ncu on PATH, else /usr/local/cuda/bin/ncu)
# Results in $OUT: crosscheck.{md,json}, crosscheck-ours.json, ncu/<workload>.csv,
# overhead.{md,json}, overhead-{plain,ours,ncu}.json, ncu-smoke.log, *-commands.txt.
set -uo pipefail
build=${1:?usage: scripts/device/ncu-crosscheck.sh BUILD [crosscheck] [overhead]}
shift
steps=("$@")
[[ ${#steps[@]} -eq 0 ]] && steps=(crosscheck overhead)
root=$PWD
out=${OUT:-/tmp/out}
mkdir -p "$out/ncu"
if [[ -f .carry/bins.tar.xz && ( ! -x $build/cli/flashscope ||
  ! -x $build/profiler/tools/flashscope-metric-probe ) ]]; then
  tar -C "$root" -xJf .carry/bins.tar.xz
fi
# The binaries carry absolute paths of the machine that built them (/work/main): mirror it.
# Never over a real /work/main (this script may also run where the build was made).
if [[ "$root" != /work/main && ( ! -e /work/main || -L /work/main ) ]]; then
  mkdir -p /work && ln -sfn "$root" /work/main
fi
fs=$root/$build/cli/flashscope
probe=$root/$build/profiler/tools/flashscope-metric-probe
for bin in "$fs" "$probe"; do
  if [[ ! -x $bin ]]; then
    echo "ncu-crosscheck: $bin missing: build it here and stage it (scripts/device/stage.sh $build)"
    exit 1
  fi
done
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
if [[ ! -x $ncu ]]; then
  echo "ncu-crosscheck: ncu not found on PATH nor in /usr/local/cuda/bin; set NCU=/path/to/ncu"
  exit 1
fi
"$ncu" --version | tee "$out/ncu-version.txt"
# Values in base units (bytes, ns, cycle/second) when this ncu can; the parser also scales.
units=()
"$ncu" --help 2>&1 | grep -q -- '--print-units' && units=(--print-units base)

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
# Runs a command after appending it, shell-quoted, to the commands file $cmds.
rec() {
  printf '%q ' "$@" >>"$cmds"
  printf '\n' >>"$cmds"
  "$@"
}

crosscheck() {
  cmds=$out/crosscheck-commands.txt
  : >"$cmds"
  local hw workloads w
  hw=$("$probe" --mode list-metrics --metrics full) || { echo "ncu-crosscheck: list-metrics failed"; return 1; }
  workloads=$("$probe" --mode list-workloads)
  echo "=== crosscheck: ours ($(date -u +%H:%M:%S))"
  rec "$probe" --mode ours --metrics full --repeat 3 --out "$out/crosscheck-ours.json"
  for w in $workloads; do
    echo "=== crosscheck: ncu $w ($(date -u +%H:%M:%S))"
    # Our CUPTI is not active here: plain mode never creates a profiler. The NVTX filter keeps
    # the set-up (input generation, reference) out; the range holds the one launch.
    rec timeout -k 10 120 "$ncu" --target-processes all --clock-control none --metrics "$hw" \
      --nvtx --nvtx-include "flashscope@$w/" --csv --page details "${units[@]}" \
      "$probe" --mode plain --workloads "$w" --out "$out/ncu/$w.plain.json" \
      >"$out/ncu/$w.csv" 2>&1
    grep -E '^==(PROF|ERROR|WARNING)==' "$out/ncu/$w.csv" | head -n 5
  done
  python3 scripts/device/ncu_crosscheck.py table --ours "$out/crosscheck-ours.json" \
    --ncu-dir "$out/ncu" --out-md "$out/crosscheck.md" --out-json "$out/crosscheck.json" \
    --commands "$cmds" --ncu-version-file "$out/ncu-version.txt"
}

overhead() {
  cmds=$out/overhead-commands.txt
  : >"$cmds"
  local filter=${OVERHEAD_KERNELS:-attn.a10_fa2,gemm.g04_mma,peer.*}
  local kargs=()
  [[ $filter != all ]] && kargs=(--kernels "$filter")
  [[ $filter == all ]] && filter=""
  local limit=${NCU_SMOKE_TIMEOUT_S:-200}
  local basic t0 t1 plain_s ours_s ncu_s ncu_rc timed_out=false
  basic=$("$probe" --mode list-metrics --metrics basic) || { echo "ncu-crosscheck: list-metrics failed"; return 1; }
  # Warm the page cache and the driver once so the first timed run pays no more than the others.
  "$fs" run smoke --kernels gemm.g01_naive --out /tmp/fs-warm.json --color=false >/dev/null 2>&1

  echo "=== overhead: plain ($(date -u +%H:%M:%S))"
  t0=$(now)
  rec "$fs" run smoke "${kargs[@]}" --out "$out/overhead-plain.json" --color=false \
    >"$out/overhead-plain.table.txt" 2>"$out/overhead-plain.progress.log"
  t1=$(now); plain_s=$(elapsed "$t0" "$t1"); echo "plain: $plain_s s"

  echo "=== overhead: ours, --metrics basic ($(date -u +%H:%M:%S))"
  t0=$(now)
  rec "$fs" run smoke "${kargs[@]}" --metrics basic --out "$out/overhead-ours.json" --color=false \
    >"$out/overhead-ours.table.txt" 2>"$out/overhead-ours.progress.log"
  t1=$(now); ours_s=$(elapsed "$t0" "$t1"); echo "ours: $ours_s s"

  echo "=== overhead: ncu, the same metrics on each case's verify launch ($(date -u +%H:%M:%S))"
  # "verify]": the push/pop range `verify` at the top of the stack in domain flashscope, i.e.
  # inside any "case <key>" range; that phase launches the kernel once (the poison is a memset,
  # which ncu does not profile, and verification copies to the host).
  t0=$(now)
  rec timeout -k 15 "$limit" "$ncu" --target-processes all --clock-control none \
    --metrics "$basic" --nvtx --nvtx-include "flashscope@verify]" --csv --page details \
    "${units[@]}" --log-file "$out/ncu-smoke.log" \
    "$fs" run smoke "${kargs[@]}" --out "$out/overhead-ncu.json" --color=false \
    >"$out/overhead-ncu.table.txt" 2>"$out/overhead-ncu.progress.log"
  ncu_rc=$?
  t1=$(now); ncu_s=$(elapsed "$t0" "$t1"); echo "ncu: $ncu_s s (exit $ncu_rc)"
  [[ $ncu_rc == 124 || $ncu_rc == 137 ]] && timed_out=true
  local log=$out/ncu-smoke.log
  if ! grep -q '==PROF== Profiling' "$log" 2>/dev/null; then
    # Older ncu versions print progress to the application's streams instead of the log file.
    cat "$out/overhead-ncu.table.txt" "$out/overhead-ncu.progress.log" >"$out/ncu-smoke.all.log"
    log=$out/ncu-smoke.all.log
  fi
  printf '{"suite": "smoke", "kernels_filter": "%s", "plain_s": %s, "ours_s": %s, ' \
    "$filter" "$plain_s" "$ours_s" >"$out/overhead-walls.json"
  printf '"ncu_s": %s, "ncu_rc": %s, "ncu_timed_out": %s, "ncu_timeout_s": %s}\n' \
    "$ncu_s" "$ncu_rc" "$timed_out" "$limit" >>"$out/overhead-walls.json"
  local ncu_report=()
  [[ -f $out/overhead-ncu.json ]] && ncu_report=(--ncu-report "$out/overhead-ncu.json")
  python3 scripts/device/ncu_crosscheck.py overhead --plain "$out/overhead-plain.json" \
    --ours "$out/overhead-ours.json" "${ncu_report[@]}" --ncu-log "$log" \
    --walls "$out/overhead-walls.json" --out-md "$out/overhead.md" --out-json "$out/overhead.json" \
    --commands "$cmds"
}

rc=0
for step in "${steps[@]}"; do
  case $step in
    crosscheck) crosscheck || rc=1 ;;
    overhead) overhead || rc=1 ;;
    *) echo "ncu-crosscheck: unknown step '$step' (crosscheck, overhead)"; rc=2 ;;
  esac
done
exit $rc
