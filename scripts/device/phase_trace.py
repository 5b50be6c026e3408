#!/usr/bin/env python3
"""Where a run's wall time went, from worker phase traces (runner/phase_trace.h, issue 28).

Usage: scripts/device/phase_trace.py LABEL=TRACE.jsonl[,TRACE.jsonl...] [LABEL=... ...]

Each TRACE is the FLASHSCOPE_PHASE_TRACE file of one `flashscope run` (one line per case, from
every worker). Prints, per run: cases, GPUs, the wall span (first case start to last case end),
the speed-up against the first run given, and per segment (wait for the supervisor, journal writes,
each phase) the mean seconds per case. A segment whose per-case time grows with the number of GPUs
is work that does not run in parallel: the table shows it as a ratio against the first run.

A run continued across commands (`--deadline_s`, then `--resume`, each command with its own
trace) is given as LABEL=FIRST.jsonl,SECOND.jsonl: its wall time is the sum of each command's span,
so the time between the commands does not count.

A worker that parks cases (docs/trust.md, "Cost") also writes one line per settle, keyed
"settle of N cases": its time counts in the segments and the GPUs' busy time, not as a case.

Runs that did not do the same cases (one stopped by a deadline) get no wall-time speed-up: the
table says so, and a section compares them on the cases both did (the cases' own times summed,
alone against with the run's GPUs busy) and extrapolates the first run's wall to the other's cases
from those times, labelled as an estimate.
Exit 2 on a missing or malformed file.
"""
import json
import sys
from collections import defaultdict


def load(path):
    cases = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                cases.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise SystemExit(f"phase_trace: {path}:{n}: not JSON: {e}") from None
    if not cases:
        raise SystemExit(f"phase_trace: {path}: no case lines")
    return cases


def is_settle(line):
    """A worker's settle of parked cases (runner/worker_run.cc), not a case."""
    return line["key"].startswith("settle of ")


def span_s(lines):
    """First case start to last case end of one command's trace."""
    return (max(c["start_unix_s"] + c["total_s"] for c in lines)
            - min(c["start_unix_s"] for c in lines))


def summarise(lines, parts=None):
    """`parts`: the lines of each command when the run was resumed across commands (their spans
    add up); None for one command."""
    segments = defaultdict(float)
    busy = defaultdict(float)
    for c in lines:
        for name, s in c["segments"].items():
            segments[name] += s
        busy[c["device"]] += c["total_s"] - c["segments"].get("wait", 0.0)
    cases = [c for c in lines if not is_settle(c)]
    return {
        "case_s": {c["key"]: c["total_s"] - c["segments"].get("wait", 0.0) for c in cases},
        "cases": len(cases),
        "settles": len(lines) - len(cases),
        "gpus": len({c["device"] for c in lines}),
        "wall_s": sum(span_s(p) for p in (parts or [lines])),
        "commands": len(parts or [lines]),
        "per_case": {k: v / max(1, len(cases)) for k, v in segments.items()},
        "busy_s": dict(busy),
    }


def print_common_cases(runs):
    """For each run whose cases differ from the first run's: the comparison on the cases both did
    and the first run's wall extrapolated to this run's cases (an estimate, said so)."""
    label0, base = runs[0]
    for label, r in runs[1:]:
        if set(r["case_s"]) == set(base["case_s"]):
            continue
        common = [k for k in base["case_s"] if k in r["case_s"]]
        if not common:
            print(f"\n{label}: no case in common with {label0}: no comparison")
            continue
        alone = sum(base["case_s"][k] for k in common)
        busy = sum(r["case_s"][k] for k in common)
        print(f"\n{label} against {label0} on the {len(common)} cases both did: their own times "
              f"sum to {alone:.1f} s in {label0} and {busy:.1f} s in {label} "
              f"({100 * (busy / alone - 1):+.1f} %)")
        only_r = [k for k in r["case_s"] if k not in base["case_s"]]
        only_base = [k for k in base["case_s"] if k not in r["case_s"]]
        if only_r and not only_base:
            est = base["wall_s"] + sum(r["case_s"][k] for k in only_r) * alone / busy
            print(f"estimate, not a measurement: {label0} would take {est:.1f} s for {label}'s "
                  f"{r['cases']} cases ({len(only_r)} more, timed in {label}), "
                  f"{est / r['wall_s']:.2f}x")


def main(argv):
    if len(argv) < 2 or any("=" not in a for a in argv[1:]):
        print(__doc__, file=sys.stderr)
        return 2
    runs = []
    for arg in argv[1:]:
        label, paths = arg.split("=", 1)
        parts = []
        for path in paths.split(","):
            try:
                parts.append(load(path))
            except OSError as e:
                print(f"phase_trace: {path}: {e.strerror}", file=sys.stderr)
                return 2
        runs.append((label, summarise([c for p in parts for c in p], parts)))
    base = runs[0][1]
    print("| run | cases | GPUs | wall s | speed-up | busy s per GPU |")
    print("|---|---:|---:|---:|---:|---|")
    for label, r in runs:
        busy = ", ".join(f"{d}: {s:.1f}" for d, s in sorted(r["busy_s"].items()))
        same = set(r["case_s"]) == set(base["case_s"])
        speed = f"{base['wall_s'] / r['wall_s']:.2f}x" if same else "other cases (below)"
        wall = f"{r['wall_s']:.1f}" + (f" ({r['commands']} commands)" if r["commands"] > 1 else "")
        print(f"| {label} | {r['cases']} | {r['gpus']} | {wall} | {speed} | {busy} |")
    print_common_cases(runs)
    names = sorted({n for _, r in runs for n in r["per_case"]},
                   key=lambda n: -base["per_case"].get(n, 0))
    print()
    print("| segment (ms per case) | " + " | ".join(label for label, _ in runs) + " |")
    print("|---|" + "---:|" * len(runs))
    for n in names:
        cells = []
        for _, r in runs:
            ms = 1000 * r["per_case"].get(n, 0.0)
            b = 1000 * base["per_case"].get(n, 0.0)
            cells.append(f"{ms:.1f}" + (f" ({ms / b:.2f}x)" if b > 0 and r is not base else ""))
        print(f"| {n} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
