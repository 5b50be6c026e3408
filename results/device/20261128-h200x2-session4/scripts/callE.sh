#!/usr/bin/env bash
# Device call E (evening): `flashscope ab --devices all` A/A on the example plugin again, both
# samples of each pair now reading the slot the first drew (runner/case_runner_pair.cc), with the
# seeds of calls C and D (7, 11).
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=/tmp/oE; mkdir -p $O
[[ -x $B/cli/flashscope ]] || tar -C "$root" -xJf .carry/bins.tar.xz
mkdir -p /work; [[ -e /work/main ]] || ln -sfn "$root" /work/main
nvidia-smi --query-gpu=index,name,driver_version --format=csv > $O/gpus.csv; cat $O/gpus.csv
for seed in 7 11; do
  t=$(date +%s)
  timeout 100 $B/cli/flashscope ab examples/attention-plugin/example.json --base .carry/example/example_attention.so --new .carry/example/example_attention_again.so --devices all --kernels example.attn_v2 --out_dir $O/aa-seed$seed --json $O/aa-seed$seed/verdict.json --seed $seed --color=never > $O/aa-seed$seed.log 2>&1
  echo "ab A/A seed $seed exit $? in $(( $(date +%s) - t )) s"; grep -E "^[0-9]+ cases|AB |\[slowdown\]" $O/aa-seed$seed.log | head -12
done
tar -C $O -czf $OUT/callE.tgz .
