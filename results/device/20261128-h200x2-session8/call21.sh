#!/usr/bin/env bash
# Device call 1b (session 8, same warm 2 x H200 lease): call 1's probes again, their files packed into
# one archive (call 1's were left out by the count of files a call returns).
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/probes; mkdir -p $O
[[ -x $B/cli/flashscope ]] || tar -C "$root" -xJf .carry/bins.tar.xz
probe=$root/$B/profiler/tools/flashscope-metric-probe
(export CUDA_VISIBLE_DEVICES=0
 timeout 150 $probe --mode range-cost --workloads calib.copy --repeat 3 --out $O/range-cost.json > $O/range-cost.log 2>&1
 echo "range-cost exit $? at $(( $(date +%s) - T0 )) s") > $O/gpu0.txt 2>&1 &
(export CUDA_VISIBLE_DEVICES=1
 for w in attn.a01_scalar,attn.a02_smem_tiled gemm.g01_naive,gemm.g02_smem_tiled,gemm.g03_register_tiled; do
   for m in sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__sass_thread_inst_executed_op_hfma_pred_on.sum \
            sm__inst_executed_pipe_fma.sum sm__inst_executed_pipe_fmaheavy.sum sm__inst_executed_pipe_fmalite.sum sm__inst_executed_pipe_fp16.sum sm__inst_executed_pipe_alu.sum; do
     t=$(echo $w | cut -c1-4)-$(echo $m | cut -d, -f1 | sed 's/sm__//; s/.sum//')
     timeout 60 $probe --mode ours --workloads $w --metrics $m --repeat 1 --batch 1 --heads 4 --seq 512 --head_dim 64 --dtype fp16 \
       --gemm_m 512 --gemm_n 512 --gemm_k 512 --gemm_dtype fp16 --out $O/scalar-$t.json > $O/scalar-$t.log 2>&1
     echo "probe $w $m exit $?"
   done
 done) > $O/gpu1.txt 2>&1 &
wait
cat $O/gpu0.txt $O/gpu1.txt; tail -n 60 $O/range-cost.log
tar -C $OUT -cJf $OUT/probes.tar.xz probes
