#!/usr/bin/env python3
"""The numbers of scripts/device/devices-interference.sh (docs/devices.md, "Timing honesty"), read
from the flashscope reports the runs wrote. No GPU needed; tests: tests/devices_interference_test.py.

  devices_interference.py equivalence --plain P.json --devices0 D.json [--plain2 P2.json]
                                      [--smi-uuids FILE]
      `run SUITE` against `run SUITE --devices 0` on the same GPU: statuses must agree, every case
      of D must name device 0 and, given nvidia-smi's "index, uuid" lines, the UUID nvidia-smi
      gives GPU 0; medians compared case by case, beside the run-to-run difference of two plain
      runs (P against P2) when given.
  devices_interference.py interference --alone A.json --busy B.json [--alone2 A2.json]
      the same cases on one GPU alone (A, and A2 after B) and with every other GPU busy (B):
      median time and median SM clock per case, busy against alone, beside alone against alone2.
  devices_interference.py wall --one R.json [R.json...] --all R.json [R.json...]
      wall time of the suite on one GPU against on all GPUs (each side may be the shards of one
      suite run one after the other: their wall times add up).

Each prints a markdown section on stdout and exits 1 when a check fails (equivalence: statuses,
devices, UUIDs), else 0. Differences are printed, never judged against a number chosen here.
"""

import argparse
import datetime
import json
import statistics
import sys


def load(path):
    """key -> {status, median_ms, clock_mhz, device, uuid} of a report's cases."""
    with open(path) as f:
        report = json.load(f)
    cases = {}
    for c in report["cases"]:
        timing = c.get("timing") or {}
        cases[c["kernel_id"] + " " + c["problem_key"]] = {
            "status": c["status"],
            "median_ms": timing.get("median_ms"),
            "clock_mhz": timing.get("median_sm_clock_mhz"),
            "device": c.get("device"),
            "uuid": c.get("device_uuid", ""),
        }
    return report, cases


def wall_seconds(report):
    env = report["environment"]
    fmt = "%Y-%m-%dT%H:%M:%SZ"
    start = datetime.datetime.strptime(env["started_at"], fmt)
    end = datetime.datetime.strptime(env["finished_at"], fmt)
    return (end - start).total_seconds()


def paired(base, other):
    """Rows (key, base ms, other ms, relative difference, base MHz, other MHz) of the cases both
    timed, in the base's order."""
    rows = []
    for key, b in base.items():
        o = other.get(key)
        if o is None or not b["median_ms"] or not o["median_ms"]:
            continue
        rows.append((key, b["median_ms"], o["median_ms"], o["median_ms"] / b["median_ms"] - 1,
                     b["clock_mhz"] or 0, o["clock_mhz"] or 0))
    return rows


def spread(rows):
    """Median and largest |relative difference|, in percent; (None, None) without rows."""
    if not rows:
        return None, None
    diffs = [abs(r[3]) * 100 for r in rows]
    return statistics.median(diffs), max(diffs)


def pct(x):
    return "n/a" if x is None else f"{x:.2f} %"


def table(rows, base_name, other_name):
    out = [f"| case | {base_name} ms | {other_name} ms | difference | SM MHz {base_name} | "
           f"SM MHz {other_name} |", "|---|---:|---:|---:|---:|---:|"]
    for key, b, o, d, bc, oc in rows:
        out.append(f"| `{key}` | {b:.4f} | {o:.4f} | {d * 100:+.2f} % | {bc:.0f} | {oc:.0f} |")
    return out


def read_smi_uuids(path):
    """nvidia-smi --query-gpu=index,uuid --format=csv,noheader lines -> {index: uuid}."""
    uuids = {}
    with open(path) as f:
        for line in f:
            parts = [p.strip() for p in line.split(",")]
            if len(parts) == 2 and parts[0].isdigit():
                uuids[int(parts[0])] = parts[1]
    return uuids


def equivalence(args):
    _, plain = load(args.plain)
    report0, dev0 = load(args.devices0)
    problems = []
    if set(plain) != set(dev0):
        problems.append(f"the runs hold different cases ({len(plain)} vs {len(dev0)})")
    for key in sorted(set(plain) & set(dev0)):
        if plain[key]["status"] != dev0[key]["status"]:
            problems.append(f"{key}: {plain[key]['status']} plain, {dev0[key]['status']} "
                            "with --devices 0")
        if dev0[key]["device"] != 0:
            problems.append(f"{key}: recorded device {dev0[key]['device']}, not 0")
    smi = read_smi_uuids(args.smi_uuids) if args.smi_uuids else {}
    listed = [d.get("uuid") for d in report0["environment"].get("devices", [])]
    if smi:
        for key, c in dev0.items():
            if c["uuid"] != smi.get(0):
                problems.append(f"{key}: ran on {c['uuid']}, nvidia-smi's GPU 0 is {smi.get(0)}")
                break
    rows = paired(plain, dev0)
    med, worst = spread(rows)
    lines = ["## `--devices 0` against a plain run (same GPU, same build)", "",
             f"devices listed by the --devices 0 report: {', '.join(map(str, listed)) or 'none'}"]
    if smi:
        lines.append(f"nvidia-smi GPU 0: {smi.get(0)}")
    lines.append(f"medians, plain -> --devices 0: median |difference| {pct(med)}, "
                 f"largest {pct(worst)} over {len(rows)} timed cases")
    if args.plain2:
        _, plain2 = load(args.plain2)
        nmed, nworst = spread(paired(plain, plain2))
        lines.append(f"run to run, plain -> plain again: median |difference| {pct(nmed)}, "
                     f"largest {pct(nworst)}")
    lines += [""] + table(rows, "plain", "devices0") + [""]
    lines += [f"FAIL: {p}" for p in problems] or ["equivalence: statuses, devices and UUIDs agree"]
    print("\n".join(lines))
    return 1 if problems else 0


def interference(args):
    _, alone = load(args.alone)
    _, busy = load(args.busy)
    rows = paired(alone, busy)
    med, worst = spread(rows)
    clock_deltas = [r[5] - r[4] for r in rows if r[4] and r[5]]
    lines = ["## One GPU alone against every GPU busy (same cases, same GPU)", "",
             f"medians, alone -> busy: median |difference| {pct(med)}, largest {pct(worst)} "
             f"over {len(rows)} timed cases"]
    if clock_deltas:
        lines.append(f"median SM clock, busy minus alone: median {statistics.median(clock_deltas):+.0f}"
                     f" MHz, range {min(clock_deltas):+.0f} .. {max(clock_deltas):+.0f} MHz")
    if args.alone2:
        _, alone2 = load(args.alone2)
        nrows = paired(alone, alone2)
        nmed, nworst = spread(nrows)
        lines.append(f"run to run, alone -> alone again (after the busy run): median |difference| "
                     f"{pct(nmed)}, largest {pct(nworst)}")
        if med is not None and nmed is not None:
            lines.append("interference " + ("exceeds" if med > nmed else "is within") +
                         " the run-to-run difference (medians of |difference|: "
                         f"{pct(med)} vs {pct(nmed)})")
    lines += [""] + table(rows, "alone", "busy")
    print("\n".join(lines))
    return 0


def wall(args):
    one = [load(p)[0] for p in args.one]
    everything = [load(p)[0] for p in args.all]
    one_s = sum(wall_seconds(r) for r in one)
    all_s = sum(wall_seconds(r) for r in everything)
    gpus = max(len(r["environment"].get("devices", [])) for r in everything)
    cases = sum(len(r["cases"]) for r in everything)
    print("\n".join([
        "## Wall time: one GPU against all GPUs", "",
        f"one GPU: {one_s:.0f} s ({len(one)} run{'s' if len(one) > 1 else ''}), all "
        f"{gpus} GPUs: {all_s:.0f} s ({len(everything)} run{'s' if len(everything) > 1 else ''}), "
        f"{cases} cases; speed-up {one_s / all_s:.2f}x" if all_s > 0 else "no wall time"]))
    return 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    e = sub.add_parser("equivalence")
    e.add_argument("--plain", required=True)
    e.add_argument("--devices0", required=True)
    e.add_argument("--plain2")
    e.add_argument("--smi-uuids")
    i = sub.add_parser("interference")
    i.add_argument("--alone", required=True)
    i.add_argument("--busy", required=True)
    i.add_argument("--alone2")
    w = sub.add_parser("wall")
    w.add_argument("--one", nargs="+", required=True)
    w.add_argument("--all", nargs="+", required=True)
    args = parser.parse_args(argv)
    return {"equivalence": equivalence, "interference": interference, "wall": wall}[args.command](
        args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
