#!/usr/bin/env python3
"""Tests of trust_cost_table.py on made-up reports (no GPU): the on/off ratio against the goal,
the per-check costs, the profiled/timed ratios of honest kernels and the honest failures.

Run: python3 -m unittest -v trust_cost_table_test (from this folder; ctest does)."""

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import trust_cost_table  # noqa: E402


def case(kernel, status="passed", wall=0.05, ratio=None, duration_status="passed", cost=0.01):
    checks = [{"check": "timed_outputs", "status": "passed", "rule": "",
               "values": [{"name": "cost_s", "value": cost, "unit": "s"}], "findings": []}]
    if ratio is not None:
        checks.append({"check": "profiled_duration", "status": duration_status, "rule": "",
                       "values": [{"name": "kernel_ratio", "value": ratio / 2, "unit": "ratio"},
                                  {"name": "slowest_ratio", "value": ratio, "unit": "ratio"}],
                       "findings": ["profiled launch 0 took 9 ms"] if duration_status == "failed"
                       else []})
    return {"kernel_id": kernel, "problem_key": "attention_fwd{B=1}", "status": status,
            "wall_s": wall, "reason": "" if status == "passed" else "trust check failed",
            "trust": {"checks": checks}}


class TrustCostTableTest(unittest.TestCase):
    def run_table(self, on, on_wall, off, off_wall):
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for name, rep in (("on", on), ("off", off)):
                p = os.path.join(d, name + ".json")
                with open(p, "w") as f:
                    json.dump(rep, f)
                paths.append(p)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                rc = trust_cost_table.main(["x", paths[0], str(on_wall), paths[1], str(off_wall)])
            return rc, out.getvalue()

    def test_ratio_meets_or_misses_the_goal(self):
        on = {"cases": [case("attn.a10", ratio=1.1), case("attn.a03", ratio=1.4)]}
        off = {"cases": [case("attn.a10"), case("attn.a03")]}
        rc, text = self.run_table(on, 30.0, off, 25.0)
        self.assertEqual(rc, 0)
        self.assertIn("**1.20 x** (meets the goal of <= 1.5 x)", text)
        rc, text = self.run_table(on, 80.0, off, 20.0)
        self.assertIn("**4.00 x** (MISSES", text)

    def test_profiled_ratios_leave_cheats_out_and_list_failures(self):
        on = {"cases": [case("attn.a10", ratio=1.1), case("attn.a03", ratio=3.0,
                                                          duration_status="failed",
                                                          status="failed"),
                        case("test.cheat_profiled_only", ratio=40.0)]}
        off = {"cases": [case("attn.a10")]}
        _, text = self.run_table(on, 10.0, off, 10.0)
        self.assertIn("2 cases", text)
        self.assertIn("slowest pass (events): median 2.05, 90th 3.00, 99th 3.00, max 3.00 (attn.a03",
                      text)
        self.assertIn("kernels' GPU time (CUPTI): median 1.02", text)
        self.assertNotIn("40.00", text)
        self.assertIn("- failed: attn.a03", text)
        self.assertIn("honest cases not passed with the checks on: 1", text)
        self.assertIn("different case counts", text)

    def test_costs_per_check(self):
        on = {"cases": [case("a", cost=0.01), case("b", cost=0.03), case("c", cost=0.02)]}
        _, text = self.run_table(on, 1.0, {"cases": on["cases"]}, 1.0)
        self.assertIn("| timed_outputs | 3 | 0.0200 | 0.0300 |", text)

    def test_work_by_step_over_the_cases_that_collected_counters(self):
        def with_work(kernel, passes, cupti, launches):
            c = case(kernel)
            c["trust"]["checks"].append({
                "check": "work", "status": "passed", "rule": "", "findings": [],
                "values": [{"name": "profile_passes", "value": passes, "unit": "count"},
                           {"name": "profile_cupti_s", "value": cupti, "unit": "s"},
                           {"name": "profile_launches_s", "value": launches, "unit": "s"}]})
            return c
        on = {"cases": [with_work("a", 6, 0.002, 0.008), with_work("b", 6, 0.004, 0.010),
                        with_work("tiny", 0, 0, 0), case("c")]}
        _, text = self.run_table(on, 1.0, {"cases": on["cases"]}, 1.0)
        self.assertIn("over 2 cases that collected counters", text)
        self.assertIn("| CUPTI Start/Stop, PushRange/PopRange | 0.01 | 3.00 |", text)
        self.assertIn("| the launches, with the waits before and after them | 0.02 | 9.00 |", text)
        # No case collected counters: no table.
        _, text = self.run_table({"cases": [case("c")]}, 1.0, {"cases": [case("c")]}, 1.0)
        self.assertNotIn("by step", text)

    def test_bad_arguments_exit_2(self):
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(trust_cost_table.main(["x", "a.json"]), 2)
            self.assertEqual(trust_cost_table.main(["x", "a", "fast", "b", "1"]), 2)


if __name__ == "__main__":
    unittest.main()
