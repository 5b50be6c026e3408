#include "bench/bench_case.h"

#include "runner/case_phases.h"

namespace flashscope::bench {

verify::TolerancePolicy BenchTolerance(const suites::Suite& suite, const Problem& problem) {
  return runner::ToleranceFor(problem, suite.verify);
}

}  // namespace flashscope::bench
