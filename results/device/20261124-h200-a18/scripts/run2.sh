#!/usr/bin/env bash
# a18 device call 2: finish call 1's check run (--resume its journal), then compute-sanitizer
# memcheck and racecheck on a18's persistent path.
set -u
here=.scratch/a18
tar -C "$here" -xJf "$here/bins.tar.xz"
fs=$here/bin/flashscope
cp "$here/check.journal.jsonl" "$OUT/check.json.journal.jsonl"
"$fs" run "$here/a18_check.json" --resume "$OUT/check.json.journal.jsonl" --out "$OUT/check.json" \
  --deadline_s 40 --color=never 2>"$OUT/check.log" | tail -n 4
echo "== check rc=${PIPESTATUS[0]}"; rm -f "$OUT/check.json.journal.jsonl"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  timeout 60 "$san" --tool "$tool" --target-processes all --print-limit 20 \
    "$fs" run "$here/a18_sanitize.json" --out "$OUT/$tool.json" --color=never >"$OUT/$tool.log" 2>&1
  echo "== $tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed|failed" "$OUT/$tool.log" | tail -n 6
done
xz -9 "$OUT"/*.json
