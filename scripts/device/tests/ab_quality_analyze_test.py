"""Tests of scripts/device/ab_quality_analyze.py on verdicts made up here: ab's verdict JSON as
`flashscope ab --json` writes it, and gate verdicts from a stand-in `flashscope` that answers
`gate BASE NEXT --json FILE [--policy P]` with a canned verdict (the analysis only reads them).
Run: python3 -m unittest -v ab_quality_analyze_test (from this folder; ctest does)."""

import json
import os
import stat
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import ab_quality_analyze as aqa  # noqa: E402


def ab_verdict(pairs, slowed, effect):
    cases = [{"key": f"k{i}", "verdict": "slower" if i < slowed else "same",
              "effect_pct": effect} for i in range(pairs)]
    cases.append({"key": "gone", "verdict": "not compared", "effect_pct": "nan"})
    failures = [{"key": f"k{i}", "rule": "slowdown", "message": ""} for i in range(slowed)]
    return {"exit_code": 1 if slowed else 0, "cases": cases, "failures": failures}


# A stand-in flashscope: the gate's verdict flags `SLOWED[next file name]` pairs of 50, and
# every pair with the 0.5 % policy when the next file is a run of the second 0 % build.
STUB = textwrap.dedent('''\
    #!/usr/bin/env python3
    import json, os, sys
    a = sys.argv[1:]
    assert a[0] == "gate", a
    base, nxt, out = a[1], a[2], a[a.index("--json") + 1]
    strict = "--policy" in a
    slowed = {"run-p0b.json": 6 if strict else 0, "run-p1.json": 30 if strict else 1,
              "run-p2.json": 50 if strict else 20, "run-p5.json": 50,
              "new.json": 3}[os.path.basename(nxt)]
    cases = [{"key": "k%d" % i, "verdict": "slower" if i < slowed else "same",
              "delta_pct": 0.7 if i < slowed else 0.1} for i in range(50)]
    fails = [{"key": "k%d" % i, "rule": "slowdown", "message": ""} for i in range(slowed)]
    fails.append({"key": "k49", "rule": "verification", "message": "x"}) if "p5" in nxt else None
    json.dump({"exit_code": 1 if fails else 0, "cases": cases, "failures": fails}, open(out, "w"))
    sys.exit(1 if fails else 0)
    ''')


class AnalyzeTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.fs = os.path.join(self.dir, "flashscope")
        with open(self.fs, "w") as f:
            f.write(STUB)
        os.chmod(self.fs, os.stat(self.fs).st_mode | stat.S_IEXEC)
        for name, slowed, effect in (("aa", 0, 0.02), ("1", 50, 1.01), ("2", 50, 2.0),
                                     ("5", 50, 5.0)):
            aqa.write(os.path.join(self.dir, f"ab-{name}.verdict.json"),
                      ab_verdict(50, slowed, effect))
            os.makedirs(os.path.join(self.dir, f"ab-{name}"))
            for side in ("base", "new"):
                aqa.write(os.path.join(self.dir, f"ab-{name}", f"{side}.json"), {})
        for build in ("p0", "p0b", "p1", "p2", "p5"):
            aqa.write(os.path.join(self.dir, f"run-{build}.json"), {})

    def tearDown(self):
        self.tmp.cleanup()

    def test_every_method_and_condition(self):
        r = aqa.collect(self.fs, self.dir)
        self.assertEqual(aqa.cell(r["ab"]["aa"]), "0 / 50 (0 %)")
        self.assertEqual(aqa.cell(r["ab"]["1"]), "50 / 50 (100 %)")
        self.assertEqual(r["ab"]["1"]["pairs"], 50, "a case not compared is not a pair")
        self.assertAlmostEqual(r["ab"]["1"]["median_change_pct"], 1.01)
        self.assertEqual(aqa.cell(r["runs_gate"]["aa"]), "0 / 50 (0 %)")
        self.assertEqual(aqa.cell(r["runs_gate"]["1"]), "1 / 50 (2 %)")
        self.assertEqual(aqa.cell(r["runs_gate_05"]["aa"]), "6 / 50 (12 %)")
        self.assertEqual(aqa.cell(r["ab_reports_gate_05"]["2"]), "3 / 50 (6 %)")
        self.assertEqual(r["runs_gate"]["5"]["other_failures"], {"verification": [1, "k49"]})
        self.assertTrue(os.path.exists(os.path.join(self.dir, "policy-0.5pct.json")))
        md = aqa.markdown(r, "NVIDIA H100, 580", "scripts/device/ab-quality.sh build")
        self.assertIn("| ab: interleaved pairs, signed-rank test, 0.5 % | 0 / 50 (0 %) | "
                      "50 / 50 (100 %) |", md)
        self.assertIn("+1.01 %", md)
        self.assertIn("- runs_gate 5: 1 verification (e.g. k49)", md)

    def test_what_did_not_run_says_so(self):
        os.remove(os.path.join(self.dir, "ab-2.verdict.json"))
        os.remove(os.path.join(self.dir, "run-p5.json"))
        r = aqa.collect(self.fs, self.dir)
        self.assertEqual(aqa.cell(r["ab"]["2"]), "not run")
        self.assertEqual(aqa.cell(r["runs_gate"]["5"]), "not run")
        self.assertIn("not run", aqa.markdown(r, "", ""))


if __name__ == "__main__":
    unittest.main()
