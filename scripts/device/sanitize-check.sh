#!/usr/bin/env bash
# GPU check of `flashscope run --sanitize` (issue 7), for the lent GPU machine: runs the faults
# suite's good kernel and two faulty ones under memcheck and checks what the report records:
#   test.oob_write   -> its sanitizer record ran, counts >= 1 error, of kind "Invalid __global__
#                       write", attributed to the OobWriteKernel
#   attn.a01_scalar  -> ran, 0 errors (a good kernel must come out clean)
#   test.half_output -> ran, 0 errors (wrong results, but no bad access: memcheck must not care)
# and that the run exits 1 (findings are failures). Usage, after scripts/device/stage.sh here:
#   scripts/device/sanitize-check.sh BUILD        (e.g. build-lead; writes into $OUT)
set -uo pipefail
build=${1:-build-lead}
source "$(dirname "${BASH_SOURCE[0]}")/staged_build.sh"
start_device_script "$build" /work/main
command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer || true

report=$out/sanitize-memcheck.json
start=$(date +%s)
"$fs" run suites/testing/faults.json --kernels 'attn.a01_scalar,test.oob_write,test.half_output' \
  --sanitize=memcheck --case_timeout_s 20 --out "$report" --color=false \
  >"$out/sanitize.table.txt" 2>"$out/sanitize.progress.log"
rc=$?
echo "flashscope run --sanitize=memcheck: exit $rc in $(($(date +%s) - start)) s"
grep -E "sanitize" "$out/sanitize.progress.log"
cp -r "$report.journal.jsonl.sanitize" "$out/sanitize-logs" 2>/dev/null

python3 - "$report" "$rc" <<'PY'
import json, sys
path, rc = sys.argv[1], int(sys.argv[2])
r = json.load(open(path))
problems = []
def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond: problems.append(what)
check(rc == 1, f"the run exits 1 (got {rc}): faulty cases and sanitizer findings are failures")
seen = set()
for c in r["cases"]:
    k, s = c["kernel_id"], c.get("sanitizer")
    key = f'{k} {c["problem_key"]}'
    seen.add(k)
    check(s is not None, f"{key}: has a sanitizer record")
    if s is None: continue
    print(f'      tool={s["tool"]} ran={s["ran"]} errors={s.get("errors")} kinds={s.get("kinds")} '
          f'rerun status={s.get("case_status")} note={s.get("note", "")[:200]!r}')
    for f in s.get("findings", [])[:2]:
        print("      finding:", f.get("kernel"), "|", f.get("message", "").replace("\n", " / ")[:300])
    check(s["ran"], f"{key}: compute-sanitizer ran")
    if k == "test.oob_write":
        kinds = [x["kind"] for x in s.get("kinds", [])]
        check(s.get("errors", 0) >= 1, f"{key}: memcheck counted >= 1 error")
        check(any("Invalid __global__ write" in x for x in kinds), f"{key}: kind Invalid __global__ write")
        check(any("OobWrite" in f.get("kernel", "") for f in s.get("findings", [])),
              f"{key}: a finding names OobWriteKernel")
    else:
        check(s.get("errors", -1) == 0, f"{key}: 0 errors under memcheck")
check(seen == {"attn.a01_scalar", "test.oob_write", "test.half_output"}, f"all three kernels ran: {sorted(seen)}")
print("sanitize-check:", "PASSED" if not problems else f"FAILED ({len(problems)} checks)")
sys.exit(1 if problems else 0)
PY
