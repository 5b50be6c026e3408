#!/usr/bin/env bash
# Device call 1 (session 8, 2 x H200): the trust checks' cost with phase traces split by the counter
# session's steps (GPU 0 alone on the host); then, side by side, CUPTI's cost per user range by
# counter set and the scalar rungs' hardware pipe counters against their SASS counters (GPU 0),
# and a20's racecheck change: the Hopper rungs' GPU test, racecheck and memcheck of shapes_tiny (GPU 1).
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT; mkdir -p $O
[[ -x $B/cli/flashscope ]] || tar -C "$root" -xJf .carry/bins.tar.xz
mkdir -p /work; [[ -e /work/main ]] || ln -sfn "$root" /work/main
el() { echo $(( $(date +%s) - T0 )); }
fs=$root/$B/cli/flashscope; probe=$root/$B/profiler/tools/flashscope-metric-probe
nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,clocks.max.sm --format=csv | tee $O/gpus.csv
git log -1 --format='%H %s' | tee $O/commit.txt; git status --short | head -20 >> $O/commit.txt
mkdir -p $O/cost
(export CUDA_VISIBLE_DEVICES=0; OUT=$O/cost DEADLINE_S=200 bash scripts/device/trust-cost.sh $B) > $O/trust-cost.log 2>&1
echo "trust-cost done at $(el) s"; cat $O/cost/trust-cost.md | head -12; head -40 $O/cost/phase-trace.md
(export CUDA_VISIBLE_DEVICES=0
 timeout 150 $probe --mode range-cost --workloads calib.copy --repeat 3 --out $O/range-cost.json > $O/range-cost.log 2>&1
 echo "range-cost exit $? at $(el) s"
 for w in attn.a01_scalar,attn.a02_smem_tiled gemm.g01_naive,gemm.g02_smem_tiled,gemm.g03_register_tiled; do
   for m in sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__sass_thread_inst_executed_op_hfma_pred_on.sum \
            sm__inst_executed_pipe_fma.sum sm__inst_executed_pipe_fmaheavy.sum sm__inst_executed_pipe_fmalite.sum sm__inst_executed_pipe_fp16.sum sm__inst_executed_pipe_alu.sum; do
     timeout 60 $probe --mode ours --workloads $w --metrics $m --repeat 1 --batch 1 --heads 4 --seq 512 --head_dim 64 --dtype fp16 \
       --gemm_m 512 --gemm_n 512 --gemm_k 512 --gemm_dtype fp16 --out $O/scalar-$(echo $w | cut -c1-4)-$(echo $m | cut -c1-40).json >> $O/scalar-probe.log 2>&1
     echo "probe $w $m exit $?"
   done
 done) > $O/gpu0.txt 2>&1 &
(export CUDA_VISIBLE_DEVICES=1
 timeout 240 $B/kernels/kernels_hopper_rungs_gpu_test > $O/hopper-rungs-gpu-test.log 2>&1
 echo "kernels_hopper_rungs_gpu_test exit $? at $(el) s"; tail -n 3 $O/hopper-rungs-gpu-test.log
 for tool in racecheck memcheck; do
   left=$(( 540 - $(el) )); (( left > 30 )) || { echo "$tool not started"; continue; }
   timeout $left $fs run suites/shapes_tiny.json --sanitize=$tool --out $O/$tool-shapes_tiny.json --color=never > $O/$tool.table.txt 2> $O/$tool.log
   echo "$tool exit $? at $(el) s"; grep -E "^\[sanitize|with errors|hazard" $O/$tool.log | head -20
 done) > $O/gpu1.txt 2>&1 &
wait
cat $O/gpu0.txt $O/gpu1.txt
for f in $O/*.json; do [[ -s $f ]] && xz -T0 $f; done
echo "end at $(el) s"
