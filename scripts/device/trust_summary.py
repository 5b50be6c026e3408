#!/usr/bin/env python3
"""Tables of the trust checks (docs/trust.md) from flashscope reports.

  trust_summary.py cheats REPORT         each case: status, failed checks, their first finding
  trust_summary.py honest REPORT         honest kernels (not test.*, but test.honest_after_*, a10
                                         run right after a cheat): counts by status, and any
                                         non-passed case with its reason
  trust_summary.py overhead ON OFF       per case wall time with every check on against all off,
                                         and each check's own cost (the cost_s values)
  trust_summary.py costs REPORT...       per report and family: outcomes, each check's statuses,
                                         the median and largest cost_s, the median case wall time
Exit 0; reports may be .json or .json.xz.
"""
import os
import statistics
import sys

# The xz-aware report reader lives beside the other report scripts, one folder up.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from report_file import check_value as value  # noqa: E402
from report_file import load_report as load  # noqa: E402
from report_file import trust_checks as checks  # noqa: E402


def cheats(report):
    print("| kernel | problem | status | verification | failed checks | first finding |")
    print("|---|---|---|---|---|---|")
    for c in report["cases"]:
        failed = [k for k in checks(c) if k["status"] == "failed"]
        finding = failed[0]["findings"][0] if failed and failed[0].get("findings") else ""
        ver = c.get("verification") or {}
        verdict = "passed" if ver.get("passed") else ("failed" if ver else "-")
        print("| %s | %s | %s | %s | %s | %s |" % (
            c["kernel_id"], c["problem_key"], c["status"], verdict,
            ", ".join(k["check"] for k in failed) or "-", finding[:110].replace("|", "/")))


def honest(report):
    counts = {}
    bad = []
    off = {}
    for c in report["cases"]:
        if c["kernel_id"].startswith("test.") and not c["kernel_id"].startswith("test.honest_after_"):
            continue
        counts[c["status"]] = counts.get(c["status"], 0) + 1
        if c["status"] not in ("passed", "skipped"):
            bad.append(c)
        for k in checks(c):
            if k["status"] == "off":
                off.setdefault((k["check"], k["rule"][:80]), 0)
                off[(k["check"], k["rule"][:80])] += 1
    print("honest cases by status:", counts)
    for (check, rule), n in sorted(off.items()):
        print("  off: %s x%d: %s" % (check, n, rule))
    for c in bad[:40]:
        print("  NOT PASSED %s %s %s: %s" % (c["kernel_id"], c["problem_key"], c["status"],
                                            c["reason"][:300]))


# The checks that report their own cost (cost_s), in table order (reports before fresh inputs
# had input_sets instead of profiled_duration, whose cost is part of work's).
COSTED = ["plausibility", "work", "timed_outputs", "input_sets", "streams", "integrity",
          "isolation"]


def overhead(on, off):
    off_wall = {c["kernel_id"] + " " + c["problem_key"]: c["wall_s"] for c in off["cases"]}
    print("| case | wall off (s) | wall on (s) | ratio | " +
          " | ".join(COSTED) + " (cost_s) |")
    print("|---|---:|---:|---:|" + "---:|" * len(COSTED))
    ratios = []
    totals = {}
    for c in on["cases"]:
        key = c["kernel_id"] + " " + c["problem_key"]
        if key not in off_wall or c["status"] == "skipped":
            continue
        costs = {}
        for k in checks(c):
            v = value(k, "cost_s")
            if v is not None:
                costs[k["check"]] = v
                totals[k["check"]] = totals.get(k["check"], 0) + v
        ratio = c["wall_s"] / off_wall[key] if off_wall[key] > 0 else float("nan")
        ratios.append(ratio)
        print("| %s | %.2f | %.2f | %.2f | %s |" % (
            key, off_wall[key], c["wall_s"], ratio,
            " | ".join("%.3f" % costs.get(n, 0) for n in COSTED)))
    if ratios:
        print("\nmedian wall ratio on/off: %.3f over %d cases; sum off %.1f s, sum on %.1f s" % (
            statistics.median(ratios), len(ratios), sum(off_wall.values()),
            sum(c["wall_s"] for c in on["cases"])))
        print("cost by check (s, summed over cases):",
              {k: round(v, 2) for k, v in sorted(totals.items())})


def costs(path, report):
    for family in ("attention_fwd", "gemm"):
        cases = [c for c in report["cases"] if c["family"] == family and c.get("trust")]
        if not cases:
            continue
        outcomes, statuses, spent = {}, {}, {}
        for c in cases:
            outcomes[c["status"]] = outcomes.get(c["status"], 0) + 1
            for k in checks(c):
                counts = statuses.setdefault(k["check"], {})
                counts[k["status"]] = counts.get(k["status"], 0) + 1
                v = value(k, "cost_s")
                if v is not None:
                    spent.setdefault(k["check"], []).append(v)
        walls = [c["wall_s"] for c in cases if c.get("wall_s")]
        print(f"{path} {family}: {len(cases)} cases {outcomes}, case wall median "
              f"{statistics.median(walls):.3f} s")
        for name, counts in statuses.items():
            cost = spent.get(name)
            tail = (f", cost median {statistics.median(cost) * 1e3:.1f} ms, "
                    f"max {max(cost) * 1e3:.0f} ms" if cost else "")
            print(f"  {name}: {counts}{tail}")


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    if argv[1] == "cheats":
        cheats(load(argv[2]))
    elif argv[1] == "honest":
        honest(load(argv[2]))
    elif argv[1] == "costs":
        for path in argv[2:]:
            costs(path, load(path))
    elif argv[1] == "overhead" and len(argv) == 4:
        overhead(load(argv[2]), load(argv[3]))
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
