#!/usr/bin/env bash
# Device call 1 (session 13, one H200): the FP8 rung's first run. (1) kernels_fp8_gpu_test
# (a27 against the CPU reference from the same E4M3 inputs; integer scores where P is exact);
# (2) verify_fp8_gpu_test and the verify GPU tests whose code the E4M3 change touched; (3) a
# quick suite: a27 on E4M3 beside a26 and cuDNN on bf16, D 64/128/256, S 1024/4096, causal and
# not, every trust check on; (4) memcheck and racecheck of a27 on odd shapes; (5) kernels_gpu_test
# (every rung's small problems: RunAttention now sizes O by its output dtype).
set -uo pipefail
T0=$(date +%s); root=$PWD; B=build; O=$OUT/call1; mkdir -p $O
tar -C "$root" -xJf .carry/bins.tar.xz
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.max.sm --format=csv > $O/gpus.csv
timeout 200 $B/kernels/kernels_fp8_gpu_test > $O/kernels_fp8_gpu_test.log 2>&1
echo "kernels_fp8_gpu_test exit $? at $(( $(date +%s) - T0 )) s"; grep -E "^\[  (FAILED|PASSED|SKIPPED)|OK \]|Failure|bound" $O/kernels_fp8_gpu_test.log | head -20
for t in verify_fp8_gpu_test verify_gpu_reference_gpu_test verify_sampled_rows_gpu_test verify_workspace_gpu_test verify_input_generators_gpu_test; do
  timeout 90 $B/verify/$t > $O/$t.log 2>&1; echo "$t exit $? at $(( $(date +%s) - T0 )) s"; grep -E "^\[  (FAILED|PASSED|SKIPPED)" $O/$t.log | head -5
done
python3 - <<'PY'
import json
d = json.load(open('suites/fp8.json'))
q = dict(d); q['name'] = 'fp8_quick'
q['description'] = 'Session 13 call 1: a slice of suites/fp8.json (S 1024 and 4096, B*S = 16k tokens, D 64/128/256, causal and not) in E4M3 and bf16.'
q['problems'] = [{"family": "attention_fwd", "axes": {"dtype": dt, "head_dim": D, "heads": H, "tokens": 16384, "seq": [1024, 4096], "causal": [False, True]}}
                 for dt in ("e4m3", "bf16") for D, H in ((64, 32), (128, 16), (256, 8))]
q['kernels'] = ['attn.a27_fp8', 'attn.a26_trim_warpgroups', 'peer.cudnn_sdpa']
json.dump(q, open('/tmp/fp8_quick.json', 'w'), indent=1)
t = dict(d); t['name'] = 'a27_sanitize'; t['kernels'] = ['attn.a27_fp8']
t['description'] = 'Session 13 call 1: a27 on odd shapes for compute-sanitizer.'
t['problems'] = [{"family": "attention_fwd", "axes": {"dtype": "e4m3", "head_dim": D, "heads": 3, "batch": 1, "seq_q": [77, 300], "seq_k": [301], "causal": [False, True], "lse": True}} for D in (64, 128, 256)]
json.dump(t, open('/tmp/a27_sanitize.json', 'w'), indent=1)
PY
timeout 200 $B/cli/flashscope run /tmp/fp8_quick.json --out $O/fp8_quick.json --deadline_s 190 --color=never > $O/fp8_quick.table.txt 2> $O/fp8_quick.log
echo "fp8_quick exit $? at $(( $(date +%s) - T0 )) s"; tail -n 2 $O/fp8_quick.log
python3 - $O/fp8_quick.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d['cases']:
    print(f"{c['kernel_id']:28s} {c['problem_key']:55s} {c['status']:8s} {c.get('throughput', {}).get('tflops', 0):7.1f} {c.get('reason', '')[:200]}")
PY
for tool in memcheck racecheck; do
  timeout 80 $B/cli/flashscope run /tmp/a27_sanitize.json --sanitize=$tool --out $O/$tool-a27.json --color=never > $O/$tool-a27.txt 2>&1
  echo "$tool exit $? at $(( $(date +%s) - T0 )) s"; grep -E "\[sanitize" $O/$tool-a27.txt | head -6
done
timeout 120 $B/kernels/kernels_gpu_test --gtest_brief=1 > $O/kernels_gpu_test.log 2>&1; echo "kernels_gpu_test exit $? at $(( $(date +%s) - T0 )) s"; grep -E "^\[  (FAILED|PASSED|SKIPPED)" $O/kernels_gpu_test.log | head -5
xz -T0 $O/*.json
echo "done at $(( $(date +%s) - T0 )) s"
