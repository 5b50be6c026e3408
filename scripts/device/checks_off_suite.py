#!/usr/bin/env python3
"""A copy of a suite file with the trust checks that collect counters and trace launches switched
off (plausibility, work, timed_outputs, streams): the "checks off" side of trust-cost.sh's cost
table and of devices-scaling.sh's CHECKS=off runs, made one way for both.

Usage: scripts/device/checks_off_suite.py SUITE.json OUT.json
"""
import json
import sys

CHECKS_OFF = ["plausibility", "work", "timed_outputs", "streams"]


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        suite = json.load(f)
    suite["name"] = suite.get("name", "suite") + "-checks-off"
    suite["trust"] = {"off": CHECKS_OFF}
    with open(argv[2], "w", encoding="utf-8") as f:
        json.dump(suite, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
