#!/usr/bin/env python3
"""Where a run's wall time went, from worker phase traces (runner/phase_trace.h, issue 28).

Usage: scripts/device/phase_trace.py LABEL=TRACE.jsonl [LABEL=TRACE.jsonl ...]

Each TRACE is the FLASHSCOPE_PHASE_TRACE file of one `flashscope run` (one line per case, from
every worker). Prints, per run: cases, GPUs, the wall span (first case start to last case end),
the speed-up against the first run given, and per segment (wait for the supervisor, journal writes,
each phase) the mean seconds per case. A segment whose per-case time grows with the number of GPUs
is work that does not run in parallel: the table shows it as a ratio against the first run.
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


def summarise(cases):
    start = min(c["start_unix_s"] for c in cases)
    end = max(c["start_unix_s"] + c["total_s"] for c in cases)
    segments = defaultdict(float)
    busy = defaultdict(float)
    for c in cases:
        for name, s in c["segments"].items():
            segments[name] += s
        busy[c["device"]] += c["total_s"] - c["segments"].get("wait", 0.0)
    return {
        "cases": len(cases),
        "gpus": len({c["device"] for c in cases}),
        "wall_s": end - start,
        "per_case": {k: v / len(cases) for k, v in segments.items()},
        "busy_s": dict(busy),
    }


def main(argv):
    if len(argv) < 2 or any("=" not in a for a in argv[1:]):
        print(__doc__, file=sys.stderr)
        return 2
    runs = []
    for arg in argv[1:]:
        label, path = arg.split("=", 1)
        try:
            runs.append((label, summarise(load(path))))
        except OSError as e:
            print(f"phase_trace: {path}: {e.strerror}", file=sys.stderr)
            return 2
    base = runs[0][1]
    print("| run | cases | GPUs | wall s | speed-up | busy s per GPU |")
    print("|---|---:|---:|---:|---:|---|")
    for label, r in runs:
        busy = ", ".join(f"{d}: {s:.1f}" for d, s in sorted(r["busy_s"].items()))
        print(f"| {label} | {r['cases']} | {r['gpus']} | {r['wall_s']:.1f} | "
              f"{base['wall_s'] / r['wall_s']:.2f}x | {busy} |")
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
