#!/usr/bin/env bash
# Device call 1 (session 9, one H200): (1) the GEMM pitch study: g06's registered plan and cuBLAS
# at 3000/4000/5000/6000 cubed with A's and B's rows as packed, padded to 32 B and to 128 B
# (kernels/perf/gemm_sweep.cu --pitch, built here with nvcc); (2) ncu's counters and kernel names of
# the same launches at 5000^3 bf16; (3) suites/short_seq_d128.json: the Hopper schedules at head
# dim 128 from S = 256 to 2048, every trust check on.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call1; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
timeout 200 tools/gemm_sweep --pitch 25 > $O/pitch.txt 2>&1; echo "pitch exit $? at $(( $(date +%s) - T0 )) s"
tail -n 3 $O/pitch.txt
M=gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_elapsed.avg,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sectors_op_read.sum,lts__t_requests_op_read.sum,lts__t_sectors_op_write.sum,dram__bytes_read.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,launch__grid_size,launch__block_size
timeout 200 ncu --metrics $M --csv tools/gemm_sweep --pitch-once > $O/ncu-pitch.csv 2> $O/ncu-pitch.log; echo "ncu exit $? at $(( $(date +%s) - T0 )) s"
tail -n 3 $O/ncu-pitch.log
timeout 200 $B/cli/flashscope run suites/short_seq_d128.json --out $O/short-seq-d128.json --deadline_s 180 --color=never > $O/short-seq-d128.table.txt 2> $O/short-seq-d128.log
echo "short_seq exit $? at $(( $(date +%s) - T0 )) s"; tail -n 2 $O/short-seq-d128.log
xz -T0 $O/short-seq-d128.json
tar -C $OUT -cJf $OUT/call1.tar.xz call1 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
