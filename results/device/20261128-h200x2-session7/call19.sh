#!/usr/bin/env bash
# Device call 4 (session 7, 4 x H200 while lent): issue 28 on four GPUs - smoke on GPU 0 alone and
# on all four (phase traces), the whole ladder on all four; then, in what is left of the call,
# compute-sanitizer on issue 27's rungs (the sanitize steps of call18.sh) on GPUs 0 and 1.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=/tmp/o19; mkdir -p $O/scaling
[[ -x $B/cli/flashscope ]] || tar -C "$root" -xJf .carry/bins.tar.xz
mkdir -p /work; [[ -e /work/main ]] || ln -sfn "$root" /work/main
el() { echo $(( $(date +%s) - T0 )); }
fs=$root/$B/cli/flashscope
nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,clocks.max.sm --format=csv | tee $O/gpus.csv
nvidia-smi topo -m > $O/topo.txt 2>&1; nproc
runit() {  # TAG SUITE DEVICES LIMIT
  local s=$(date +%s%N)
  FLASHSCOPE_PHASE_TRACE=$O/scaling/$1.trace.jsonl timeout $4 $fs run $2 --devices $3 --out $O/scaling/$1.json \
    --deadline_s $(( $4 - 10 )) --color=never > $O/scaling/$1.table.txt 2> $O/scaling/$1.log
  echo "$1: flashscope run $2 --devices $3: exit $? wall $(( ($(date +%s%N) - s) / 1000000 )) ms (at $(el) s)"; tail -n 1 $O/scaling/$1.log
}
runit smoke-gpus-0 smoke 0 100
runit smoke-gpus-all smoke all 60
runit ladder-gpus-all ladder all 260
(cd $O/scaling && python3 $root/scripts/device/phase_trace.py one=smoke-gpus-0.trace.jsonl four=smoke-gpus-all.trace.jsonl) | tee $O/smoke-phase-trace.md | head -4
san() {  # TOOL SUITE LIMIT
  local name=$1-$(basename $2 .json)
  (( $3 > 20 )) || { echo "$name not started ($3 s left)"; return; }
  timeout $3 $fs run $2 --sanitize=$1 --out $O/$name.json --color=never > $O/$name.table.txt 2> $O/$name.log
  echo "$name exit $? at $(el) s"; grep -E "^\[sanitize|with errors" $O/$name.log | head -30
}
end=420
(export CUDA_VISIBLE_DEVICES=0
 san racecheck suites/shapes_tiny.json $(( end - $(el) ))) > $O/gpu0.txt 2>&1 &
(export CUDA_VISIBLE_DEVICES=1
 mkdir -p $O/check; OUT=$O/check timeout 100 bash scripts/device/sanitize-check.sh $B > $O/sanitize-check.log 2>&1; echo "sanitize-check exit $? at $(el) s"; tail -n 4 $O/sanitize-check.log
 san memcheck suites/shapes_tiny.json $(( end - $(el) ))) > $O/gpu1.txt 2>&1 &
(export CUDA_VISIBLE_DEVICES=2
 san memcheck suites/testing/gemm_hopper_sanitize.json $(( end - $(el) ))) > $O/gpu2.txt 2>&1 &
(export CUDA_VISIBLE_DEVICES=3
 san racecheck suites/testing/gemm_hopper_sanitize.json $(( end - $(el) ))) > $O/gpu3.txt 2>&1 &
wait
cat $O/gpu0.txt $O/gpu1.txt $O/gpu2.txt $O/gpu3.txt
echo "== done ($(el) s)"
mkdir -p $OUT; tar -C $O -czf $OUT/call19.tgz .
