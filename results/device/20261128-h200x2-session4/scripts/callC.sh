#!/usr/bin/env bash
# Device call C (evening): P1 the ladder's scaling on shard 1/4 (one GPU, then both; each alone on
# the machine); P2 `flashscope ab --devices all` on the example plugin (an A/A test: the same
# plugin built once, loaded from two paths).
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=/tmp/oC; mkdir -p $O
[[ -x $B/cli/flashscope ]] || tar -C "$root" -xJf .carry/bins.tar.xz
mkdir -p /work; [[ -e /work/main ]] || ln -sfn "$root" /work/main
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv > $O/gpus.csv; cat $O/gpus.csv
echo "== P1 $(date -u +%T)"
mkdir -p $O/scaling; OUT=$O/scaling DEADLINE_S=240 timeout 440 bash scripts/device/devices-scaling.sh $B ladder --shard 1/4 > $O/scaling.log 2>&1; echo "scaling exit $? at $(el) s"
echo "== P2 $(date -u +%T) ($(el) s)"
t=$(date +%s)
timeout $((580 - $(el))) $B/cli/flashscope ab examples/attention-plugin/example.json --base .carry/example/example_attention.so --new .carry/example/example_attention_again.so --devices all --kernels example.attn_v2 --out_dir $O/ab --json $O/ab/verdict.json --seed 7 --color=never > $O/ab.log 2>&1
echo "ab --devices all exit $? in $(( $(date +%s) - t )) s at $(el) s"
echo "== P3 $(date -u +%T) ($(el) s)"
timeout $((590 - $(el))) $B/supervisor/supervisor_demo_gpu_test --gtest_brief=1 > $O/demo-test.log 2>&1; echo "demo gpu test exit $? at $(el) s"
echo "== done $(date -u +%T) ($(el) s)"
cat $O/scaling/scaling-ladder.md 2>/dev/null | head -50
tail -n 15 $O/ab.log; tail -n 4 $O/demo-test.log
tar -C $O -czf $OUT/callC.tgz .
ls -la $OUT
