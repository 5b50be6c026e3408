#!/usr/bin/env python3
"""Tests of devices_interference.py on made-up reports (no GPU): the equivalence checks (statuses,
the device index, nvidia-smi's UUID), the alone/busy comparison and the wall times.

Run: python3 -m unittest -v devices_interference_test (from this folder; ctest does), or
python3 scripts/device/tests/devices_interference_test.py from the repository root."""

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import devices_interference  # noqa: E402

UUID0 = "GPU-8932f937-d72c-4106-c12f-20bd9faed9f6"


def report(medians, device=None, uuid="", clocks=None, statuses=None, started="2026-01-01T00:00:00Z",
           finished="2026-01-01T00:01:40Z", devices=()):
    cases = []
    for i, (key, ms) in enumerate(medians.items()):
        kernel, problem = key.split(" ", 1)
        c = {"kernel_id": kernel, "problem_key": problem,
             "status": (statuses or {}).get(key, "passed"),
             "timing": {"median_ms": ms, "median_sm_clock_mhz": (clocks or {}).get(key, 1980)}}
        if device is not None:
            c["device"] = device
            c["device_uuid"] = uuid
        cases.append(c)
    return {"environment": {"started_at": started, "finished_at": finished,
                            "devices": [{"index": i, "uuid": u} for i, u in enumerate(devices)]},
            "cases": cases}


class DevicesInterferenceTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, content):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(content if isinstance(content, str) else json.dumps(content))
        return path

    def run_main(self, argv):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = devices_interference.main(argv)
        return rc, out.getvalue()

    def test_equivalence_passes_when_statuses_devices_and_uuids_agree(self):
        plain = self.write("p.json", report({"k p1": 1.0, "k p2": 2.0}))
        plain2 = self.write("p2.json", report({"k p1": 1.01, "k p2": 2.0}))
        dev0 = self.write("d.json", report({"k p1": 1.02, "k p2": 1.96}, 0, UUID0, devices=[UUID0]))
        smi = self.write("smi.txt", f"0, {UUID0}\n")
        rc, out = self.run_main(["equivalence", "--plain", plain, "--devices0", dev0,
                                 "--plain2", plain2, "--smi-uuids", smi])
        self.assertEqual(rc, 0, out)
        self.assertIn("median |difference| 2.00 %, largest 2.00 % over 2 timed cases", out)
        self.assertIn("run to run, plain -> plain again: median |difference| 0.50 %", out)
        self.assertIn("| `k p2` | 2.0000 | 1.9600 | -2.00 % | 1980 | 1980 |", out)
        self.assertIn("equivalence: statuses, devices and UUIDs agree", out)

    def test_equivalence_fails_on_another_status_device_or_gpu(self):
        plain = self.write("p.json", report({"k p1": 1.0, "k p2": 2.0}))
        dev0 = self.write("d.json", report({"k p1": 1.0, "k p2": 2.0}, 1, "GPU-other",
                                           statuses={"k p2": "failed"}))
        smi = self.write("smi.txt", f"0, {UUID0}\n1, GPU-other\n")
        rc, out = self.run_main(["equivalence", "--plain", plain, "--devices0", dev0,
                                 "--smi-uuids", smi])
        self.assertEqual(rc, 1)
        self.assertIn("FAIL: k p2: passed plain, failed with --devices 0", out)
        self.assertIn("FAIL: k p1: recorded device 1, not 0", out)
        self.assertIn(f"ran on GPU-other, nvidia-smi's GPU 0 is {UUID0}", out)

    def test_interference_compares_busy_with_alone_and_the_run_to_run_difference(self):
        alone = self.write("a.json", report({"k p1": 1.0, "k p2": 4.0}, 0, UUID0))
        busy = self.write("b.json", report({"k p1": 1.03, "k p2": 4.2}, 0, UUID0,
                                           clocks={"k p1": 1900, "k p2": 1850}))
        alone2 = self.write("a2.json", report({"k p1": 1.01, "k p2": 4.0}, 0, UUID0))
        rc, out = self.run_main(["interference", "--alone", alone, "--busy", busy,
                                 "--alone2", alone2])
        self.assertEqual(rc, 0)
        self.assertIn("median |difference| 4.00 %, largest 5.00 % over 2 timed cases", out)
        self.assertIn("busy minus alone: median -105 MHz, range -130 .. -80 MHz", out)
        self.assertIn("interference exceeds the run-to-run difference (medians of |difference|: "
                      "4.00 % vs 0.50 %)", out)

    def test_untimed_cases_are_left_out(self):
        alone = report({"k p1": 1.0, "k p2": 2.0})
        alone["cases"][1]["timing"] = None
        a = self.write("a.json", alone)
        b = self.write("b.json", report({"k p1": 1.0, "k p2": 2.0}))
        _, out = self.run_main(["interference", "--alone", a, "--busy", b])
        self.assertIn("over 1 timed cases", out)

    def test_wall_times_add_up_over_shards(self):
        one = [self.write("o1.json", report({"k p1": 1}, finished="2026-01-01T00:05:00Z")),
               self.write("o2.json", report({"k p2": 1}, finished="2026-01-01T00:03:20Z"))]
        both = self.write("all.json", report({"k p1": 1, "k p2": 1}, 0, UUID0,
                                             finished="2026-01-01T00:04:00Z",
                                             devices=[UUID0, "GPU-b"]))
        rc, out = self.run_main(["wall", "--one", *one, "--all", both])
        self.assertEqual(rc, 0)
        self.assertIn("one GPU: 500 s (2 runs), all 2 GPUs: 240 s (1 run), 2 cases; speed-up "
                      "2.08x", out)


if __name__ == "__main__":
    unittest.main()
