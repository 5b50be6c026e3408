#!/usr/bin/env python3
"""The trust checks' cost table (docs/trust.md, "Cost") from two runs of one suite on one GPU,
with every check on and with every check off (scripts/device/trust-cost.sh makes both).

  trust_cost_table.py ON_REPORT ON_WALL_S OFF_REPORT OFF_WALL_S

Prints markdown: the suite's wall time on and off and their ratio (the goal: <= 1.5), the cases
and their outcomes, each check's median and largest cost_s, where the work check's counter
collection spent its time (by step), and the profiled/timed duration ratios
of honest kernels (the evidence for kProfiledSlowdownMax). Exit 0; 2 on bad arguments.
Reports may be .json or .json.xz."""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from report_file import check_value as value  # noqa: E402
from report_file import load_report  # noqa: E402
from report_file import trust_checks as checks  # noqa: E402

COST_GOAL = 1.5


def quantile(xs, q):
    xs = sorted(xs)
    if not xs:
        return None
    return xs[min(len(xs) - 1, int(q * (len(xs) - 1) + 0.5))]


def fmt(x, spec="%.3f"):
    return "-" if x is None else spec % x


def outcomes(report):
    counts = {}
    for c in report["cases"]:
        counts[c["status"]] = counts.get(c["status"], 0) + 1
    return ", ".join("%d %s" % (n, s) for s, n in sorted(counts.items()))


def table(on, on_wall, off, off_wall):
    lines = ["| run | cases | outcomes | suite wall (s) | case wall median (s) |",
             "|---|---:|---|---:|---:|"]
    for name, rep, wall in (("checks on", on, on_wall), ("checks off", off, off_wall)):
        walls = [c.get("wall_s", 0) for c in rep["cases"]]
        lines.append("| %s | %d | %s | %.1f | %s |" % (
            name, len(rep["cases"]), outcomes(rep), wall,
            fmt(statistics.median(walls) if walls else None, "%.4f")))
    ratio = on_wall / off_wall if off_wall > 0 else float("inf")
    verdict = "meets" if ratio <= COST_GOAL else "MISSES"
    lines.append("")
    lines.append("on / off (suite wall): **%.2f x** (%s the goal of <= %.1f x)"
                 % (ratio, verdict, COST_GOAL))
    if len(on["cases"]) != len(off["cases"]):
        lines.append("")
        lines.append("note: the runs hold different case counts (a deadline cut one short): "
                     "compare per-case medians")
    return lines


def costs(on):
    by_check = {}
    for c in on["cases"]:
        for k in checks(c):
            cost = value(k, "cost_s")
            if cost is not None:
                by_check.setdefault(k["check"], []).append(cost)
    lines = ["", "| check | cases with a cost | median cost_s | largest cost_s |",
             "|---|---:|---:|---:|"]
    for name, xs in sorted(by_check.items()):
        lines.append("| %s | %d | %.4f | %.4f |" % (name, len(xs), statistics.median(xs), max(xs)))
    return lines


WORK_STEPS = (("profile_configure_s", "configuring (enable, SetConfig)"),
              ("profile_cupti_s", "CUPTI Start/Stop, PushRange/PopRange"),
              ("profile_launches_s", "the launches, with the waits before and after them"),
              ("profile_hooks_before_s", "before each launch: fresh inputs, integrity, L2 flush"),
              ("profile_hooks_after_s", "after each launch: its checks"),
              ("profile_decode_s", "decoding the counters"))


def work_steps(on):
    """Where the work check's counter collection spent its time (the values the runner records
    beside its cost_s, runner/case_profile.cc), over the cases that collected counters."""
    totals = {name: [] for name, _ in WORK_STEPS}
    for c in on["cases"]:
        for k in checks(c):
            if k["check"] != "work" or not (value(k, "profile_passes") or 0) > 0:
                continue
            for name, _ in WORK_STEPS:
                v = value(k, name)
                if v is not None:
                    totals[name].append(v)
    profiled = max((len(xs) for xs in totals.values()), default=0)
    if profiled == 0:
        return []
    lines = ["", "work's counter collection by step, over %d cases that collected counters:"
             % profiled, "", "| step | total (s) | median per case (ms) |", "|---|---:|---:|"]
    for name, label in WORK_STEPS:
        xs = totals[name]
        if xs:
            lines.append("| %s | %.2f | %.2f |" % (label, sum(xs), statistics.median(xs) * 1e3))
    return lines


def durations(on):
    """Profiled/timed ratios of honest kernels: CUPTI's kernel time (the judged one, against
    kProfiledSlowdownMax) and the slowest pass's event time (against kProfiledPassSlowdownMax)."""
    ratios = {"kernel_ratio": [], "slowest_ratio": []}
    failed = []
    for c in on["cases"]:
        if c["kernel_id"].startswith("test."):
            continue
        for k in checks(c):
            if k["check"] != "profiled_duration":
                continue
            for name, xs in ratios.items():
                r = value(k, name)
                if r is not None:
                    xs.append((r, c["kernel_id"], c["problem_key"]))
            if k["status"] == "failed":
                failed.append("%s %s: %s" % (c["kernel_id"], c["problem_key"],
                                             (k.get("findings") or [""])[0]))
    lines = ["", "profiled / timed duration of honest kernels, over the timed median: %d cases"
             % len(ratios["kernel_ratio"])]
    for name, label in (("kernel_ratio", "kernels' GPU time (CUPTI)"),
                        ("slowest_ratio", "slowest pass (events)")):
        xs = ratios[name]
        if not xs:
            continue
        rs = [r for r, _, _ in xs]
        worst = max(xs)
        lines.append("- %s: median %.2f, 90th %.2f, 99th %.2f, max %.2f (%s %s)" % (
            label, statistics.median(rs), quantile(rs, 0.9), quantile(rs, 0.99), worst[0],
            worst[1], worst[2]))
    for f in failed[:10]:
        lines.append("- failed: " + f)
    return lines


def honest_failures(on):
    bad = [c for c in on["cases"]
           if not c["kernel_id"].startswith("test.") and c["status"] not in ("passed", "skipped")]
    lines = ["", "honest cases not passed with the checks on: %d" % len(bad)]
    for c in bad[:15]:
        lines.append("- %s %s: %s %s" % (c["kernel_id"], c["problem_key"], c["status"],
                                         (c.get("reason") or "")[:160]))
    return lines


def main(argv):
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        on_wall, off_wall = float(argv[2]), float(argv[4])
    except ValueError:
        print("trust_cost_table.py: ON_WALL_S and OFF_WALL_S must be numbers of seconds",
              file=sys.stderr)
        return 2
    on, off = load_report(argv[1]), load_report(argv[3])
    lines = (table(on, on_wall, off, off_wall) + costs(on) + work_steps(on) + durations(on) +
             honest_failures(on))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
