#!/usr/bin/env python3
"""Reads a demo report's numbers for each bug case (docs/heatmaps.md): where the error sits.

For every verified case of the demo suite (suites/demo.json): the verdict and the rule that decided
it, max |err| against the limit of FlashAttention's rule, and from the case's heatmaps the query
rows, head dims, fold rows and heads whose max error passes that limit, the rows and dims whose
maxima equal the original kernel's (attn.a10_fa2 on the same problem) exactly, a few row maxima
from the sequence profile, the worst element as (batch, head, row, dim), and the trust checks that
failed. Standard library only; reads .json or .json.xz.

  scripts/demo_heatmap_numbers.py [REPORT]   default results/runs/20261124-103416-demo.json.xz
"""
import sys

from report_file import load_report

ORIGINAL = "attn.a10_fa2"
FLOOR = {"bf16": 1e-4, "fp16": 1e-5}  # verify/tolerance.h: the rule's floor per dtype
SAMPLE_ROWS = (0, 1, 2, 4, 8, 16, 32, 56, 64, 128, 160, 175, 184, 191, 192, 193, 200, 224, 248, 254)
UNWRITTEN = 3.4028234663852886e38  # verify/ marks a never-written, NaN or Inf element so


def ranges(indices):
    """[0, 1, 2, 5] -> '0..2, 5'"""
    out, start = [], None
    for i, x in enumerate(indices):
        if start is None:
            start = x
        if i + 1 == len(indices) or indices[i + 1] != x + 1:
            out.append(f"{start}" if start == x else f"{start}..{x}")
            start = None
    return ", ".join(out) or "none"


def fmt(x):
    return "never written" if x >= UNWRITTEN else f"{x:.2g}"


def maps_of(case):
    return {h["kind"]: h for h in case["verification"]["heatmaps"]}


def column_max(h):
    return [max(h["max"][r * h["cols"] + c] for r in range(h["rows"])) for c in range(h["cols"])]


def row_max(h):
    return [max(h["max"][r * h["cols"]:(r + 1) * h["cols"]]) for r in range(h["rows"])]


def block_max(h, rows, cols):
    return max(h["max"][r * h["cols"] + c] for r in rows for c in cols)


def describe(case, original):
    v, p = case["verification"], case["params"]
    st, maps = v["stats"], maps_of(case)
    limit = 2 * v["baseline_max_abs"] + FLOOR[p["dtype"]]
    print(f"== {case['kernel_id']}  {case['problem_key']}  {case['status']}")
    print(f"   rule: {v['rule']}")
    print(f"   max|err| {st['max_abs']:.3g}, naive baseline {v['baseline_max_abs']:.3g}, "
          f"limit 2 x baseline + {FLOOR[p['dtype']]:g} = {limit:.3g}; bad {st['bad']}, "
          f"never written {st['never_written']} of {st['elements']}")
    failed = [c for c in (case.get("trust") or {}).get("checks", []) if c["status"] == "failed"]
    if failed:
        print("   trust checks failed: " +
              "; ".join(f"{c['check']} ({c['findings'][0]})" for c in failed))
    sq, d, heads = int(p["Sq"]), int(p["D"]), int(p["H"])
    w = st["worst_index"]
    b_h, row, dim = divmod(w // d, sq)[0], (w // d) % sq, w % d
    print(f"   worst element: batch {b_h // heads}, head {b_h % heads}, row {row}, dim {dim}")
    profile = maps["sequence_profile"]["max"]
    dims = column_max(maps["position_x_dim"])
    fold = row_max(maps["tile_fold"])
    per_head = row_max(maps["per_head"])
    over = lambda xs: ranges([i for i, x in enumerate(xs) if x > limit])
    print(f"   over the limit: rows {over(profile)}; dims {over(dims)}; fold rows {over(fold)}; "
          f"heads {over(per_head)}")
    print("   row maxima: " + ", ".join(f"{r}: {fmt(profile[r])}" for r in SAMPLE_ROWS if r < sq))
    bands = []
    for lo in range(0, sq, 64):  # the key-tile bands that the diagonal's dashes mark
        rows = range(lo, min(sq, lo + 64))
        top = max(rows, key=lambda r: profile[r])
        low = min(rows, key=lambda r: profile[r])
        bands.append(f"{lo}..{rows[-1]}: {fmt(profile[low])} (row {low}) to "
                     f"{fmt(profile[top])} (row {top})")
    print("   row maxima by band: " + "; ".join(bands))
    if original is not None and case is not original:
        same = lambda a, b: ranges([i for i, (x, y) in enumerate(zip(a, b)) if x == y])
        om = maps_of(original)
        print(f"   equal to {ORIGINAL}'s: rows {same(profile, om['sequence_profile']['max'])}; "
              f"dims {same(dims, column_max(om['position_x_dim']))}")
    pos = maps["position_x_dim"]
    if pos["rows"] == sq:  # full resolution: the corner that the ldmatrix bug spares or hits
        corner = [block_max(pos, range(8), range(c, c + 8)) for c in (0, 16, 24)]
        print(f"   rows 0..7 max: dims 0..7 {fmt(corner[0])}, 16..23 {fmt(corner[1])}, "
              f"24..31 {fmt(corner[2])}")
    cells = sorted(x for x in pos["max"] if x < UNWRITTEN)
    if cells:
        print(f"   position x dim cells: min {cells[0]:.2g}, median {cells[len(cells) // 2]:.2g}, "
              f"max {cells[-1]:.2g}")


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "results/runs/20261124-103416-demo.json.xz"
    report = load_report(path)
    print(f"{path}: suite {report['suite']['name']}, {report['environment']['gpu_name']}, "
          f"git {report['environment']['git_revision']}")
    originals = {c["problem_key"]: c for c in report["cases"] if c["kernel_id"] == ORIGINAL}
    for case in report["cases"]:
        if not (case.get("verification") or {}).get("ran"):
            print(f"== {case['kernel_id']}  {case['problem_key']}  {case['status']}: "
                  f"{case.get('reason', '')}")
            continue
        describe(case, originals.get(case["problem_key"]))


if __name__ == "__main__":
    main()
