#!/usr/bin/env bash
# Timing honesty of `flashscope run --devices` (docs/devices.md, "Timing honesty"), on the lent GPU
# machine. Usage, after scripts/device/stage.sh BUILD here (binaries in .carry/bins.tar.xz, or
# BINS=path/to/bins.tar.xz):
#   scripts/device/devices-interference.sh BUILD [STEP...]        (default steps: equivalence
#                                                                  interference)
# Steps:
#   equivalence   SUITE plain, with --devices 0, and plain again, all on GPU 0: the verdicts must
#                 agree, every case of the --devices 0 run must name device 0 and the UUID
#                 nvidia-smi gives GPU 0; medians are compared beside the plain-to-plain difference.
#   interference  SUITE on GPU 0 alone, then with every other GPU running SUITE in a loop, then
#                 alone again: median time and median SM clock per case, busy against alone, beside
#                 alone against alone again. Needs >= 2 GPUs: with one it says so and measures
#                 nothing more.
#   wall-all      LADDER with --devices all (>= 2 GPUs);  wall-one: LADDER with --devices 0.
#                 SHARD=K/N runs one shard (a one-GPU ladder does not fit one 10-minute call: run
#                 its shards in turn; their wall times add up). Compare them afterwards, anywhere:
#                 scripts/device/devices_interference.py wall --one ONE.json... --all ALL.json...
# Environment: SUITE (default suites/testing/interference.json), LADDER (default ladder),
# LADDER_ARGS (extra flags for the wall steps), WARM_S (seconds the other GPUs run before the busy
# run starts; default 20). While the steps run, nvidia-smi samples every GPU's SM clock, power,
# temperature and clock-event reasons every 250 ms into clocks.csv.
# Results: $OUT/devices-interference.md (the summary, also printed) and
# $OUT/devices-interference.tgz (every report, log and clocks.csv).
set -uo pipefail
build=${1:?usage: scripts/device/devices-interference.sh BUILD [STEP...]}
shift
steps=("$@")
((${#steps[@]})) || steps=(equivalence interference)
root=$PWD
out=${OUT:-/tmp/out}
work=/tmp/devices-interference
suite=${SUITE:-suites/testing/interference.json}
ladder=${LADDER:-ladder}
mkdir -p "$out" "$work"
bins=${BINS:-.carry/bins.tar.xz}
if [[ ! -x $build/cli/flashscope && -f $bins ]]; then tar -C "$root" -xJf "$bins"; fi
# The binaries carry absolute paths of the machine that built them (/work/main): mirror it.
if [[ "$root" != /work/main && ! -e /work/main ]]; then mkdir -p /work && ln -sfn "$root" /work/main; fi
fs="$root/$build/cli/flashscope"
summary=$work/devices-interference.md
rm -f "$summary" # one call's summary; the reports of earlier calls stay in $work
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
{
  echo "# flashscope --devices: timing honesty ($(date -u +%Y-%m-%dT%H:%M:%SZ), $(hostname))"
  echo
  echo '```'
  nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,clocks.max.sm,power.limit \
    --format=csv
  echo '```'
} >>"$summary"
nvidia-smi --query-gpu=index,uuid --format=csv,noheader >"$work/smi-uuids.txt"

# Clock, power and temperature of every GPU while the steps run.
reasons=clocks_event_reasons.active
nvidia-smi --query-gpu=$reasons --format=csv >/dev/null 2>&1 || reasons=clocks_throttle_reasons.active
nvidia-smi --query-gpu=timestamp,index,clocks.sm,clocks.mem,power.draw,temperature.gpu,$reasons \
  --format=csv -lms 250 >"$work/clocks.csv" 2>&1 &
smi_pid=$!

# flashscope run SUITE --out $work/NAME.json ARGS...; its exit code and wall time in the summary.
run() {
  local name=$1 what=$2
  shift 2
  local start=$SECONDS
  "$fs" run "$what" --out "$work/$name.json" --color=false "$@" >"$work/$name.table.txt" \
    2>"$work/$name.log"
  local rc=$?
  echo "- \`flashscope run $what $*\` -> $name.json: exit $rc, $((SECONDS - start)) s" >>"$summary"
  tail -n 3 "$work/$name.log"
}

analyze() {
  {
    echo
    python3 scripts/device/devices_interference.py "$@" 2>&1
    echo
  } >>"$summary"
}

for step in "${steps[@]}"; do
  echo "##### $step ($(date -u +%H:%M:%S))"
  echo -e "\n## step $step\n" >>"$summary"
  case $step in
    equivalence)
      run plain "$suite"
      run devices0 "$suite" --devices 0
      run plain2 "$suite"
      analyze equivalence --plain "$work/plain.json" --devices0 "$work/devices0.json" \
        --plain2 "$work/plain2.json" --smi-uuids "$work/smi-uuids.txt"
      "$fs" compare "$work/plain.json" "$work/devices0.json" --format markdown --color=false \
        >>"$summary" 2>&1
      ;;
    interference)
      if ((gpus < 2)); then
        echo "interference: needs >= 2 GPUs; this machine has $gpus, so only the --devices 0 vs" \
          "plain-run equivalence was measured" | tee -a "$summary"
        continue
      fi
      run alone "$suite" --devices 0
      rm -f "$work/stop"
      loads=()
      for ((i = 1; i < gpus; i++)); do
        # Its own session: stopping it takes its supervisor and workers together.
        setsid bash -c "while [[ ! -e '$work/stop' ]]; do '$fs' run '$suite' --devices $i \
          --out '$work/load-$i.json' --quiet --color=false >/dev/null 2>>'$work/load-$i.log'; \
          done" &
        loads+=($!)
      done
      sleep "${WARM_S:-20}"
      run busy "$suite" --devices 0
      touch "$work/stop"
      for pid in "${loads[@]}"; do kill -TERM -- "-$pid" 2>/dev/null; done
      wait "${loads[@]}" 2>/dev/null
      run alone2 "$suite" --devices 0
      analyze interference --alone "$work/alone.json" --busy "$work/busy.json" \
        --alone2 "$work/alone2.json"
      "$fs" compare "$work/alone.json" "$work/busy.json" --format markdown --color=false \
        >>"$summary" 2>&1
      ;;
    wall-all | wall-one)
      devices=all
      [[ $step == wall-one ]] && devices=0
      shard=()
      tag=$step
      if [[ -n ${SHARD:-} ]]; then shard=(--shard "$SHARD") tag=$step-${SHARD%/*}; fi
      # shellcheck disable=SC2086
      run "$tag" "$ladder" --devices $devices "${shard[@]}" ${LADDER_ARGS:-}
      ;;
    *) echo "unknown step $step (equivalence, interference, wall-all, wall-one)" | tee -a "$summary" ;;
  esac
done
kill "$smi_pid" 2>/dev/null
cat "$summary"
cp "$summary" "$out/"
tar -C "$work" -czf "$out/devices-interference.tgz" .
ls -la "$out"
