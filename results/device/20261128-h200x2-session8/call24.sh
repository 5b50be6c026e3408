#!/usr/bin/env bash
# Device call 4 (session 8, 2 x H200): issue 27's a22 (a21 + polynomial exp2 on every D = 64 path):
# the D = 64 problems of suites/shapes.json with a20, a21, a22 and cuDNN (GPU 0); the Hopper rungs'
# GPU test with a22 among them, then racecheck and memcheck of shapes_tiny (GPU 1); then smoke on
# one GPU and on both with the new windows and settles (scripts/device/devices-scaling.sh).
# Everything packed into one archive.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call4; mkdir -p $O
[[ -x $B/cli/flashscope ]] || tar -C "$root" -xJf .carry/bins.tar.xz
mkdir -p /work; [[ -e /work/main ]] || ln -sfn "$root" /work/main
el() { echo $(( $(date +%s) - T0 )); }
fs=$root/$B/cli/flashscope
nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
python3 - <<'PY'
import json
d = json.load(open('suites/shapes.json'))
d['name'] = 'shapes_d64'
d['description'] = 'suites/shapes.json at head dim 64 only, with a20, a21, a22 and cuDNN (session 8, a22).'
d['kernels'] = ['attn.a20_dynamic_schedule', 'attn.a21_short_tiles', 'attn.a22_poly_exp64', 'peer.cudnn_sdpa']
d['problems'] = [p for p in d['problems'] if p['family'] == 'attention_fwd' and p['axes'].get('head_dim') == 64]
json.dump(d, open('/tmp/shapes_d64.json', 'w'), indent=1)
PY
(export CUDA_VISIBLE_DEVICES=0
 timeout 240 $fs run /tmp/shapes_d64.json --out $O/shapes-d64.json --deadline_s 230 --color=never > $O/shapes-d64.table.txt 2> $O/shapes-d64.log
 echo "shapes_d64 exit $? at $(el) s"; tail -n 2 $O/shapes-d64.log
 python3 scripts/ladder_tables.py $O/shapes-d64.json --best --vs peer.cudnn_sdpa > $O/shapes-d64.best.md 2>&1
 python3 scripts/ladder_tables.py $O/shapes-d64.json --vs peer.cudnn_sdpa > $O/shapes-d64.all.md 2>&1) > $O/gpu0.txt 2>&1 &
(export CUDA_VISIBLE_DEVICES=1
 timeout 230 $B/kernels/kernels_hopper_rungs_gpu_test > $O/hopper-rungs-gpu-test.log 2>&1
 echo "kernels_hopper_rungs_gpu_test exit $? at $(el) s"; tail -n 3 $O/hopper-rungs-gpu-test.log
 for tool in racecheck memcheck; do
   timeout 120 $fs run suites/shapes_tiny.json --sanitize=$tool --out $O/$tool-shapes_tiny.json --color=never > $O/$tool.table.txt 2> $O/$tool.log
   echo "$tool exit $? at $(el) s"; grep -E "^\[sanitize|with errors" $O/$tool.log | head -24
 done) > $O/gpu1.txt 2>&1 &
wait
cat $O/gpu0.txt $O/gpu1.txt
OUT=$O DEADLINE_S=90 timeout 250 bash scripts/device/devices-scaling.sh $B smoke > $O/scaling.log 2>&1
echo "scaling exit $? at $(el) s"; head -30 $O/scaling-smoke.md 2>/dev/null
for f in $O/*.json; do [[ -s $f ]] && xz -T0 $f; done
tar -C $OUT -cJf $OUT/call4.tar.xz call4
echo "end at $(el) s"
