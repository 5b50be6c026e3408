// Hardware metrics of one case with the CUDA 13 Range Profiler (cupti_range_profiler.h +
// cupti_profiler_host.h). Ranges are CUPTI's auto ranges, one per kernel, as Nsight Compute
// measures: a user range around the whole launch would count the launch latency and the idle
// gaps between kernels as elapsed cycles and understate every "% of peak over elapsed cycles"
// (measured: dram_pct 69.9 vs ncu's 80.9 on a copy kernel, results/device/20261122-h200). A case
// that launches several kernels gets each metric combined over its kernels (kernel_combine.h).
//
// Replay: an idempotent implementation is relaunched by us once per pass (user replay), with
// `before_pass` (the runner's L2 flush) before each, so every pass sees the same cold cache. One
// that is not idempotent (KernelInfo::idempotent == false) uses CUPTI's kernel replay: launched
// once, CUPTI saves and restores the memory each kernel touches between its passes. User replay
// runs passes until CUPTI says every pass was submitted, up to a bound no schedule exceeds
// (profiler/cupti_profiler_passes.h); each config image comes from a CUPTI host object of its
// own, and a change of config enables the range profiler object afresh.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "profiler/metric_catalogue.h"

namespace flashscope::profiler {

class CuptiMetricHost;

enum class Replay {
  kUser,    // we relaunch per pass (idempotent launches)
  kKernel,  // CUPTI replays each kernel, restoring its memory (any launch)
};

const char* ReplayName(Replay replay);  // "user", "kernel"

// Which of a profiler's metrics one Profile() collects.
enum class MetricScope {
  kAll,       // every metric given to Create() as `metrics`
  kHardware,  // only those counted in hardware: SASS-instrumented metrics (names with "__sass_")
              // left out, so that each pass runs the kernel as it is, at its own speed
  kScreen,    // the `screen` metrics given to Create() (the work evidence's first stage,
              // profiler/work_counters.h); never part of kAll or kHardware
  kScalar,    // the SASS-instrumented metrics of `metrics` alone, in one pass: no time counted,
              // batched sessions only (ProfileBatch), after the launches' screen
};

// True for a metric CUPTI collects by instrumenting the kernel's SASS (slower passes).
bool IsInstrumentedMetric(const std::string& hw_name);

// Where one user-replay pass's host time went (seconds): the before hook (fresh inputs, L2
// flush), draining the stream, CUPTI's Start (and PushRange), the launch with its events and the
// wait for it, CUPTI's Stop (and PopRange), and the after hook (the output check).
struct PassHostSeconds {
  double before = 0, drain = 0, start = 0, launch = 0, stop = 0, after = 0;
};

// How a user-replay pass delimits what it counts.
enum class RangeMode {
  kAuto,  // one auto range per kernel (CUPTI's choice of boundaries; exact per-kernel ratios)
  kUser,  // one user range around the launch (sums exact; ratios count host gaps as elapsed)
};

struct ProfileResult {
  std::vector<std::pair<MetricDef, double>> values;  // in the order of the metrics given
  int passes = 0;   // replay passes: launches by us (user replay), or CUPTI's count (kernel)
  int kernels = 0;  // auto ranges recorded, i.e. kernels of one launch (0: one user range)
  Replay replay = Replay::kUser;
  std::string ranges = "one auto range per kernel";  // or why the whole launch was one range
  double wall_s = 0;  // host wall time of Profile(), all passes and decoding included
  MetricScope scope = MetricScope::kAll;
  bool instrumented = false;    // an instrumented metric was collected (passes ran slower)
  std::vector<double> pass_ms;  // each pass's launch, start to stop event (user replay)
  std::vector<PassHostSeconds> pass_host;  // each pass's host time, by step (user replay)
  // GPU time of the launch's kernels as CUPTI measured it (gpu__time_duration.sum over the
  // kernels): no host gaps, unlike pass_ms, which holds CUPTI's per-launch host work too. In a
  // batched session (one user range per launch, whose duration holds the host's gaps between
  // the launch's API calls) it is the busiest SM's active time instead: kernel_ms_basis says.
  double kernel_ms = 0;
  std::string kernel_ms_basis = "their kernels' GPU time (CUPTI gpu__time_duration)";
  // Where wall_s went (host seconds): the sync before, enabling and configuring (counter-data
  // image, SetConfig); the passes (hooks, launches, Start/Stop); decoding and evaluating.
  double configure_s = 0, passes_s = 0, decode_s = 0;
  // Of configure_s: enabling the object (first call, or a change of scope or replay), and
  // cuptiRangeProfilerSetConfig (the counter-data image initialised with it).
  double enable_s = 0, set_config_s = 0;
};

// One launch of a batched session (RangeProfiler::ProfileBatch): its hooks run in every pass,
// outside its range (`before`'s queued work drains before the range opens).
struct BatchLaunch {
  std::function<absl::Status()> before;  // may be empty
  std::function<cudaError_t(cudaStream_t)> launch;
  std::function<absl::Status()> after;  // may be empty
};

// The counters of a batched session, per launch.
struct BatchProfile {
  // In the order given: the launch's counters over its own user range (values, pass_ms,
  // kernel_ms; kernels 0), with the session's cost shared equally (wall_s and its parts); NotFound
  // when its range recorded nothing (a launch that enqueued no kernel).
  std::vector<absl::StatusOr<ProfileResult>> launches;
  absl::Status status;  // the session's failure (then `launches` is empty), or OK
  int failed = -1;      // the launch whose hook or launch failed; -1: the profiler's own failure
  double wall_s = 0;    // host wall time of the whole session
  int passes = 0;
  // Where the passes' host time went, summed over passes and launches: the launches' hooks
  // (before: fresh inputs, L2 flush, ...; after: their checks), draining the stream before each
  // range, CUPTI's Start/Stop and Push/Pop, the launches with their waits.
  PassHostSeconds host;
};

class RangeProfiler {
 public:
  // Checks that the device supports range profiling and that counters are permitted, checks
  // every metric name against CUPTI's tables for this chip (an unknown one is named), and
  // builds the config image. Errors say why and how to fix it (ERR_NVGPUCTRPERM, unsupported
  // device, CUPTI libraries missing); the runner then records "metrics unavailable: <message>".
  // `screen`: what kScreen collects (counted in hardware; names may repeat some of `metrics`,
  // which kAll and kHardware collect).
  static absl::StatusOr<std::unique_ptr<RangeProfiler>> Create(
      const std::vector<MetricDef>& metrics, int device = 0,
      const std::vector<MetricDef>& screen = {});
  ~RangeProfiler();
  RangeProfiler(const RangeProfiler&) = delete;
  RangeProfiler& operator=(const RangeProfiler&) = delete;

  // Runs all passes over `launch` on `stream` and evaluates the metrics, combined over the
  // kernels of one launch. `before_pass` may be empty; with kernel replay it runs once. A launch
  // error returns the CUDA error name; a launch of more than kMaxKernelsPerLaunch kernels is an
  // error naming the limit; a launch that enqueued no kernel is NotFound.
  // `after_pass` (may be empty) runs after each pass, outside the profiled range: e.g. a check
  // of the pass's output. With `scope` kHardware only the metrics counted in hardware are
  // collected (fewer passes, none instrumented); the result then holds those alone.
  absl::StatusOr<ProfileResult> Profile(const std::function<cudaError_t(cudaStream_t)>& launch,
                                        const std::function<absl::Status()>& before_pass,
                                        cudaStream_t stream, Replay replay = Replay::kUser,
                                        const std::function<absl::Status()>& after_pass = {},
                                        MetricScope scope = MetricScope::kAll);
  // The counters of several idempotent launches in one user-replay session (docs/trust.md,
  // "Cost"): each pass runs every launch in order, each inside a user range of its own, with its
  // hooks around it; the passes' fixed host cost (CUPTI's Start and Stop, ~3.5-33 ms a pass on
  // an H200) is paid once for all of them. At most kMaxBatchLaunches launches. User ranges, not
  // auto ranges: each launch's sums are exact, per-kernel ratios are not asked for here.
  BatchProfile ProfileBatch(const std::vector<BatchLaunch>& launches, cudaStream_t stream,
                            MetricScope scope);
  static constexpr int kMaxBatchLaunches = 512;
  // True when the profiler object is enabled for `scope` under `replay`: a Profile() of that
  // scope then pays no re-enable (a change of scope or replay enables afresh, ~0.2 s).
  bool enabled_for(MetricScope scope, Replay replay, bool batch = false) const {
    return object_ != nullptr && object_replay_ == replay && object_batch_ == batch &&
           object_scope_ == ScopeIndex(scope);
  }
  // True when some metric is instrumented and some is not: kHardware then collects less.
  bool has_hardware_subset() const { return hw_scope_ >= 0; }
  // True when `scope` collects metrics of its own: kAll always; kHardware with a subset; kScreen
  // with screen metrics given; kScalar with some instrumented metric.
  bool has_scope(MetricScope scope) const;
  // The passes CUPTI's config says a scope needs (kHardware is kAll where there is no subset).
  int PassesNeeded(MetricScope scope = MetricScope::kAll) const {
    const int i = ScopeIndex(scope);
    return i < 0 ? 0 : scopes_[static_cast<size_t>(i)].passes_needed;
  }
  // Auto ranges one counter-data image holds: kernels one profiled launch may enqueue.
  static constexpr int kMaxKernelsPerLaunch = 64;
  // Ranges one counter-data image is sized for: a launch's auto ranges or a batch's user ranges.
  static constexpr int kCounterDataRanges =
      kMaxKernelsPerLaunch > kMaxBatchLaunches ? kMaxKernelsPerLaunch : kMaxBatchLaunches;

  const std::string& chip() const { return chip_; }

  // User replay's ranges from the next Profile() on (kAuto by default; kUser where CUPTI refuses
  // auto ranges). flashscope-metric-probe --mode pass-cost measures what each costs.
  void set_range_mode(RangeMode mode) { range_mode_ = mode; }
  // Whether a change of scope between calls enables the object afresh (~0.22 s on an H200) or
  // only sets the other scope's config on it. Only the probe sets false (flashscope-metric-probe
  // --mode pass-cost, alternate_scopes): on CUDA 13.0 the next session then ran fewer passes than
  // its config and the one after failed in CUPTI (results/device/20261128-h200x2-session4/).
  void set_reenable_on_scope_change(bool reenable) { reenable_on_scope_change_ = reenable; }
  // Hears each step of a batched session as it begins ("counters_sync", "counters_enable",
  // "counters_config", "counters_start", "counters_push", "counters_launch", "counters_pop",
  // "counters_after", "counters_stop", "counters_decode"; the launches' `before` hooks say their
  // own): the worker's phase trace (runner/phase_trace.h) splits a settle's time by them. Empty
  // (the default) costs nothing.
  void set_step_observer(std::function<void(const char*)> observer) {
    step_observer_ = std::move(observer);
  }

 private:
  RangeProfiler() = default;
  // One set of metrics a Profile() collects: scopes_[0] every metric, then the hardware-counted
  // ones (when some are instrumented). Each has a CUPTI host object of its own: a host object
  // adds the metrics of every ConfigImage call to those of the calls before (measured: the
  // hardware-only stage ran 13 passes where the full image said 7).
  struct Scope {
    std::vector<size_t> metric_index;  // into metrics_
    std::vector<std::string> names;    // what CUPTI collects: theirs, then gpu__time_duration.sum
    std::unique_ptr<CuptiMetricHost> host;  // built config_image; evaluates this scope's data
    std::vector<uint8_t> config_image;
    int passes_needed = 0;
    int one_at_a_time = 0;  // OneAtATimePasses, once computed
    bool instrumented = false;
    // False for kScalar: no time counters beside the instrumented ones, which would cost a pass
    // of their own (its sessions follow the screen's, which measured the launches' time).
    bool timed = true;
    std::vector<uint8_t> counter_data;  // sized when the profiler object is enabled for it
  };
  absl::StatusOr<Scope> MakeScope(std::vector<size_t> metric_index, bool timed = true) const;
  int ScopeIndex(MetricScope scope) const;  // -1: kScreen or kScalar without metrics
  MetricScope ScopeAt(int index) const;
  absl::Status ScopeMissing(MetricScope scope) const;  // OK when `scope` has an index
  Scope& ScopeOf(const ProfileResult& r) { return scopes_[ScopeIndex(r.scope)]; }
  absl::StatusOr<ProfileResult> ProfileEnabled(
      const std::function<cudaError_t(cudaStream_t)>& launch,
      const std::function<absl::Status()>& before_pass,
      const std::function<absl::Status()>& after_pass, cudaStream_t stream, Replay replay,
      MetricScope scope);
  // ProfileEnabled's steps, in order: the range profiler object enabled for `replay` (kept
  // across calls) with its counter-data image sized; the image initialised and the config set
  // (true: CUPTI refused per-kernel auto ranges and one user range is measured, said in
  // result->ranges); the replay passes; the counters decoded and combined over the kernels.
  // `batch`: the object serves batched sessions (user ranges) — a change between those and
  // single launches (auto ranges) enables afresh, as a change of scope does.
  absl::Status EnsureEnabled(Replay replay, int scope_index, bool batch = false);
  absl::StatusOr<bool> Configure(Replay replay, ProfileResult* result);
  absl::Status RunPasses(const std::function<cudaError_t(cudaStream_t)>& launch,
                         const std::function<absl::Status()>& before_pass,
                         const std::function<absl::Status()>& after_pass, cudaStream_t stream,
                         Replay replay, bool user_range, ProfileResult* result);
  // One Start/launch/Stop pass with its hooks; true when CUPTI says every pass was submitted.
  absl::StatusOr<bool> RunOnePass(const std::function<cudaError_t(cudaStream_t)>& launch,
                                  const std::function<absl::Status()>& before_pass,
                                  const std::function<absl::Status()>& after_pass,
                                  cudaStream_t stream, bool user_range, ProfileResult* result);
  // The replay loop's bound (profiler/cupti_profiler_passes.h): the passes of the scope's
  // metrics, each collected on its own; computed once per scope, when first needed.
  absl::StatusOr<int> OneAtATimePasses(Scope& scope);
  // The kernels of a session that has not finished all its passes, by their auto ranges' names.
  std::string KernelsOfUnfinishedSession();
  std::vector<std::string> RangeNames() const;  // of the decoded counter-data image
  absl::Status DecodeAndCombine(bool user_range, ProfileResult* result);
  // ProfileBatch's steps (profiler/cupti_profiler_batch.cc): the config with one user range per
  // launch; one pass over every launch (true when CUPTI says every pass was submitted; `failed`
  // set to the launch whose hook or launch failed); the ranges decoded, one result per launch.
  absl::Status ConfigureBatch(int launches, int scope_index);
  absl::StatusOr<bool> RunBatchPass(const std::vector<BatchLaunch>& launches, cudaStream_t stream,
                                    std::vector<std::vector<double>>* pass_ms, int* failed,
                                    PassHostSeconds* host);
  absl::Status DecodeBatch(int scope_index, const std::vector<std::vector<double>>& pass_ms,
                           BatchProfile* batch);
  // Adds the kHardware scope when some metric is instrumented and some is not.
  absl::Status PrepareHardwareScope();
  // kScreen (metrics_ from `first_screen` on) and kScalar, where they have metrics.
  absl::Status PrepareScreenAndScalarScopes(size_t first_screen);
  void Disable();  // of the range profiler object, if enabled; the next Profile() enables again

  std::vector<MetricDef> metrics_;
  std::string chip_;
  int device_ = 0;
  void* context_ = nullptr;                    // CUcontext (primary context of device_)
  std::vector<uint8_t> counter_availability_;  // the device's, for each scope's host object
  std::vector<Scope> scopes_;                  // [0]: every metric; see Scope
  int hw_scope_ = -1;           // MetricScope::kHardware's index, -1 when it would be kAll
  int screen_scope_ = -1;       // MetricScope::kScreen's, -1 without screen metrics
  int scalar_scope_ = -1;       // MetricScope::kScalar's, -1 without instrumented metrics
  void* pass_start_ = nullptr;  // cudaEvent_t: each pass's own launch time
  void* pass_stop_ = nullptr;
  bool initialized_ = false;  // cuptiProfilerInitialize succeeded
  RangeMode range_mode_ = RangeMode::kAuto;
  bool reenable_on_scope_change_ = true;
  std::function<void(const char*)> step_observer_;
  void Step(const char* step) const {
    if (step_observer_) step_observer_(step);
  }
  // Enabled on the first Profile() and kept while the replay mode and the scope stay the same:
  // enabling and sizing per call cost ~0.13 s per case (measured on an H200, docs/profiler.md).
  void* object_ = nullptr;                // CUpti_RangeProfiler_Object*
  Replay object_replay_ = Replay::kUser;  // the mode object_ was configured for
  bool object_batch_ = false;             // ... for batched sessions (user ranges)
  int object_scope_ = 0;                  // and the scope (index) it was enabled for
};

}  // namespace flashscope::profiler
