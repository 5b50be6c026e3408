#!/usr/bin/env python3
"""Analysis half of scripts/device/gate-quality.sh (docs/gate-quality.md).

Reads the A/A reports (aa1.json, aa2.json) and the slowdown trials (trial1.json ...) in --dir, calls
`flashscope gate` for every pair (the gate's statistics are the product's, not re-implemented here),
and writes results.json and results.md beside them. Standard library only.
"""
import argparse
import copy
import itertools
import json
import os
import statistics
import subprocess
import sys

A10 = "attn.a10_fa2"
SLOW = {3: "test.a10_slow3", 5: "test.a10_slow5", 10: "test.a10_slow10"}
# Buckets of |relative median difference| for the noise histogram, in percent.
BUCKETS = [0.25, 0.5, 1.0, 2.0, 3.0, 5.0]


def load(path):
    with open(path) as f:
        return json.load(f)


def write(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=2, sort_keys=True)
        f.write("\n")


def gate(fs, base, nxt, verdict_path):
    """Runs `flashscope gate BASE NEXT --json`; returns (exit code, verdict JSON or None)."""
    p = subprocess.run([fs, "gate", base, nxt, "--json", verdict_path, "--color=false"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1):
        print(f"gate {base} {nxt}: exit {p.returncode}: {p.stderr.strip()}", file=sys.stderr)
        return p.returncode, None
    return p.returncode, load(verdict_path)


def only_kernel(report, kernel_id, rename_to=None):
    """The report with the cases of one kernel, optionally renamed so that compare pairs them."""
    r = copy.deepcopy(report)
    r["cases"] = [c for c in r["cases"] if c["kernel_id"] == kernel_id]
    if rename_to:
        for c in r["cases"]:
            c["kernel_id"] = rename_to
    return r


def timed_medians(report):
    return {c["kernel_id"] + " " + c["problem_key"]: c["timing"]["median_ms"]
            for c in report["cases"]
            if c.get("status") == "passed" and c.get("timing") and c["timing"].get("median_ms")}


def rel_diffs(a, b):
    ma, mb = timed_medians(a), timed_medians(b)
    return [(mb[k] - ma[k]) / ma[k] for k in sorted(ma) if k in mb and ma[k] > 0]


def histogram(diffs):
    out, lo = [], 0.0
    for hi in BUCKETS + [float("inf")]:
        n = sum(1 for d in diffs if lo <= abs(d) * 100 < hi)
        out.append({"from_pct": lo, "to_pct": None if hi == float("inf") else hi, "count": n})
        lo = hi
    return out


def percentile(values, q):
    if not values:
        return None
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def failures_by_key(verdict):
    out = {}
    for f in verdict.get("failures", []):
        out.setdefault(f["key"], []).append(f["rule"])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--flashscope", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--trials", type=int, required=True)
    ap.add_argument("--command", default="")
    args = ap.parse_args()
    d = args.dir
    work = os.path.join(d, "pairs")
    os.makedirs(work, exist_ok=True)
    results = {"command": args.command, "gpu": open(os.path.join(d, "gpu.txt")).read().strip()}

    # 1. A/A.
    aa = {}
    if os.path.exists(os.path.join(d, "aa1.json")) and os.path.exists(os.path.join(d, "aa2.json")):
        rc, v = gate(args.flashscope, os.path.join(d, "aa1.json"), os.path.join(d, "aa2.json"),
                     os.path.join(d, "aa-gate.json"))
        if v is not None:
            timed = [c for c in v["cases"] if c["verdict"] != "not timed"]
            fails = failures_by_key(v)
            aa = {"gate_exit": rc, "pairs_timed": len(timed), "counts": v["counts"],
                  "false_regressions": sum(1 for k, rules in fails.items()
                                           if "slowdown" in rules or "ambiguous" in rules),
                  "failures": v.get("failures", []),
                  "delta_pct": {c["key"]: c["delta_pct"] for c in timed}}
    results["aa"] = aa

    # 2. Injected slowdown: within a run (trial i vs itself) and across runs (a10 of i, slow of j).
    trials = [t for t in range(1, args.trials + 1) if os.path.exists(os.path.join(d, f"trial{t}.json"))]
    reports = {t: load(os.path.join(d, f"trial{t}.json")) for t in trials}
    for t in trials:
        write(os.path.join(work, f"a10-{t}.json"), only_kernel(reports[t], A10))
        for pct, kid in SLOW.items():
            write(os.path.join(work, f"slow{pct}-{t}.json"), only_kernel(reports[t], kid, A10))
    slowdown = {}
    for pct in SLOW:
        rows = {"same_run": [], "cross_run": []}
        for i, j in itertools.product(trials, trials):
            kind = "same_run" if i == j else "cross_run"
            rc, v = gate(args.flashscope, os.path.join(work, f"a10-{i}.json"),
                         os.path.join(work, f"slow{pct}-{j}.json"),
                         os.path.join(work, f"gate-slow{pct}-{i}-{j}.json"))
            if v is None:
                continue
            fails = failures_by_key(v)
            for c in v["cases"]:
                if c["verdict"] == "not timed":
                    continue
                rows[kind].append({"key": c["key"], "delta_pct": c["delta_pct"],
                                   "verdict": c["verdict"],
                                   "flagged": "slowdown" in fails.get(c["key"], [])})
        entry = {}
        for kind, r in rows.items():
            n = len(r)
            flagged = sum(1 for x in r if x["flagged"])
            deltas = [x["delta_pct"] for x in r if isinstance(x["delta_pct"], (int, float))]
            entry[kind] = {"pairs": n, "flagged": flagged,
                           "detection_rate": flagged / n if n else None,
                           "measured_slowdown_pct_median": statistics.median(deltas) if deltas else None,
                           "measured_slowdown_pct_min": min(deltas) if deltas else None,
                           "verdicts": {v: sum(1 for x in r if x["verdict"] == v)
                                        for v in ("slower", "ambiguous", "same", "faster")}}
        slowdown[str(pct)] = entry
    results["slowdown"] = slowdown

    # 3. Noise: relative differences of medians between runs of the same build.
    noise = []
    if aa:
        noise += rel_diffs(load(os.path.join(d, "aa1.json")), load(os.path.join(d, "aa2.json")))
    for i, j in itertools.combinations(trials, 2):
        noise += rel_diffs(only_kernel(reports[i], A10), only_kernel(reports[j], A10))
    absn = [abs(x) * 100 for x in noise]
    results["noise"] = {"pairs": len(noise),
                        "abs_pct_p50": percentile(absn, 0.5), "abs_pct_p90": percentile(absn, 0.9),
                        "abs_pct_p99": percentile(absn, 0.99), "abs_pct_max": max(absn) if absn else None,
                        "signed_pct_mean": statistics.mean(noise) * 100 if noise else None,
                        "histogram": histogram(noise)}
    write(os.path.join(d, "results.json"), results)

    # The markdown table.
    md = ["# Gate quality: results", "", f"GPU: `{results['gpu'].splitlines()[-1]}`  ",
          f"Command: `{args.command}`", ""]
    if aa:
        md += ["## A/A (same build, two runs)", "",
               f"- timed case pairs: {aa['pairs_timed']}; false regressions (gate failures for "
               f"slowdown): **{aa['false_regressions']}**; gate exit {aa['gate_exit']}",
               f"- verdicts: {json.dumps(aa['counts'])}", ""]
    md += ["## Injected slowdown (a10 vs a10 + p %)", "",
           "| p | pairing | pairs | flagged | detection | measured Δ median (min) | slower / ambiguous / same |",
           "|---|---|---|---|---|---|---|"]
    for pct, entry in slowdown.items():
        for kind, e in entry.items():
            rate = "-" if e["detection_rate"] is None else f"{100 * e['detection_rate']:.0f} %"
            med = e["measured_slowdown_pct_median"]
            mn = e["measured_slowdown_pct_min"]
            meas = "-" if med is None else f"{med:+.2f} % ({mn:+.2f} %)"
            vv = e["verdicts"]
            md.append(f"| {pct} % | {kind.replace('_', ' ')} | {e['pairs']} | {e['flagged']} | {rate} | "
                      f"{meas} | {vv['slower']} / {vv['ambiguous']} / {vv['same']} |")
    n = results["noise"]
    fmt = lambda x: "-" if x is None else f"{x:.2f} %"
    md += ["", "## Noise: |relative difference of medians| between runs of one build", "",
           f"{n['pairs']} pairs; p50 {fmt(n['abs_pct_p50'])}, p90 {fmt(n['abs_pct_p90'])}, "
           f"p99 {fmt(n['abs_pct_p99'])}, max {fmt(n['abs_pct_max'])}; signed mean "
           f"{fmt(n['signed_pct_mean'])}", "", "| |Δ| | pairs |", "|---|---|"]
    for b in n["histogram"]:
        to = "∞" if b["to_pct"] is None else f"{b['to_pct']} %"
        md.append(f"| {b['from_pct']} % – {to} | {b['count']} |")
    with open(os.path.join(d, "results.md"), "w") as f:
        f.write("\n".join(md) + "\n")


if __name__ == "__main__":
    main()
