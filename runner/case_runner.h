// Runs one case through every phase inside NVTX ranges: supports, inputs and reference (cached per
// problem), poisoned launch and verification, timing, resource usage and hardware metrics. Lives
// in flashscope-worker (runner/worker_run.h); a CUDA fault ends that process, not the run. The
// kernel is seen only through the plugin host's view (plugins/kernel.h) and bound to its buffers
// by runner/case_binding.h, as in every other tool.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/trust_checks.h"
#include "plugins/kernel.h"
#include "profiler/cupti_profiler.h"
#include "profiler/kernel_tracer.h"
#include "profiler/timing_policy.h"
#include "reports/report.h"
#include "runner/host_threads.h"
#include "suites/suite.h"

namespace flashscope::verify {
class Workspace;
}  // namespace flashscope::verify

namespace flashscope::runner {

struct RunOptions {
  std::string metrics;   // "" = the suite's; else a metric spec for profiler::ResolveMetrics
  std::string dump_dir;  // "" = no .npy dumps; else one folder per case below it
};

// Called as a case enters each phase (protocol/worker_protocol.h, protocol::phase), so that the
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

// The same case of both sides of a `flashscope ab` comparison: one problem, one kernel per side.
struct PairToRun {
  CaseToRun base, next;
  uint64_t seed = 0;  // the coin that orders each pair (profiler/paired_sampling.h)
  // Sampling stops once the standard error of the median log-ratio is at or under this.
  double log_ratio_noise_target = 0;
};

// What the ab worker hears while a pair runs. Sides: 0 base, 1 new.
struct PairObserver {
  std::function<void(int side)> side;  // that side's kernel code is about to run
  // That side was verified: its result so far, to keep in case the session dies inside the pair.
  std::function<void(int side, const reports::CaseResult& so_far)> verified;
};

struct PairResult {
  reports::CaseResult base, next;
};

// At least this many pairs, whatever the suite's min_samples: fewer cannot reach p < 0.01 with the
// signed-rank test (8 is the least), and 20 give its interval room.
inline constexpr int kMinPairs = 20;

class CaseRunner {
 public:
  // Fails with a clear status when there is no usable GPU.
  static absl::StatusOr<std::unique_ptr<CaseRunner>> Create(const suites::Suite& suite,
                                                            const RunOptions& options);
  ~CaseRunner();

  // Device description; with `measure_peaks` also the measured matmul and copy peaks.
  reports::Environment DescribeEnvironment(bool measure_peaks);
  // This process's GPU as the run's device list holds it (supervisor's `index`), with the peaks
  // in use.
  reports::DeviceRecord DescribeDevice(int index) const;
  // Peaks for % of peak; taken from a journal when a later worker resumes a run.
  void SetPeaks(const reports::MeasuredPeaks& peaks) { peaks_ = peaks; }
  void SetPhaseObserver(PhaseObserver observer) { observer_ = std::move(observer); }
  // Hears the steps of each batched counter session (profiler::RangeProfiler::set_step_observer):
  // the phase trace's split of a settle. Set before the first case.
  void SetCounterStepObserver(PhaseObserver observer) { counter_steps_ = std::move(observer); }

  // Never throws; a CUDA error becomes status `error` with the error's name.
  reports::CaseResult Run(const CaseToRun& c);

  // Parking (runner/case_settle.cc, docs/trust.md "Cost"): the work counters of many cases
  // collected in one CUPTI session, whose fixed cost per pass is then paid once. With parking on,
  // RunOrPark runs a case up to its counters and parks it where they can be collected that way
  // (user replay, no metrics asked, hardware scope usable), else to its end. Only a worker whose
  // supervisor hands out several cases at once turns it on: a parked case is recorded only once
  // settled.
  void EnableParking(bool on);
  // The result when the case ended now; nullopt when it was parked.
  std::optional<reports::CaseResult> RunOrPark(const CaseToRun& c);
  size_t parked() const;
  // Whether the parked cases should be settled before `next` runs: kRoom when the batch is full
  // (a scalar kernel's cases may stay parked), kEverything when `next`'s problem would keep more
  // parked workspaces alive than their memory allowance.
  enum class SettleNeed { kNone, kRoom, kEverything };
  SettleNeed SettleBefore(const Problem& next) const;
  // Collects the counters of the parked cases in batched sessions and concludes each, calling
  // `settled` with each result in park order as it is concluded; `phase` hears each case's
  // steps (its key, protocol::phase) so that a death is blamed on the case whose code ran. With
  // `all` false, cases that need the instrumented counters (a scalar kernel's) stay parked for a
  // later settle until they fill half a batch or nothing else is parked, which saves changes of
  // profiler scope. Stops when the CUDA context is
  // lost (context_lost()): the case that lost it is concluded, the others are abandoned (the
  // supervisor runs them again in a fresh worker).
  using SettledFn = std::function<void(const CaseToRun& c, const reports::CaseResult& r)>;
  using CasePhaseFn = std::function<void(const std::string& key, const char* phase)>;
  void Settle(bool all, const SettledFn& settled, const CasePhaseFn& phase);
  // Both sides of an ab pair (case_runner_pair.cc): supports, one workspace, each side verified
  // on poisoned outputs, then both timed in interleaved pairs (Timer::TimePair: min pairs
  // max(timing.min_samples, kMinPairs), the time cap doubled for two kernels), device functions
  // and metrics per side. A side that cannot be run is recorded with the reason and the other
  // side still gets everything it can: timed alone when the first failed without harm, kept
  // verified but not timed when the CUDA context is lost.
  PairResult RunPair(const PairToRun& pair, const PairObserver& observer);
  // True after an error that poisons the CUDA context (illegal address, trap...), or when a case
  // left device state that cannot be put back (runner/case_isolation.h): the worker must exit
  // and let the supervisor start a fresh one.
  bool context_lost() const { return context_lost_; }

 private:
  struct State;
  struct Case;
  class SinglePhases;  // Run's phases (runner/case_phases.h)
  CaseRunner() = default;
  // Run's and RunOrPark's phases; the case is parked at Complete when `may_park`.
  std::unique_ptr<Case> RunPhases(const CaseToRun& c, bool may_park);
  void Enter(const char* phase);
  // The phases' steps. Each bool one is false when the case ended there (status set).
  bool Supported(Case& k);
  // Puts back the device state an earlier case left (runner/case_isolation.h); an error ends the
  // worker (context_lost), and the case with EndByIsolation.
  absl::Status RestoreIsolation();
  bool EndByIsolation(Case& k, const absl::Status& status);
  // The problem's workspace: inputs and reference, cached per problem (fresh seeds drawn here).
  absl::StatusOr<verify::Workspace*> Inputs(const Problem& problem);
  // Ends a case whose workspace could not be made (runner/case_phases.h, InputsEnding).
  bool EndByInputs(Case& k, const absl::Status& status);
  // Binds the case's kernel to `ws` (every input set) and starts its trust checks.
  void Bind(Case& k, verify::Workspace& ws);
  bool Prepare(Case& k);
  bool Verify(Case& k);
  bool Time(Case& k);
  // A timing that succeeded, into the case: the record, the throughput, the traced launch.
  void RecordTiming(Case& k, const profiler::TimingResult& t);
  // After timing: device functions, hardware counters, the trust checks' verdict.
  reports::CaseResult Complete(Case& k);
  // Both sides timed together (case_runner_pair.cc); false when a side failed (statuses set).
  bool TimeInterleaved(Case (&k)[2], const PairToRun& pair, const PairObserver& observer);
  // The sides still `live` after timing: device functions, metrics, their final status.
  void FinishSides(Case (&k)[2], const bool (&live)[2], const PairObserver& observer);
  void QueryDeviceFunctions(Case& k);
  // Hardware counters of one launch: the metrics asked for (the case's profile) and the trust
  // checks' work counters, in the same passes.
  void Profile(Case& k);
  // Profile's counter passes (case_profile.cc): hardware-counted first, everything when the
  // tensor paths fall short (at once for a kernel whose tensor paths fell short before); each pass
  // wrapped by `before_pass`/`after_pass`. Fills `pr` and `work`; returns the profiles' wall time.
  double CollectCounters(Case& k, const std::function<absl::Status()>& before_pass,
                         const std::function<absl::Status()>& after_pass,
                         reports::ProfileRecord* pr, reports::WorkInput* work);
  // The trust checks decide (docs/trust.md); the case's status and reason follow.
  reports::CaseResult Conclude(Case& k);
  // The integrity and isolation checks into the case's trust record (runner/harness_checks.h).
  absl::Status AddHarnessChecks(Case& k);
  // The worker's host threads as the case starts (runner/host_threads.h).
  void WatchThreads(Case& k);
  // The host threads the case started and left running (after a device synchronisation and the
  // grace period); the worker ends after a case that left one of its own.
  std::vector<LeftThread> ThreadsLeftBy(Case& k);
  // For a case that ended before its trust checks: a thread it left running makes it an error.
  void EndIfThreadsLeft(Case& k);
  // RunOrPark's and Settle's steps (runner/case_settle.cc).
  bool CanPark(Case& k);
  bool Park(Case& k);  // false when the case cannot be parked after all (concluded as usual)
  // One batched session per chunk of `cases` in `scope`; what each got into `profiles`, why it
  // got none into `failures`. False when the CUDA context was lost (that case concluded and
  // given to `settled`).
  bool ProfileParked(const std::vector<Case*>& cases, profiler::MetricScope scope,
                     std::map<Case*, std::vector<profiler::ProfileResult>>* profiles,
                     std::map<Case*, std::string>* failures, const SettledFn& settled,
                     const CasePhaseFn& phase, bool retrying_missing = false);
  profiler::BatchLaunch BatchLaunchOf(Case& k, const CasePhaseFn& phase);
  // A parked case's counters from its batched profiles (case_profile.cc), or why there are none.
  void TakeBatchedCounters(Case& k, const std::vector<profiler::ProfileResult>& profiles,
                           const std::string& failure);
  // Whether a case's tensor paths fell short of the work floor (a scalar kernel), remembered per
  // kernel and dtype so that its later cases collect every counter at once (case_profile.cc).
  bool TensorShort(Case& k, const profiler::ProfileResult& r);
  bool TensorShort(Case& k, const std::map<std::string, double>& values);
  // A batched case's work counts by hardware name from its sessions, in order: the screen's
  // paths when it was complete, then what later sessions counted; `counted_by` says which.
  std::map<std::string, double> BatchedWorkValues(
      const std::vector<profiler::ProfileResult>& profiles, std::string* counted_by) const;
  // Settle's sessions for `cases`: the screen first where it may stand for the full set, then
  // the full set for those it did not cover, then the scalar counters (case_settle.cc).
  bool ProfileSettling(const std::vector<Case*>& cases,
                       std::map<Case*, std::vector<profiler::ProfileResult>>* profiles,
                       std::map<Case*, std::string>* failures, const SettledFn& settled,
                       const CasePhaseFn& phase);
  // The range profiler, created on first use; null when it cannot work in this process (the
  // reason stays in the state).
  profiler::RangeProfiler* RangeProfilerOrNull();
  // The activity tracer, created on first use; null when CUPTI cannot record (the reason stays
  // in the state).
  profiler::KernelTracer* Tracer();

  std::unique_ptr<State> state_;
  reports::MeasuredPeaks peaks_;
  PhaseObserver observer_;
  PhaseObserver counter_steps_;
  bool context_lost_ = false;
};

}  // namespace flashscope::runner
