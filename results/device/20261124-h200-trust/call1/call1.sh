#!/usr/bin/env bash
# trust helper, device call 1: facts for the trust checks (see /work/wt/trust docs/trust.md).
set -uo pipefail
T=/tmp/tb; mkdir -p $T; tar -C $T -xJf .scratch/trust/bin.tar.xz; cp .scratch/trust/cheats1.json $T/
W=/tmp/w; mkdir -p $W
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,clocks.sm,power.limit --format=csv | tee $W/smi.txt
echo "### trace sample test"
FLASHSCOPE_TRACE_TEST_PLUGIN=$T/libfs_trace_test_plugin.so timeout 60 $T/profiler_trace_sample_gpu_test 2>&1 | tee $W/trace_test.txt | tail -n 80
M=sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum,sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16.sum,sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32.sum,sm__ops_path_tensor_op_hgmma_src_fp16.sum,sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_fp16.sum,sm__ops_path_tensor_src_tf32_dst_fp32.sum,sm__ops_path_tensor_src_fp8.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_hfma_pred_on.sum,sm__inst_executed_pipe_tensor_op_hmma.sum,sm__inst_executed_pipe_tensor_op_gmma.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
P="$T/flashscope-metric-probe --mode ours --repeat 1 --metrics $M"
echo "### probe A"; timeout 80 $P --workloads calib.mma_loop,attn.a01_scalar,attn.a03_wmma,attn.a10_fa2,test.cheat_fp16_accum,test.cheat_when_poisoned,peer.cublas_unfused,peer.cudnn_sdpa --dtype fp16 --batch 2 --heads 8 --seq 2048 --head_dim 128 --out $W/probe_a.json 2>&1 | tail -n 12
echo "### probe B"; timeout 60 $P --workloads attn.a02_smem_tiled,attn.a10_fa2,peer.cublas_unfused,peer.cudnn_sdpa --dtype bf16 --causal --batch 2 --heads 8 --seq 2048 --head_dim 64 --out $W/probe_b.json 2>&1 | tail -n 6
echo "### probe C"; timeout 60 $P --workloads gemm.g01_naive,gemm.g03_register_tiled,gemm.g04_mma,gemm.g05_wgmma,peer.cublas_gemm --gemm_m 4096 --gemm_n 4096 --gemm_k 4096 --gemm_dtype fp16 --out $W/probe_c.json 2>&1 | tail -n 6
echo "### probe D"; timeout 40 $P --workloads gemm.g01_naive,gemm.g03_register_tiled,peer.cublas_gemm --gemm_m 2048 --gemm_n 2048 --gemm_k 2048 --gemm_dtype fp32 --out $W/probe_d.json 2>&1 | tail -n 6
echo "### cheats under today's runner"
timeout 90 $T/flashscope run $T/cheats1.json --kernels 'attn.a10_fa2,test.cheat_*' --out $W/cheats1.json 2>&1 | tail -n 45
python3 - <<'PY'
import json,glob
for f in sorted(glob.glob('/tmp/w/probe_*.json')):
    d=json.load(open(f)); print('==',f, d.get('attention_problem'), d.get('gemm_problem'), d['device'])
    for w in d['workloads']:
        v={k.replace('sm__ops_path_tensor_','').replace('sm__sass_thread_inst_executed_op_','').replace('.sum',''):x['median'] for k,x in w.get('values',{}).items()}
        print(w['name'], w.get('error',''), w.get('passes'), {k:('%.4g'%x) for k,x in v.items() if x})
PY
tar -C $W -czf $OUT/call1.tgz . ; ls -la $OUT
