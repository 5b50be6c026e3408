#!/usr/bin/env bash
# Device call 3 (session 7, the same 2 x H200 host): the ladder's one-GPU twin, part 2 (--resume).
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=/tmp/o17; mkdir -p $O/ladder
[[ -x $B/cli/flashscope ]] || tar -C "$root" -xJf .carry/bins.tar.xz
mkdir -p /work; [[ -e /work/main ]] || ln -sfn "$root" /work/main
nvidia-smi --query-gpu=index,name,uuid,pci.bus_id --format=csv | tee $O/gpus.csv
j=/tmp/o16/ladder/ladder-one.json.journal.jsonl
[[ -f $j ]] && echo "journal from the warm machine" || { xz -dk .carry/ladder-one.journal.jsonl.xz; j=.carry/ladder-one.journal.jsonl; echo "journal carried"; }
cp $j $O/ladder/ladder-one.json.journal.jsonl
start=$(date +%s%N)
FLASHSCOPE_PHASE_TRACE=$O/ladder/one2.trace.jsonl timeout 585 $B/cli/flashscope run ladder --devices 0 \
  --resume $O/ladder/ladder-one.json.journal.jsonl --out $O/ladder/ladder-one.json --deadline_s 400 --color=never > $O/ladder/one2.table.txt 2> $O/ladder/one2.log
echo "ladder one (resumed) exit $? wall $(( ($(date +%s%N) - start) / 1000000 )) ms"; tail -n 3 $O/ladder/one2.log
mkdir -p $OUT; tar -C $O -czf $OUT/call17.tgz .
