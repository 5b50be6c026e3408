// The trust checks' part of running one case (docs/trust.md), between the runner's phases:
//   verify   the verified launch reads inputs no launch has read (runner/fresh_inputs.h) and is
//            fully verified by the runner; its sampled check follows;
//   time     the Timer's hooks: before every warm-up and timed launch fresh inputs are generated
//            on the GPU from a seed drawn then, and the output is re-poisoned or left stale (a
//            seeded coin); after it, its output is checked on rows drawn then; one more launch is
//            taken under CUPTI activity tracing (stream accounting), fresh and checked alike;
//   profile  every counter pass reads fresh inputs and is checked (ProfileHooks); the work
//            counters (profiler/work_counters.h) and each pass's duration are kept;
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
#include "analysis/trust_checks.h"
#include "common/problem.h"
#include "profiler/kernel_tracer.h"
#include "profiler/timing.h"
#include "profiler/work_counters.h"
#include "reports/report.h"
#include "runner/fresh_inputs.h"
#include "runner/secret_seeds.h"
#include "verify/workspace.h"

namespace flashscope::runner {

using LaunchFn = std::function<cudaError_t(cudaStream_t)>;

// The checks a suite switched off (suite.h, TrustSpec) and why.
struct TrustSettings {
  std::set<std::string> off;  // SwitchableTrustChecks(): "work" covers "precision" too
  std::string off_reason = "switched off in the suite file (trust.off)";
};

// The work evidence of one profiled launch: each counter of `set` read from `values` (by
// hardware name), converted to FLOPs, and the screen's FP32 bound where `values` holds it and not
// the SASS-instrumented scalar counters (WorkScreen::scalar_instructions).
reports::WorkInput WorkInputFrom(const profiler::WorkCounterSet& set,
                                 const std::map<std::string, double>& values, int kernels,
                                 bool l2_flushed, const Problem& problem);

// The problem's dtype by name ("fp16", "bf16", "fp32", "e4m3"), as the precision contract names it.
std::string DTypeOf(const Problem& p);

// A traced sample in the report's terms: times in microseconds from the window's begin.
reports::TracedLaunch ToTracedLaunch(const profiler::TracedSample& t);

class TrustCase {
 public:
  // `launch` launches the kernel on `ws`'s buffers; `seed` keys the poison coin; `seeds` draws
  // the fresh inputs' and sampled rows' seeds.
  TrustCase(const TrustSettings& settings, verify::Workspace& ws, LaunchFn launch,
            cudaStream_t stream, uint64_t seed, SecretSeeds& seeds);

  bool On(const std::string& check) const { return settings_.off.count(check) == 0; }
  // Fresh inputs and sampled checks: on with timed_outputs (the check that judges them).
  bool Fresh() const { return On("timed_outputs"); }

  // The launch every phase calls.
  LaunchFn launch() { return launch_; }

  // Before the runner's verified launch (and its poison): inputs no launch has read.
  absl::Status BeforeVerifiedLaunch();
  // After the runner's verification of that launch: keeps its element bound for every later
  // check, and checks its own output on sampled rows.
  absl::Status AfterVerifiedLaunch(const verify::VerificationResult& v);

  // The hooks of every warm-up and timed launch (Timer::Time, and the traced sample).
  profiler::SampleHooks Hooks();
  // ab's pairs: the next timed launch reads buffer slot `slot` (the other side's draw), and the
  // slot the last launch was given.
  void UseSlotNext(int slot) { fresh_.UseSlotNext(slot); }
  int last_slot() const { return fresh_.last_slot(); }
  // Around each counter-collection pass: fresh inputs, the poison coin and `flush` (the L2
  // flush, last) before it; its sampled check after it.
  struct PassHooks {
    std::function<absl::Status()> before, after;
  };
  PassHooks ProfileHooks(std::function<absl::Status()> flush);

  // One more timed launch under CUPTI activity tracing; `tracer` may be null, with the reason.
  void Trace(profiler::Timer& timer, profiler::KernelTracer* tracer,
             const std::string& tracer_unavailable, bool cold);

  // The work counters' evidence, or why there is none; `cost_s` the profile's wall time.
  void SetWork(reports::WorkInput work, double cost_s);
  // Where the work check's cost went (profiler::ProfileResult's configure_s, passes_s,
  // decode_s, passes summed over the profiles), recorded beside its cost_s.
  void SetWorkCosts(std::vector<reports::TrustValue> breakdown) {
    work_costs_ = std::move(breakdown);
  }
  // The profiled launches' own durations (profiler::ProfileResult::pass_ms), or why they cannot
  // be compared with the timed ones.
  void SetProfiledDurations(std::vector<double> pass_ms, double kernel_ms,
                            std::string not_comparable_reason, std::string kernel_ms_basis = "");

  // Decides every check. `timing` may be null (timing failed).
  absl::StatusOr<reports::TrustRecord> Finish(const Problem& problem,
                                              const reports::Environment& env,
                                              const reports::TimingRecord* timing, bool cold);

 private:
  bool PoisonBefore(int launch) const;
  // Before/after a launch of `kind` when fresh inputs are on; host time goes to timed_outputs.
  absl::Status FreshBefore(const char* kind, int index, bool poison);
  absl::Status FreshAfter();

  TrustSettings settings_;
  verify::Workspace& ws_;
  LaunchFn launch_;
  cudaStream_t stream_;
  uint64_t seed_;
  FreshLaunches fresh_;
  int timed_launches_ = 0;
  int profiled_launches_ = 0;
  bool tracing_ = false;  // the hooks are those of the traced launch

  reports::TracedLaunch traced_;
  reports::WorkInput work_;
  reports::ProfiledDurationInput durations_;
  std::vector<reports::TrustValue> work_costs_;
  std::map<std::string, double> cost_s_;  // per check: host time it added
};

}  // namespace flashscope::runner
