// The phases of measuring one case, as a small interface (the CUTLASS profiler's operation
// profilers share one: initialise, verify, profile, report), so that every path that runs a case
// reads the same way and keeps the same rules: `flashscope run` (CaseRunner::Run), the two sides
// of `flashscope ab` (CaseRunner::RunPair, which runs each side's phases and times the two
// together) and flashscope-bench (bench/bench_main.cc, whose measurement is Google Benchmark's
// loop). Free of CUDA headers: the rules shared by the three (the tolerance, how a failed
// workspace ends a case) are tested on any machine.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "common/problem.h"
#include "reports/report.h"
#include "suites/suite.h"
#include "verify/tolerance.h"

namespace flashscope::runner {

class CasePhases {
 public:
  virtual ~CasePhases() = default;
  // Each phase returns false when the case ended in it (its status and reason are set then).
  virtual bool Supports() = 0;  // the kernel's supports(problem): skipped with its reason
  virtual bool Inputs() = 0;    // the problem's inputs and reference (InputsEnding on failure)
  virtual bool Prepare() = 0;   // the kernel's one-time work, before any verified or timed launch
  virtual bool Verify() = 0;    // a launch on poisoned outputs, checked against the reference
  virtual bool Measure() = 0;   // timing: the samples (run), the benchmark's iterations (bench)
  virtual void Complete() = 0;  // what follows a measurement: counters, the verdict
};

// Runs the phases in order and stops at the first that ends the case; true when all ran.
bool RunCasePhases(CasePhases& phases);

// The tolerance a case is verified against: the family and dtype's default (verify/tolerance.h)
// with the suite's overrides (docs/suites.md, "verify"). Every path that verifies a case of a
// suite uses it: run, ab and flashscope-bench.
verify::TolerancePolicy ToleranceFor(const Problem& problem, const suites::VerifySpec& spec);

// How a workspace that could not be made ends a case: a problem too large for the GPU's memory
// (ResourceExhausted) is skipped with the reason; anything else is an error of the inputs or the
// reference.
struct Ending {
  reports::CaseStatus status = reports::CaseStatus::kError;
  std::string reason;
};
Ending InputsEnding(const absl::Status& workspace_status);

}  // namespace flashscope::runner
