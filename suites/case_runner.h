// Runs one planned case through every phase inside NVTX ranges: inputs and reference (cached per
// problem), poisoned launch and verification, timing, resource usage and hardware metrics. Lives
// in the worker process (suites/worker.h); a CUDA fault ends that process, not the run.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "profiler/kernel_tracer.h"
#include "reports/report.h"
#include "suites/plan.h"
#include "suites/suite.h"

namespace flashscope::suites {

struct RunOptions {
  std::string metrics;   // "" = none, else a metric spec for profiler::ResolveMetrics
  std::string dump_dir;  // "" = no .npy dumps; else one folder per case below it
};

class TrustCase;

class CaseRunner {
 public:
  // Fails with a clear status when there is no usable GPU.
  static absl::StatusOr<std::unique_ptr<CaseRunner>> Create(const Suite& suite,
                                                            const RunOptions& options);
  ~CaseRunner();

  // Device description; with `measure_peaks` also the measured matmul and copy peaks.
  reports::Environment DescribeEnvironment(bool measure_peaks);
  // Peaks for % of peak; taken from a journal when a later worker resumes a run.
  void SetPeaks(const reports::MeasuredPeaks& peaks) { peaks_ = peaks; }

  // Never throws; a CUDA error becomes status `error` with the error's name.
  reports::CaseResult Run(const PlannedCase& c);
  // True after an error that poisons the CUDA context (illegal address, trap...): the worker
  // must exit and let the supervisor start a fresh one.
  bool context_lost() const { return context_lost_; }

 private:
  struct State;
  CaseRunner() = default;
  // The activity tracer, created on first use; null when CUPTI cannot record (the reason stays
  // in the state).
  profiler::KernelTracer* Tracer();
  // Hardware counters of one launch: the metrics asked for (r->profile) and the trust checks'
  // work counters (handed to `trust`), in the same passes.
  void Profile(const PlannedCase& c, const std::function<cudaError_t(cudaStream_t)>& launch,
               reports::CaseResult* r, TrustCase* trust);
  std::unique_ptr<State> state_;
  reports::MeasuredPeaks peaks_;
  bool context_lost_ = false;
};

}  // namespace flashscope::suites
