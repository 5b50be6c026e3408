#!/usr/bin/env python3
"""Compact summary of scripts/device/kernels-check.sh's outputs (a folder of step logs, exit codes
and flashscope reports): per step its exit code and case verdicts, every failed case with its
reason, the sanitizer findings, and the quick timing's TFLOPS with each kernel's ratio to the peer
of its family (cuDNN for attention, cuBLAS for GEMM)."""
import json
import os
import re
import sys
from collections import Counter

PEERS = {"attention_fwd": "peer.cudnn_sdpa", "gemm": "peer.cublas_gemm"}


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def exit_code(folder, step):
    try:
        with open(os.path.join(folder, step + ".rc")) as f:
            m = re.search(r"exit (-?\d+)", f.read())
            return int(m.group(1)) if m else None
    except OSError:
        return None


def verdicts(folder, step):
    rc = exit_code(folder, step)
    if rc is None:
        return
    report = load(os.path.join(folder, step + ".json"))
    if report is None:
        tail = open(os.path.join(folder, step + ".log"), errors="replace").read().splitlines()[-3:]
        print(f"{step:10s} exit {rc}; no report. " + " / ".join(tail))
        return
    cases = report["cases"]
    counts = Counter(c["status"] for c in cases)
    done = "complete" if report.get("complete") else "INCOMPLETE (deadline)"
    print(f"{step:10s} exit {rc}; {len(cases)} cases, {dict(counts)}; {done}")
    for c in cases:
        if c["status"] not in ("passed", "skipped"):
            print(f"  {c['status'].upper():8s} {c['kernel_id']} {c['problem_key']}: "
                  f"{(c.get('reason') or '')[:200]}")
        s = c.get("sanitizer")
        if s is not None and (not s.get("ran") or s.get("errors")):
            kinds = ", ".join(k.get("kind", "?") for k in s.get("kinds", []))
            print(f"  SANITIZER {s.get('tool')} {c['kernel_id']} {c['problem_key']}: ran="
                  f"{s.get('ran')} errors={s.get('errors')} {kinds} {s.get('note', '')[:160]}")


def timing(folder, step):
    report = load(os.path.join(folder, step + ".json"))
    if report is None:
        return
    env = report.get("environment", {})
    print(f"\n{step} timing on {env.get('gpu_name', '?')} (TFLOPS, x the peer of the same run):")
    rows = {}
    for c in report["cases"]:
        if c["status"] == "passed":
            rows.setdefault((c["family"], c["problem_key"]), {})[c["kernel_id"]] = \
                c["throughput"]["tflops"]
    for (family, key), row in rows.items():
        ref = row.get(PEERS.get(family))
        cells = []
        for k, v in sorted(row.items(), key=lambda kv: kv[0].startswith("peer.")):
            ratio = f" ({v / ref:.2f})" if ref and not k.startswith("peer.") else ""
            cells.append(f"{k.split('.', 1)[1]} {v:.1f}{ratio}")
        ours = [v for k, v in row.items() if k.startswith(("attn.", "gemm."))]  # our rungs
        best = f"  best {max(ours) / ref:.2f}x" if ours and ref else ""
        print(f"  {key}: " + ", ".join(cells) + best)


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "/tmp/kernels-check"
    gpu = os.path.join(folder, "gpu.txt")
    if os.path.exists(gpu):
        print(open(gpu).read().strip())
    rc = exit_code(folder, "tests")
    if rc is not None:
        log = open(os.path.join(folder, "tests.log"), errors="replace").read().splitlines()
        shown = [l for l in log if re.match(r"^\[ *(PASSED|FAILED|SKIPPED) *\]", l) or "Failure" in l]
        print(f"{'tests':10s} exit {rc}")
        for line in shown[:30]:
            print("  " + line[:200])
    for step in ("smoke", "check", "memcheck", "racecheck", "quick"):
        verdicts(folder, step)
    timing(folder, "quick")


if __name__ == "__main__":
    main()
