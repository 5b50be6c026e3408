#!/usr/bin/env python3
"""Summary of one scripts/device/attn-hopper.sh call: correctness per kernel (smoke, attn_hopper),
TFLOPS against cuDNN (attn_hopper_perf) and the tensor/shared metrics (attn_hopper_metrics).
Reads each step's report, or its journal when the step was stopped before writing one.

Usage: attn_hopper_summary.py DIR   (DIR holds smoke.json, check.json, perf.json, metrics.json)
"""
import collections
import json
import os
import sys


def cases_of(path):
    """The case results of a report, or of its journal (report missing: the run was cut off)."""
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f).get("cases", [])
    journal = path + ".journal.jsonl"
    if not os.path.exists(journal):
        return []
    last = {}
    with open(journal) as f:
        for line in f:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("type") == "case":
                last[event["index"]] = event["result"]
    return [last[i] for i in sorted(last)]


def correctness(name, cases):
    by_kernel = collections.defaultdict(collections.Counter)
    failures = []
    for c in cases:
        by_kernel[c["kernel_id"]][c["status"]] += 1
        if c["status"] not in ("passed", "skipped"):
            v = c.get("verification") or {}
            st = v.get("stats") or {}
            failures.append(f'  {c["status"]:7} {c["kernel_id"]} {c["problem_key"]}: '
                            f'ratio={v.get("ratio_to_baseline")} max_abs={st.get("max_abs")} '
                            f'unwritten={st.get("never_written")} nan={st.get("nan")} '
                            f'{c.get("reason", "")[:160]}')
    print(f"== {name}: {len(cases)} cases")
    for k in sorted(by_kernel):
        print(f"  {k:28} {dict(by_kernel[k])}")
    for line in failures[:25]:
        print(line)
    if len(failures) > 25:
        print(f"  ... {len(failures) - 25} more")


def performance(cases):
    table = collections.defaultdict(dict)
    kernels = []
    for c in cases:
        if c["status"] != "passed":
            continue
        table[c["problem_key"]][c["kernel_id"]] = c["throughput"]["tflops"]
        if c["kernel_id"] not in kernels:
            kernels.append(c["kernel_id"])
    short = [k.split(".")[1][:12] for k in kernels]
    print("== perf: TFLOPS (x cuDNN)")
    print(f'  {"problem":48} ' + " ".join(f"{s:>13}" for s in short))
    for key, row in table.items():
        ref = row.get("peer.cudnn_sdpa")
        cells = []
        for k in kernels:
            t = row.get(k)
            if t is None:
                cells.append(f'{"-":>13}')
            elif ref and k != "peer.cudnn_sdpa":
                cells.append(f"{t:6.1f} ({t / ref:.2f})")
            else:
                cells.append(f"{t:13.1f}")
        print(f"  {key[14:62]:48} " + " ".join(cells))


def metrics(cases):
    print("== metrics: tensor_pipe_pct / shared_pct / wgmma_instructions")
    for c in cases:
        prof = c.get("profile") or {}
        vals = {m["name"]: m["value"] for m in prof.get("metrics", []) if m.get("value") is not None}
        print(f'  {c["kernel_id"]:28} {c["problem_key"][14:60]:46} '
              f'{vals.get("tensor_pipe_pct", float("nan")):6.1f} '
              f'{vals.get("shared_pct", float("nan")):6.1f} '
              f'{vals.get("wgmma_instructions", float("nan")):12.0f}')


def main():
    d = sys.argv[1]
    correctness("smoke", cases_of(os.path.join(d, "smoke.json")))
    correctness("attn_hopper", cases_of(os.path.join(d, "check.json")))
    correctness("attn_hopper_rest", cases_of(os.path.join(d, "rest.json")))
    correctness("memcheck", cases_of(os.path.join(d, "memcheck.json")))
    correctness("racecheck", cases_of(os.path.join(d, "racecheck.json")))
    perf = cases_of(os.path.join(d, "perf.json"))
    correctness("attn_hopper_perf", perf)
    performance(perf)
    metrics(cases_of(os.path.join(d, "metrics.json")))


if __name__ == "__main__":
    main()
