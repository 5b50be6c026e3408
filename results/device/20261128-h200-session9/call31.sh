#!/usr/bin/env bash
# Device call 2 (session 9, one H200): g08 (clusters along N sharing A where A's rows are off the
# 32-byte grid). (1) the pitch study again, now with g06's plan sharing A on every pitch;
# (2) kernels_hopper_rungs_gpu_test (g08's new test and every older one); (3) the GEMM problems of
# suites/shapes.json with g06, g07, g08 and cuBLAS, every trust check on; (4) memcheck and
# racecheck on shapes_tiny's g08 problem.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call2; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
timeout 200 tools/gemm_sweep --pitch 25 > $O/pitch.txt 2>&1; echo "pitch exit $? at $(( $(date +%s) - T0 )) s"; tail -n 1 $O/pitch.txt
timeout 240 $B/kernels/kernels_hopper_rungs_gpu_test > $O/hopper-rungs-gpu-test.log 2>&1; echo "hopper rungs test exit $? at $(( $(date +%s) - T0 )) s"; tail -n 3 $O/hopper-rungs-gpu-test.log
timeout 200 $B/cli/flashscope run suites/shapes.json --kernels 'gemm.*,peer.cublas_gemm' --out $O/shapes-gemm.json --deadline_s 180 --color=never > $O/shapes-gemm.table.txt 2> $O/shapes-gemm.log
echo "shapes gemm exit $? at $(( $(date +%s) - T0 )) s"; tail -n 1 $O/shapes-gemm.log
python3 scripts/ladder_tables.py $O/shapes-gemm.json --best --vs peer.cublas_gemm > $O/shapes-gemm.best.md 2>&1; head -20 $O/shapes-gemm.best.md
for tool in memcheck racecheck; do
  timeout 150 $B/cli/flashscope run suites/shapes_tiny.json --kernels 'gemm.g08*' --sanitize=$tool --out $O/$tool-g08.json --color=never > $O/$tool-g08.txt 2>&1
  echo "$tool exit $? at $(( $(date +%s) - T0 )) s"; tail -n 2 $O/$tool-g08.txt
done
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call2.tar.xz call2 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
