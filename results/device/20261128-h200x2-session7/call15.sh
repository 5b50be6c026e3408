#!/usr/bin/env bash
# Device call 1 (session 7, 2 x H200): issue 28, the whole ladder with --devices all (phase trace),
# then the isolation and devices GPU tests while time is left.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=/tmp/o15; mkdir -p $O
[[ -x $B/cli/flashscope ]] || tar -C "$root" -xJf .carry/bins.tar.xz
mkdir -p /work; [[ -e /work/main ]] || ln -sfn "$root" /work/main
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,clocks.max.sm --format=csv | tee $O/gpus.csv
nvidia-smi topo -m > $O/topo.txt 2>&1; nproc; free -g | head -2
mkdir -p $O/ladder
start=$(date +%s%N)
FLASHSCOPE_PHASE_TRACE=$O/ladder/all.trace.jsonl timeout 550 $B/cli/flashscope run ladder --devices all \
  --out $O/ladder/ladder-all.json --deadline_s 530 --color=never > $O/ladder/all.table.txt 2> $O/ladder/all.log
echo "ladder all exit $? at $(el) s, wall $(( ($(date +%s%N) - start) / 1000000 )) ms"; tail -n 3 $O/ladder/all.log
left=$(( 540 - $(el) ))
if (( left > 130 )); then
  mkdir -p $O/interf; OUT=$O/interf WARM_S=5 timeout $((left - 50)) bash scripts/device/devices-interference.sh $B interference > $O/interf.log 2>&1
  echo "interference exit $? at $(el) s"; tail -n 25 $O/interf/devices-interference.md 2>/dev/null
fi
for t in supervisor/supervisor_isolation_gpu_test supervisor/supervisor_devices_gpu_test; do
  (( $(el) < 560 )) || break
  timeout $(( 580 - $(el) )) $B/$t --gtest_brief=1 > $O/$(basename $t).log 2>&1; echo "$t exit $? at $(el) s"
  grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $O/$(basename $t).log | head -5
done
echo "== done ($(el) s)"
mkdir -p $OUT; tar -C $O -czf $OUT/call15.tgz .
ls -la $OUT
