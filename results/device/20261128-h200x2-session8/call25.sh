#!/usr/bin/env bash
# Device call 5 (session 8, 2 x H200, main aa384c5): suites/shapes.json whole on GPU 0 (the README's
# issue-27 table from today's code); the GPU tests of the libraries session 8 changed on GPU 1
# (scripts/gpu-tests.sh over build/gpu_tests_one.txt: 3 binaries: profiler_metric_scope, python_bridge,
# supervisor_trust; the carry holds no more), then the two-GPU devices and isolation tests.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call5; mkdir -p $O
[[ -x $B/cli/flashscope ]] || tar -C "$root" -xJf .carry/bins.tar.xz
mkdir -p /work; [[ -e /work/main ]] || ln -sfn "$root" /work/main
el() { echo $(( $(date +%s) - T0 )); }
fs=$root/$B/cli/flashscope
nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
(export CUDA_VISIBLE_DEVICES=0
 timeout 400 $fs run suites/shapes.json --out $O/shapes.json --deadline_s 390 --color=never > $O/shapes.table.txt 2> $O/shapes.log
 echo "shapes exit $? at $(el) s"; tail -n 2 $O/shapes.log
 python3 scripts/ladder_tables.py $O/shapes.json --best --summary-only --vs peer.cudnn_sdpa,peer.cublas_gemm > $O/shapes.summary.md 2>&1
 python3 scripts/ladder_tables.py $O/shapes.json --best --vs peer.cudnn_sdpa,peer.cublas_gemm > $O/shapes.best.md 2>&1
 cat $O/shapes.summary.md) > $O/gpu0.txt 2>&1 &
(export CUDA_VISIBLE_DEVICES=1
 GPU_TESTS_LIST=$B/gpu_tests_one.txt timeout 400 bash scripts/gpu-tests.sh $B > $O/gpu-tests-one.log 2>&1
 echo "gpu tests (one GPU) exit $? at $(el) s"; grep -E "^(FAILED|gpu tests)" $O/gpu-tests-one.log) > $O/gpu1.txt 2>&1 &
wait
GPU_TESTS_LIST=$B/gpu_tests_two.txt timeout 150 bash scripts/gpu-tests.sh $B > $O/gpu-tests-two.log 2>&1
echo "gpu tests (two GPUs) exit $? at $(el) s" >> $O/gpu1.txt; grep -E "^(FAILED|gpu tests)" $O/gpu-tests-two.log >> $O/gpu1.txt
cat $O/gpu0.txt $O/gpu1.txt
[[ -s $O/shapes.json ]] && xz -T0 $O/shapes.json
tar -C $OUT -cJf $OUT/call5.tar.xz call5
echo "end at $(el) s"
