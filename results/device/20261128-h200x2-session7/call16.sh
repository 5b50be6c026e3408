#!/usr/bin/env bash
# Device call 2 (session 7, the same 2 x H200 host): the ladder's one-GPU twin, --devices 0, part 1.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=/tmp/o16; mkdir -p $O/ladder
[[ -x $B/cli/flashscope ]] || tar -C "$root" -xJf .carry/bins.tar.xz
mkdir -p /work; [[ -e /work/main ]] || ln -sfn "$root" /work/main
nvidia-smi --query-gpu=index,name,uuid,pci.bus_id --format=csv | tee $O/gpus.csv
start=$(date +%s%N)
FLASHSCOPE_PHASE_TRACE=$O/ladder/one.trace.jsonl timeout 585 $B/cli/flashscope run ladder --devices 0 \
  --out $O/ladder/ladder-one.json --deadline_s 570 --color=never > $O/ladder/one.table.txt 2> $O/ladder/one.log
echo "ladder one exit $? wall $(( ($(date +%s%N) - start) / 1000000 )) ms"; tail -n 3 $O/ladder/one.log
mkdir -p $OUT; tar -C $O -czf $OUT/call16.tgz .
