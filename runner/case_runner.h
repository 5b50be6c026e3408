// Runs one case through every phase inside NVTX ranges: supports, inputs and reference (cached per
// problem), poisoned launch and verification, timing, resource usage and hardware metrics. Lives
// in flashscope-worker (runner/worker_run.h); a CUDA fault ends that process, not the run. The
// kernel is seen only through the plugin host's view (plugins/kernel.h) and bound to its buffers
// by runner/case_binding.h, as in every other tool.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "plugins/kernel.h"
#include "profiler/kernel_tracer.h"
#include "reports/report.h"
#include "suites/suite.h"

namespace flashscope::runner {

struct RunOptions {
  std::string metrics;   // "" = the suite's; else a metric spec for profiler::ResolveMetrics
  std::string dump_dir;  // "" = no .npy dumps; else one folder per case below it
};

// Called as a case enters each phase (suites/worker_protocol.h, protocol::phase), so that the
// supervisor can say where a worker died.
using PhaseObserver = std::function<void(const char* phase)>;

// One case to run: the kernel, the problem, and the result as planned (identity, facts,
// provenance: suites/plan_cases.h) that the runner fills in.
struct CaseToRun {
  int index = 0;
  std::string key;
  const plugins::Kernel* kernel = nullptr;
  Problem problem;
  reports::CaseResult planned;
};

class CaseRunner {
 public:
  // Fails with a clear status when there is no usable GPU.
  static absl::StatusOr<std::unique_ptr<CaseRunner>> Create(const suites::Suite& suite,
                                                            const RunOptions& options);
  ~CaseRunner();

  // Device description; with `measure_peaks` also the measured matmul and copy peaks.
  reports::Environment DescribeEnvironment(bool measure_peaks);
  // Peaks for % of peak; taken from a journal when a later worker resumes a run.
  void SetPeaks(const reports::MeasuredPeaks& peaks) { peaks_ = peaks; }
  void SetPhaseObserver(PhaseObserver observer) { observer_ = std::move(observer); }

  // Never throws; a CUDA error becomes status `error` with the error's name.
  reports::CaseResult Run(const CaseToRun& c);
  // True after an error that poisons the CUDA context (illegal address, trap...): the worker
  // must exit and let the supervisor start a fresh one.
  bool context_lost() const { return context_lost_; }

 private:
  struct State;
  struct Case;
  CaseRunner() = default;
  void Enter(const char* phase);
  bool Verify(Case& k);
  bool Time(Case& k);
  void QueryDeviceFunctions(Case& k);
  // Hardware counters of one launch: the metrics asked for (the case's profile) and the trust
  // checks' work counters, in the same passes.
  void Profile(Case& k);
  // The trust checks decide (docs/trust.md); the case's status and reason follow.
  reports::CaseResult Conclude(Case& k);
  // The activity tracer, created on first use; null when CUPTI cannot record (the reason stays
  // in the state).
  profiler::KernelTracer* Tracer();

  std::unique_ptr<State> state_;
  reports::MeasuredPeaks peaks_;
  PhaseObserver observer_;
  bool context_lost_ = false;
};

}  // namespace flashscope::runner
