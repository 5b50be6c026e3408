#!/usr/bin/env bash
# Device call 3: racecheck on every Hopper rung and memcheck on a17 (the rung added after call 1's
# memcheck), each in one process that resumes a journal holding only the header and the measured
# environment of call 2 (so the worker skips the peak measurement, which takes minutes under the
# tools).
set -uo pipefail
dir=${1:-.scratch/attn}
out=${OUT:-/tmp/out}
work=/tmp/attn-san
mkdir -p "$work"
xz -dc "$dir/flashscope.xz" >"$work/flashscope" && chmod +x "$work/flashscope" || exit 1
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
cp "$dir/tiny_env.journal.jsonl" "$work/race.journal.jsonl"
cp "$dir/tiny_env.journal.jsonl" "$work/mem.journal.jsonl"
common=(--quiet --color=false --case_timeout_s 60)
timeout 100 "$san" --tool racecheck --target-processes all --print-limit 20 "$work/flashscope" run \
  "$dir/attn_hopper_tiny.json" --kernels 'attn.a1[2-9]*' "${common[@]}" \
  --resume "$work/race.journal.jsonl" --out "$work/racecheck.json" >"$work/racecheck.log" 2>&1
echo "racecheck exit $?"
timeout 40 "$san" --tool memcheck --target-processes all --print-limit 20 "$work/flashscope" run \
  "$dir/attn_hopper_tiny.json" --kernels 'attn.a17*' "${common[@]}" \
  --resume "$work/mem.journal.jsonl" --out "$work/memcheck.json" >"$work/memcheck.log" 2>&1
echo "memcheck exit $?"
for t in racecheck memcheck; do
  grep -E "SUMMARY|hazard|Invalid|passed|failed" "$work/$t.log" | head -30
done
tar -C "$work" --exclude=flashscope -czf "$out/attn-san.tgz" .
