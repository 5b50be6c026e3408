#include "supervisor/run_window.h"

#include <algorithm>

namespace flashscope::suites {

bool WorkerParksCases(const std::string& metrics, const Suite& suite) {
  // The same choice as the worker's (runner/case_runner.cc): --metrics over the suite's.
  const std::string& spec = metrics.empty() ? suite.metrics : metrics;
  const bool no_metrics = spec.empty() || spec == "none";
  const bool work_on =
      std::find(suite.trust.off.begin(), suite.trust.off.end(), "work") == suite.trust.off.end();
  return no_metrics && work_on;
}

int RunWindow(const std::string& metrics, const Suite& suite) {
  return WorkerParksCases(metrics, suite) ? kRunWindow : 1;
}

}  // namespace flashscope::suites
