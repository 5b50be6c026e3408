"""scripts/check_layering.py on this tree: it passes as the tree is, fails on each kind of planted
forbidden include (so that it can fail), and docs/architecture.md shows the rules it checks."""

import subprocess
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check_layering.py"
sys.path.insert(0, str(SCRIPT.parent))
import check_layering  # noqa: E402


def check(*plants):
    args = [sys.executable, str(SCRIPT), "--root", str(ROOT)]
    for p in plants:
        args += ["--plant", p]
    return subprocess.run(args, capture_output=True, text=True)


class CheckLayering(unittest.TestCase):
    def test_the_tree_as_it_is_passes(self):
        r = check()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("0 forbidden", r.stdout)

    def assert_forbidden(self, plant, why):
        r = check(plant)
        self.assertEqual(r.returncode, 1, f"{plant} passed:\n{r.stdout}{r.stderr}")
        self.assertIn("LAYERING " + plant.split(":")[0], r.stdout)
        self.assertIn(why, r.stdout)
        self.assertIn("1 forbidden", r.stdout)

    def test_outputs_may_not_include_kernels_or_profiler(self):
        self.assert_forbidden("cli/main.cc:kernels/registry.h", "cli/ may not depend on kernels/")
        self.assert_forbidden("reports/journal.cc:profiler/timing.h",
                              "reports/ may not depend on profiler/")
        self.assert_forbidden("render/render_html.cc:kernels/registry.h",
                              "render/ may not depend on kernels/")
        self.assert_forbidden("viewer/app.cc:profiler/metric_catalogue.h",
                              "viewer/ may not depend on profiler/")

    def test_the_report_layers_depend_one_way(self):
        self.assert_forbidden("reports/journal.cc:analysis/gate.h",
                              "reports/ may not depend on analysis/")
        self.assert_forbidden("analysis/gate.cc:render/render.h",
                              "analysis/ may not depend on render/")
        self.assert_forbidden("protocol/worker_protocol.cc:supervisor/supervisor.h",
                              "protocol/ may not depend on supervisor/")
        self.assert_forbidden("supervisor/supervisor.cc:runner/case_runner.h",
                              "supervisor/ may not depend on runner/")

    def test_the_supervisor_may_not_include_plugin_or_runner_code(self):
        self.assert_forbidden("suites/suite.cc:plugins/kernel.h", "suites/ may not depend on plugins/")
        self.assert_forbidden("suites/suite.cc:runner/case_runner.h",
                              "suites/ may not depend on runner/")

    def test_cpu_only_components_may_not_include_cuda(self):
        self.assert_forbidden("suites/suite.cc:<cuda_runtime.h>", "suites/ builds without CUDA")
        self.assert_forbidden("reports/journal.cc:<cupti_target.h>", "reports/ builds without CUDA")
        self.assert_forbidden("analysis/summary.cc:<cuda_runtime.h>",
                              "analysis/ builds without CUDA")
        self.assert_forbidden("viewer/app.cc:<cuda.h>", "viewer/ builds without CUDA")
        # common/'s plain headers stay free of CUDA; its .cuh is for CUDA code only.
        self.assert_forbidden("common/problem.h:common/element_convert.cuh",
                              "common/ builds without CUDA")

    def test_lower_layers_may_not_include_higher_ones(self):
        self.assert_forbidden("kernels/registry.h:verify/heatmap.h",
                              "kernels/ may not depend on verify/")
        self.assert_forbidden("common/problem.h:reports/report.h", "common/ may not depend on reports/")

    def test_a_test_gets_only_its_folders_extras(self):
        self.assertEqual(check("python/tests/python_bridge_gpu_test.cc:cli/args.h").returncode, 0)
        self.assert_forbidden("render/tests/golden_test.cc:kernels/registry.h",
                              "render/ may not depend on kernels/")
        # The viewer's tests may include render/ (the chart parity test); the viewer may not.
        self.assertEqual(check("viewer/tests/chart_parity_test.cc:render/render_html.h").returncode,
                         0)
        self.assert_forbidden("viewer/app.cc:render/render_html.h",
                              "viewer/ may not depend on render/")

    def test_shared_test_helpers_are_for_tests_only(self):
        self.assertEqual(check("verify/tests/heatmap_test.cc:common/tests/cuda_assert.h").returncode,
                         0)
        self.assert_forbidden("verify/heatmap.cc:common/tests/cuda_assert.h",
                              "verify/ may not depend on common/tests/")

    def test_a_plant_in_an_unknown_file_is_a_usage_error(self):
        r = check("no/such/file.cc:kernels/registry.h")
        self.assertEqual(r.returncode, 2)
        self.assertIn("FILE a tracked source file", r.stderr)

    def test_architecture_doc_shows_the_rules_checked(self):
        doc = (ROOT / "docs" / "architecture.md").read_text()
        begin, end = "<!-- layering: begin", "<!-- layering: end -->"
        self.assertIn(begin, doc)
        block = doc[doc.index(begin):doc.index(end)]
        block = block[block.index("\n") + 1:]
        self.assertEqual(block, check_layering.markdown(),
                         "docs/architecture.md's layering table differs from "
                         "scripts/check_layering.py --markdown: paste the latter between the markers")


if __name__ == "__main__":
    unittest.main()
