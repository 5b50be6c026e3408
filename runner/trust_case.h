// The trust checks' part of running one case (docs/trust.md), between the runner's phases:
//   verify   the first launch on every input set is poisoned and verified (set 0 by the runner's
//            own verification, the others by VerifyOtherSets), each followed by a GPU check of
//            its output, whose hash feeds the determinism record;
//   time     the Timer's sample hooks: timed launch i reads input set i mod S, and before it the
//            output is re-poisoned or left holding the previous launch's result (a seeded coin,
//            so that a kernel cannot tell a checked launch from another: every one is checked);
//            after it, its output is checked on the GPU against its set's reference; then one
//            more launch is taken under CUPTI activity tracing (stream accounting);
//   profile  the work counters (profiler/work_counters.h) are collected beside any metrics;
//   finish   every check is decided (analysis/trust_checks.h) into the case's TrustRecord.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/problem.h"
#include "profiler/kernel_tracer.h"
#include "profiler/timing.h"
#include "profiler/work_counters.h"
#include "reports/report.h"
#include "analysis/trust_checks.h"
#include "verify/device_buffer.h"
#include "verify/workspace.h"

namespace flashscope::runner {

using LaunchFn = std::function<cudaError_t(cudaStream_t)>;

// The checks a suite switched off (suite.h, TrustSpec) and why.
struct TrustSettings {
  std::set<std::string> off;  // SwitchableTrustChecks(): "work" covers "precision" too
  std::string off_reason = "switched off in the suite file (trust.off)";
};

// The work evidence of one profiled launch: each counter of `set` read from `values` (by
// hardware name), converted to FLOPs.
reports::WorkInput WorkInputFrom(const profiler::WorkCounterSet& set,
                                 const std::map<std::string, double>& values, int kernels,
                                 bool l2_flushed, const Problem& problem);

// A traced sample in the report's terms: times in microseconds from the window's begin.
reports::TracedLaunch ToTracedLaunch(const profiler::TracedSample& t);

class TrustCase {
 public:
  // `launches[s]` launches the kernel on input set s of `ws` (one per set).
  TrustCase(const TrustSettings& settings, verify::Workspace& ws, std::vector<LaunchFn> launches,
            cudaStream_t stream, uint64_t seed);

  bool On(const std::string& check) const { return settings_.off.count(check) == 0; }

  // The launch every phase calls: that of the current input set.
  LaunchFn launch();

  // After the runner's verification of input set `set` (its first launch, on poisoned outputs):
  // keeps the set's verdict and element bound, and checks the output on the GPU for its hash.
  absl::Status AfterVerifiedLaunch(int set, const verify::VerificationResult& v);
  // Poisons and launches every other input set, and judges its output by the verification rule
  // on the GPU (synchronises `stream`); set 0 has the runner's full verification.
  absl::Status VerifyOtherSets(const verify::TolerancePolicy& policy);

  // The hooks of every timed launch (Timer::Time, and the traced sample).
  profiler::SampleHooks Hooks();

  // One more timed launch under CUPTI activity tracing; `tracer` may be null, with the reason.
  void Trace(profiler::Timer& timer, profiler::KernelTracer* tracer,
             const std::string& tracer_unavailable, bool cold);

  // The work counters' evidence, or why there is none; `cost_s` the profile's wall time.
  void SetWork(reports::WorkInput work, double cost_s);

  // Decides every check. `timing` may be null (timing failed).
  absl::StatusOr<reports::TrustRecord> Finish(const Problem& problem,
                                              const reports::Environment& env,
                                              const reports::TimingRecord* timing, bool cold);

 private:
  struct Pending {
    int launch;
    int set;
    bool poisoned;
  };
  bool PoisonBefore(int launch) const;
  absl::Status EnqueueCheck(int launch, int set, bool poisoned);
  absl::Status CollectChecks();

  TrustSettings settings_;
  verify::Workspace& ws_;
  std::vector<LaunchFn> launches_;
  cudaStream_t stream_;
  uint64_t seed_;
  int current_set_ = 0;

  std::vector<verify::ElementBound> bounds_;  // per input set
  std::vector<reports::InputSetVerdict> verdicts_;
  std::map<int, verify::ErrorStats> verified_stats_;  // GPU check of each set's first launch
  verify::DeviceBuffer slots_;                        // kSlots OutputCheckCounts
  std::vector<Pending> pending_;
  std::vector<reports::LaunchOutputCheck> checks_;
  int timed_launches_ = 0;
  int poisoned_launches_ = 0;
  Pending current_{0, 0, false};

  reports::TracedLaunch traced_;
  reports::WorkInput work_;
  std::map<std::string, double> cost_s_;  // per check: host time it added
};

}  // namespace flashscope::runner
