#!/usr/bin/env bash
# Device call 4 (session 9, one H200): (1) the whole of suites/shapes.json with a24 (the README's
# table), every trust check on; (2) the Hopper rungs' GPU tests of the dynamic schedule (a24 now
# chosen by PreferPrefetchGrid), relaunch and short queries; (3) the smoke suite (every kernel, g08
# and a24 included, on odd lengths), every trust check on.
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call4; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
timeout 330 $B/cli/flashscope run suites/shapes.json --out $O/shapes.json --deadline_s 320 --color=never > $O/shapes.table.txt 2> $O/shapes.log
echo "shapes exit $? at $(( $(date +%s) - T0 )) s"; tail -n 2 $O/shapes.log
python3 scripts/ladder_tables.py $O/shapes.json --best --vs peer.cudnn_sdpa,peer.cublas_gemm > $O/shapes.best.md 2>&1; tail -n 12 $O/shapes.best.md
timeout 120 $B/kernels/kernels_hopper_rungs_gpu_test --gtest_filter='*EveryRung*:*DynamicSchedule*:*Relaunch*:*ShortQueries*' > $O/hopper-rungs-gpu-test.log 2>&1; echo "hopper rungs test exit $? at $(( $(date +%s) - T0 )) s"; tail -n 3 $O/hopper-rungs-gpu-test.log
timeout 150 $B/cli/flashscope run smoke --out $O/smoke.json --deadline_s 140 --color=never > $O/smoke.table.txt 2> $O/smoke.log
echo "smoke exit $? at $(( $(date +%s) - T0 )) s"; tail -n 1 $O/smoke.log
grep -E "g08|a24" $O/smoke.table.txt | awk '{print $1, $2, $3}' | sort | uniq -c | head -5
xz -T0 $O/*.json
tar -C $OUT -cJf $OUT/call4.tar.xz call4 && rm -rf $O
echo "done at $(( $(date +%s) - T0 )) s"
