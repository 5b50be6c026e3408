#!/usr/bin/env python3
"""Markdown tables from `flashscope-metric-probe --mode pass-cost` JSON files.

usage: pass_cost_table.py FILE.json...

For each (workload, configuration): passes, the whole profile's wall time, the config step, and
each pass's host time by index (0 = the session's first pass) with CUPTI Start/Stop in it; then,
for alternate_scopes entries, each call's scope, passes and error. Exit 2 on a file that is not a
pass-cost result.
"""
import json
import sys


def ms(x):
    return f"{x:.1f}"


def table(path, d):
    print(f"### {path}\n")
    dev = d.get("device", {})
    print(f"device: {dev.get('name', '?')} (driver {dev.get('driver', '?')}, CUDA runtime "
          f"{dev.get('runtime', '?')}); command: `{d.get('command_line', '?')}`\n")
    rows = [e for e in d["pass_cost"] if "by_pass_index_median" in e or "error" in e]
    print("| workload | configuration | passes | profile ms | SetConfig ms | each pass: ms (Start, Stop) |")
    print("|---|---|---:|---:|---:|---|")
    for e in rows:
        if "calls" in e:
            continue
        if "error" in e and "by_pass_index_median" not in e:
            print(f"| {e['workload']} | {e['config']} | | | | error: {e['error']} |")
            continue
        passes = " · ".join(f"{ms(p['pass_ms'])} ({ms(p['start_ms'])}, {ms(p['stop_ms'])})"
                            for p in e["by_pass_index_median"])
        cfg = e.get("set_config_ms_median", e.get("configure_ms_median", 0))
        print(f"| {e['workload']} | {e['config']} | {e['passes']} | "
              f"{ms(e['profile_wall_ms_median'])} | {ms(cfg)} | {passes} |")
    print()
    for e in d["pass_cost"]:
        if "calls" not in e:
            continue
        print(f"{e['workload']} {e['config']} (config passes {e.get('passes_needed')}):")
        for c in e["calls"]:
            extra = f" — error: {c['error']}" if "error" in c else ""
            print(f"- {c['scope']}: {c.get('passes', '-')} passes, {ms(c.get('wall_ms', 0))} ms"
                  f"{extra}")
        print()


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    for path in argv[1:]:
        try:
            with open(path) as f:
                d = json.load(f)
        except (OSError, ValueError) as e:
            print(f"pass_cost_table.py: cannot read {path}: {e}", file=sys.stderr)
            return 2
        if "pass_cost" not in d:
            print(f"pass_cost_table.py: {path} is not a pass-cost result (no 'pass_cost')",
                  file=sys.stderr)
            return 2
        table(path, d)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
