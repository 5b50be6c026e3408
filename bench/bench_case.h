// What flashscope-bench decides about a case on the CPU, so that it is tested on any machine: the
// tolerance it verifies a case against before timing it. It is the suite's, exactly as
// `flashscope run` applies it (runner::ToleranceFor): a suite that loosens or tightens its
// tolerance gets the same verdict from both.
#pragma once

#include "common/problem.h"
#include "suites/suite.h"
#include "verify/tolerance.h"

namespace flashscope::bench {

verify::TolerancePolicy BenchTolerance(const suites::Suite& suite, const Problem& problem);

}  // namespace flashscope::bench
