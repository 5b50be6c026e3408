#!/usr/bin/env bash
# Device call D (evening): P1 two more A/A runs of `flashscope ab --devices all` on the example
# plugin (another seed; and with timed_outputs off: no fresh inputs, no buffer rotation) to tell
# whether call C's nine "regressions" on µs cases follow the case (the two loaded copies) or the
# rotation; P2 the trust checks' cost (smoke on/off, one GPU, alone).
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=/tmp/oD; mkdir -p $O
[[ -x $B/cli/flashscope ]] || tar -C "$root" -xJf .carry/bins.tar.xz
mkdir -p /work; [[ -e /work/main ]] || ln -sfn "$root" /work/main
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv > $O/gpus.csv; cat $O/gpus.csv
python3 -c "
import json; s=json.load(open('examples/attention-plugin/example.json')); s['name']=s.get('name','example')+'-no-rotation'; s['trust']={'off':['timed_outputs']}
json.dump(s, open('$O/example-no-rotation.json','w'), indent=1)"
ab() { # NAME SUITE SEED
  local t=$(date +%s)
  timeout 120 $B/cli/flashscope ab $2 --base .carry/example/example_attention.so --new .carry/example/example_attention_again.so --devices all --kernels example.attn_v2 --out_dir $O/$1 --json $O/$1/verdict.json --seed $3 --color=never > $O/$1.log 2>&1
  echo "ab $1 exit $? in $(( $(date +%s) - t )) s at $(el) s"; grep -E "^[0-9]+ cases|AB " $O/$1.log
}
echo "== P1 $(date -u +%T)"
ab aa-seed11 examples/attention-plugin/example.json 11
ab aa-no-rotation $O/example-no-rotation.json 7
echo "== P2 $(date -u +%T) ($(el) s)"
(export CUDA_VISIBLE_DEVICES=0; mkdir -p $O/cost; OUT=$O/cost DEADLINE_S=330 timeout 340 bash scripts/device/trust-cost.sh $B > $O/cost.log 2>&1; echo "cost exit $? at $(el) s")
echo "== done $(date -u +%T) ($(el) s)"
cat $O/cost/trust-cost.md 2>/dev/null | head -40
tar -C $O -czf $OUT/callD.tgz .
ls -la $OUT
