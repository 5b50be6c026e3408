#!/usr/bin/env python3
"""Analysis half of scripts/device/ab-quality.sh (docs/gate-quality.md, "flashscope ab").

Reads, in --dir, what the script left: `flashscope ab --json` verdicts (ab-aa, ab-1, ab-2, ab-5
with their reports ab-NAME/base.json and new.json) and the separate runs (run-p0 ... run-p5.json).
Calls `flashscope gate` for the separate runs (default policy, and ab's 0.5 % thresholds) and for
ab's own two reports, so that every decision is the product's own, not a re-implementation. Writes
results.json and results.md beside them. Standard library only.
"""
import argparse
import os
import statistics
import subprocess
import sys

from gate_quality_analyze import load, write  # the same JSON files, read and written alike

# Condition -> (ab verdict name, the new build of the separate runs).
CONDITIONS = [("aa", "ab-aa", "p0b"), ("1", "ab-1", "p1"), ("2", "ab-2", "p2"), ("5", "ab-5", "p5")]
HEADINGS = {"aa": "A/A 0 %: false regressions", "1": "1 %: detected", "2": "2 %: detected",
            "5": "5 %: detected"}
METHODS = [
    ("ab", "ab: interleaved pairs, signed-rank test, 0.5 %"),
    ("runs_gate", "separate runs + gate, default policy (Mann-Whitney, 2 %)"),
    ("runs_gate_05", "separate runs + gate at ab's 0.5 %"),
    ("ab_reports_gate_05", "ab's two reports + gate at 0.5 % (interleaved, unpaired test)"),
]
POLICY_05 = {"schema": "flashscope.gate_policy",
             "description": "ab's thresholds, for comparison (scripts/device/ab-quality.sh)",
             "min_effect": 0.005, "allowed_slowdown": 0.005}


def number(v):
    """A verdict's number, or None for the strings reports use for NaN and infinities."""
    return v if isinstance(v, (int, float)) else None


def summarize(verdict, change_key, not_judged):
    """Pairs judged, slowdowns flagged, other failures and the median change of one verdict."""
    cases = [c for c in verdict["cases"] if c["verdict"] not in not_judged]
    flagged = {f["key"] for f in verdict["failures"] if f["rule"] == "slowdown"}
    others = {}  # rule -> [count, an example key]
    for f in verdict["failures"]:
        if f["rule"] != "slowdown":
            others.setdefault(f["rule"], [0, f["key"]])[0] += 1
    changes = [number(c.get(change_key)) for c in cases]
    changes = [c for c in changes if c is not None]
    return {"pairs": len(cases), "flagged": len(flagged), "other_failures": others,
            "median_change_pct": statistics.median(changes) if changes else None,
            "abs_changes_pct": sorted(abs(c) for c in changes), "exit_code": verdict["exit_code"]}


def summarize_ab(verdict):
    return summarize(verdict, "effect_pct", ("not compared",))


def summarize_gate(verdict):
    return summarize(verdict, "delta_pct", ("not timed",))


def gate(fs, base, nxt, verdict_path, policy=None):
    """`flashscope gate BASE NEXT --json` (with --policy); the verdict JSON, or None."""
    if not (os.path.exists(base) and os.path.exists(nxt)):
        return None
    cmd = [fs, "gate", base, nxt, "--json", verdict_path, "--color=never"]
    if policy:
        cmd += ["--policy", policy]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1):
        print(f"gate {base} {nxt}: exit {p.returncode}: {p.stderr.strip()}", file=sys.stderr)
        return None
    return load(verdict_path)


def collect(fs, d):
    """{method: {condition: summary or None}}."""
    policy = os.path.join(d, "policy-0.5pct.json")
    write(policy, POLICY_05)
    results = {m: {} for m, _ in METHODS}
    base_run = os.path.join(d, "run-p0.json")
    for cond, ab_name, build in CONDITIONS:
        ab_verdict = os.path.join(d, ab_name + ".verdict.json")
        results["ab"][cond] = summarize_ab(load(ab_verdict)) if os.path.exists(ab_verdict) else None
        run = os.path.join(d, f"run-{build}.json")
        for method, pol in (("runs_gate", None), ("runs_gate_05", policy)):
            v = gate(fs, base_run, run, os.path.join(d, f"gate-{method}-{cond}.json"), pol)
            results[method][cond] = summarize_gate(v) if v else None
        side = os.path.join(d, ab_name)
        v = gate(fs, os.path.join(side, "base.json"), os.path.join(side, "new.json"),
                 os.path.join(d, f"gate-ab-reports-{cond}.json"), policy)
        results["ab_reports_gate_05"][cond] = summarize_gate(v) if v else None
    return results


def cell(s):
    if s is None:
        return "not run"
    if s["pairs"] == 0:
        return "0 pairs"
    pct = 100.0 * s["flagged"] / s["pairs"]
    return f"{s['flagged']} / {s['pairs']} ({pct:.0f} %)"


def change(s):
    if s is None or s["median_change_pct"] is None:
        return "-"
    return f"{s['median_change_pct']:+.2f} %"


def percentile(sorted_values, q):
    if not sorted_values:
        return None
    i = min(len(sorted_values) - 1, int(round(q / 100.0 * (len(sorted_values) - 1))))
    return sorted_values[i]


def markdown(results, gpu, command):
    lines = [f"GPU: `{gpu}`  ", f"Command: `{command}`", "",
             "| method | " + " | ".join(HEADINGS[c] for c, _, _ in CONDITIONS) + " |",
             "|---|" + "---|" * len(CONDITIONS)]
    for method, title in METHODS:
        lines.append(f"| {title} | " +
                     " | ".join(cell(results[method].get(c)) for c, _, _ in CONDITIONS) + " |")
    lines += ["", "Median measured change per pair (ab: Hodges-Lehmann shift; gate: difference of "
              "medians):", "",
              "| method | " + " | ".join(c if c == "aa" else c + " %" for c, _, _ in CONDITIONS) +
              " |", "|---|" + "---|" * len(CONDITIONS)]
    for method, title in METHODS:
        lines.append(f"| {title} | " +
                     " | ".join(change(results[method].get(c)) for c, _, _ in CONDITIONS) + " |")
    lines += ["", "A/A noise, |change| per pair: p50 / p90 / max", ""]
    for method, title in METHODS:
        s = results[method].get("aa")
        if s and s["abs_changes_pct"]:
            v = s["abs_changes_pct"]
            lines.append(f"- {title}: {percentile(v, 50):.3f} % / {percentile(v, 90):.3f} % / "
                         f"{v[-1]:.3f} %")
    others = [(m, c, rule, n, key) for m, _ in METHODS for c, _, _ in CONDITIONS
              for rule, (n, key) in sorted(((results[m].get(c) or {}).get("other_failures")
                                            or {}).items())]
    if others:
        lines += ["", "Failures other than slowdowns (not counted above):", ""]
        lines += [f"- {m} {c}: {n} {rule} (e.g. {key})" for m, c, rule, n, key in others]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--flashscope", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--command", default="")
    args = ap.parse_args()
    results = collect(args.flashscope, args.dir)
    gpu_file = os.path.join(args.dir, "gpu.txt")
    gpu = ""
    if os.path.exists(gpu_file):
        with open(gpu_file) as f:
            rows = f.read().strip().splitlines()
        gpu = rows[-1] if rows else ""
    write(os.path.join(args.dir, "results.json"),
          {"command": args.command, "gpu": gpu, "results": results})
    with open(os.path.join(args.dir, "results.md"), "w") as f:
        f.write(markdown(results, gpu, args.command))


if __name__ == "__main__":
    main()
