#!/usr/bin/env python3
"""Tests of phase_trace.py on made-up traces (no GPU): the wall span, the speed-up and the
per-case segment table that shows a segment serialising across GPUs.

Run: python3 -m unittest -v phase_trace_test (from this folder; ctest does)."""

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import phase_trace  # noqa: E402


def write_trace(folder, name, cases):
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as f:
        for c in cases:
            f.write(json.dumps(c) + "\n")
    return path


def case(key, device, start, segments):
    return {"key": key, "device": device, "pid": 1, "start_unix_s": start,
            "total_s": sum(segments.values()), "segments": segments}


class PhaseTraceTest(unittest.TestCase):
    def test_settle_lines_are_time_not_cases(self):
        with tempfile.TemporaryDirectory() as d:
            one = write_trace(d, "one.jsonl", [
                case("a", 0, 0.0, {"wait": 0.0, "timing": 1.0, "parked": 0.0}),
                case("b", 0, 1.0, {"wait": 0.0, "timing": 1.0, "parked": 0.0}),
                case("settle of 2 cases", 0, 2.0, {"profiling": 0.5, "concluding": 0.1})])
            r = phase_trace.summarise(phase_trace.load(one))
            self.assertEqual(r["cases"], 2)
            self.assertEqual(r["settles"], 1)
            self.assertEqual(set(r["case_s"]), {"a", "b"})
            self.assertAlmostEqual(r["per_case"]["profiling"], 0.25)
            self.assertAlmostEqual(r["busy_s"][0], 2.6)

    def test_a_segment_that_grows_with_gpus_is_shown_as_a_ratio(self):
        with tempfile.TemporaryDirectory() as d:
            one = write_trace(d, "one.jsonl", [
                case("a", 0, 0.0, {"wait": 0.0, "timing": 1.0, "journal_finished": 0.1}),
                case("b", 0, 1.1, {"wait": 0.0, "timing": 1.0, "journal_finished": 0.1})])
            two = write_trace(d, "two.jsonl", [
                case("a", 0, 0.0, {"wait": 0.0, "timing": 1.0, "journal_finished": 0.4}),
                case("b", 1, 0.0, {"wait": 0.0, "timing": 1.0, "journal_finished": 0.4})])
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(phase_trace.main(["x", f"one={one}", f"two={two}"]), 0)
            text = out.getvalue()
            self.assertIn("| one | 2 | 1 | 2.2 | 1.00x |", text)
            self.assertIn("| two | 2 | 2 | 1.4 | 1.57x |", text)
            self.assertIn("| journal_finished | 100.0 | 400.0 (4.00x) |", text)
            self.assertIn("| timing | 1000.0 | 1000.0 (1.00x) |", text)

    def test_a_run_cut_short_gets_no_speed_up_but_an_estimate_on_common_cases(self):
        with tempfile.TemporaryDirectory() as d:
            # One GPU stopped by its deadline after a and b; both GPUs did a, b and c.
            one = write_trace(d, "one.jsonl", [
                case("a", 0, 0.0, {"wait": 0.0, "timing": 1.0}),
                case("b", 0, 1.0, {"wait": 0.0, "timing": 1.0})])
            two = write_trace(d, "two.jsonl", [
                case("a", 0, 0.0, {"wait": 0.0, "timing": 1.1}),
                case("b", 1, 0.0, {"wait": 0.0, "timing": 1.1}),
                case("c", 0, 1.1, {"wait": 0.0, "timing": 2.2})])
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(phase_trace.main(["x", f"one={one}", f"two={two}"]), 0)
            text = out.getvalue()
            self.assertIn("| two | 3 | 2 | 3.3 | other cases (below) |", text)
            self.assertIn("on the 2 cases both did: their own times sum to 2.0 s in one and "
                          "2.2 s in two (+10.0 %)", text)
            # 2.0 s + c's 2.2 s scaled by 2.0/2.2 = 4.0 s for three cases, against 3.3 s.
            self.assertIn("estimate, not a measurement: one would take 4.0 s for two's 3 cases "
                          "(1 more, timed in two), 1.21x", text)

    def test_a_run_resumed_across_commands_adds_their_spans_not_the_gap(self):
        with tempfile.TemporaryDirectory() as d:
            first = write_trace(d, "first.jsonl", [
                case("a", 0, 0.0, {"wait": 0.0, "timing": 2.0}),
                case("b", 0, 2.0, {"wait": 0.0, "timing": 2.0})])
            # The resumed command starts 100 s later: the gap is not the run's time.
            second = write_trace(d, "second.jsonl", [
                case("c", 0, 104.0, {"wait": 0.0, "timing": 2.0})])
            both = write_trace(d, "both.jsonl", [
                case("a", 0, 0.0, {"wait": 0.0, "timing": 1.0}),
                case("b", 1, 0.0, {"wait": 0.0, "timing": 1.0}),
                case("c", 0, 1.0, {"wait": 0.0, "timing": 1.0})])
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(phase_trace.main(["x", f"one={first},{second}", f"two={both}"]),
                                 0)
            text = out.getvalue()
            self.assertIn("| one | 3 | 1 | 6.0 (2 commands) | 1.00x |", text)
            self.assertIn("| two | 3 | 2 | 2.0 | 3.00x |", text)

    def test_bad_input_is_exit_2_or_a_named_refusal(self):
        self.assertEqual(phase_trace.main(["x"]), 2)
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(phase_trace.main(["x", "a=/nonexistent/trace.jsonl"]), 2)
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.jsonl")
            with open(bad, "w", encoding="utf-8") as f:
                f.write("{not json\n")
            with self.assertRaises(SystemExit) as e:
                phase_trace.main(["x", f"a={bad}"])
            self.assertIn("bad.jsonl:1: not JSON", str(e.exception))


if __name__ == "__main__":
    unittest.main()
