#!/usr/bin/env python3
"""Tests of pass_cost_table.py on made-up probe output (no GPU): each configuration's row with its
passes by index, the alternate-scope calls with their errors, and exit 2 for a file that is not a
pass-cost result.

Run: python3 -m unittest -v pass_cost_table_test (from this folder; ctest does)."""

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import pass_cost_table  # noqa: E402


def pass_ms(total, start, stop):
    return {"pass_ms": total, "start_ms": start, "stop_ms": stop, "before_ms": 0.01,
            "drain_ms": 0.03, "launch_ms": 1.0, "after_ms": 0.0}


class PassCostTableTest(unittest.TestCase):
    def render(self, doc):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "probe.json")
            with open(p, "w") as f:
                json.dump(doc, f)
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc = pass_cost_table.main(["pass_cost_table.py", p])
            return rc, out.getvalue(), err.getvalue()

    def test_rows_show_each_pass_with_start_and_stop(self):
        doc = {"device": {"name": "GPU X", "driver": "1", "runtime": "13.0"},
               "command_line": "probe --mode pass-cost",
               "pass_cost": [{"workload": "w", "config": "work_hw_auto", "passes": 2,
                              "profile_wall_ms_median": 40.0, "set_config_ms_median": 6.0,
                              "by_pass_index_median": [pass_ms(30.0, 25.0, 4.0),
                                                       pass_ms(3.5, 1.7, 0.9)]}]}
        rc, out, _ = self.render(doc)
        self.assertEqual(rc, 0)
        self.assertIn("GPU X", out)
        self.assertIn("| w | work_hw_auto | 2 | 40.0 | 6.0 | 30.0 (25.0, 4.0) · 3.5 (1.7, 0.9) |",
                      out)

    def test_alternate_scope_calls_name_their_error(self):
        doc = {"pass_cost": [{"workload": "w", "config": "alternate_scopes",
                              "passes_needed": {"all": 7, "hardware": 6},
                              "calls": [{"scope": "hardware", "passes": 6, "wall_ms": 80.0},
                                        {"scope": "all", "error": "CUPTI_ERROR_UNKNOWN"}]}]}
        rc, out, _ = self.render(doc)
        self.assertEqual(rc, 0)
        self.assertIn("- hardware: 6 passes, 80.0 ms", out)
        self.assertIn("error: CUPTI_ERROR_UNKNOWN", out)

    def test_a_file_that_is_not_a_pass_cost_result_is_bad_input(self):
        rc, _, err = self.render({"workloads": []})
        self.assertEqual(rc, 2)
        self.assertIn("not a pass-cost result", err)


if __name__ == "__main__":
    unittest.main()
