#!/usr/bin/env python3
"""What the trust checks cost and decided in committed reports (docs/trust.md, "Measured").

Per report and family: the cases with trust records and their statuses, each check's statuses,
the median and largest host time it added (its `cost_s` value) and the median case wall time.
Standard library only; reads .json or .json.xz.

  scripts/trust_costs.py REPORT...
"""
import json
import lzma
import statistics
import sys


def load(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def summarise(path, family, cases):
    outcomes, checks, costs = {}, {}, {}
    for c in cases:
        outcomes[c["status"]] = outcomes.get(c["status"], 0) + 1
        for check in c["trust"]["checks"]:
            counts = checks.setdefault(check["check"], {})
            counts[check["status"]] = counts.get(check["status"], 0) + 1
            for v in check.get("values", []):
                if v["name"] == "cost_s":
                    costs.setdefault(check["check"], []).append(v["value"])
    walls = [c["wall_s"] for c in cases if c.get("wall_s")]
    print(f"{path} {family}: {len(cases)} cases {outcomes}, case wall median "
          f"{statistics.median(walls):.3f} s")
    for name, counts in checks.items():
        cost = costs.get(name)
        spent = (f", cost median {statistics.median(cost) * 1e3:.1f} ms, max {max(cost) * 1e3:.0f} ms"
                 if cost else "")
        print(f"  {name}: {counts}{spent}")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        try:
            report = load(path)
        except (OSError, ValueError, lzma.LZMAError) as e:
            sys.exit(f"trust_costs: {path}: {e}")
        for family in ("attention_fwd", "gemm"):
            cases = [c for c in report["cases"] if c["family"] == family and c.get("trust")]
            if cases:
                summarise(path, family, cases)


if __name__ == "__main__":
    main()
