// Batched sessions of the range profiler (profiler/cupti_profiler.h, ProfileBatch): several
// launches share one user-replay session, each inside a user range of its own, so that the fixed
// host cost of each pass (CUPTI's Start and Stop: ~3.5 ms for most counter groups, ~25-33 ms for
// the wgmma-family tensor counters and DRAM's, measured on an H200 with flashscope-metric-probe
// --mode pass-cost) is paid once per session instead of once per launch. Beside
// cupti_profiler.cc (set-up, single launches) and cupti_profiler_session.cc (their passes).
#include <cupti_range_profiler.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/seconds_since.h"
#include "profiler/cuda_check.h"
#include "profiler/cupti_host.h"
#include "profiler/cupti_profiler.h"
#include "profiler/cupti_profiler_internal.h"
#include "profiler/cupti_profiler_passes.h"

namespace flashscope::profiler {
namespace {

using cupti_internal::kBusyCyclesMetric;
using cupti_internal::kSmClockMetric;

constexpr char kRangePrefix[] = "flashscope_launch_";

// The launch index a batch range's name carries; -1 for any other name.
int LaunchIndexOf(const std::string& range_name) {
  // Nested names come as "parent/child": the last part is the range's own.
  const std::string own = range_name.substr(range_name.rfind('/') + 1);
  const std::string prefix = kRangePrefix;
  int index = -1;
  if (own.compare(0, prefix.size(), prefix) != 0 ||
      !absl::SimpleAtoi(own.substr(prefix.size()), &index)) {
    return -1;
  }
  return index;
}

}  // namespace

BatchProfile RangeProfiler::ProfileBatch(const std::vector<BatchLaunch>& launches,
                                         cudaStream_t stream, MetricScope scope) {
  const auto t0 = std::chrono::steady_clock::now();
  BatchProfile batch;
  auto fail = [&](absl::Status s) {
    // A failed session can leave CUPTI mid-session: the next call enables afresh.
    Disable();
    batch.status = std::move(s);
    batch.launches.clear();
    batch.wall_s = SecondsSince(t0);
    return batch;
  };
  if (launches.empty() || static_cast<int>(launches.size()) > kMaxBatchLaunches) {
    return fail(absl::InvalidArgumentError(absl::StrCat(
        "a batched session holds 1 to ", kMaxBatchLaunches, " launches, not ", launches.size())));
  }
  Step("counters_sync");
  if (cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess) {
    return fail(CudaStatus(e, "cudaStreamSynchronize before a batched session"));
  }
  if (absl::Status s = ScopeMissing(scope); !s.ok()) return fail(s);
  const int scope_index = ScopeIndex(
      scope == MetricScope::kHardware && !has_hardware_subset() ? MetricScope::kAll : scope);
  Step("counters_enable");
  if (absl::Status s = EnsureEnabled(Replay::kUser, scope_index, /*batch=*/true); !s.ok()) {
    return fail(s);
  }
  Step("counters_config");
  if (absl::Status s = ConfigureBatch(static_cast<int>(launches.size()), scope_index); !s.ok()) {
    return fail(s);
  }
  const double configure_s = SecondsSince(t0);  // the sync, enabling, the config
  const auto t_passes = std::chrono::steady_clock::now();
  std::vector<std::vector<double>> pass_ms(launches.size());
  ReplayPassSource source;
  source.run_pass = [&]() {
    return RunBatchPass(launches, stream, &pass_ms, &batch.failed, &batch.host);
  };
  source.one_at_a_time = [&]() { return OneAtATimePasses(scopes_[scope_index]); };
  source.kernels = [&]() {
    return absl::StrCat("a batch of ", launches.size(),
                        " launches: ", KernelsOfUnfinishedSession());
  };
  absl::StatusOr<int> passes = ReplayUntilAllSubmitted(scopes_[scope_index].passes_needed, source);
  if (!passes.ok()) return fail(passes.status());
  batch.passes = *passes;
  const double passes_s = SecondsSince(t_passes);
  Step("counters_decode");
  const auto t_decode = std::chrono::steady_clock::now();
  if (absl::Status s = DecodeBatch(scope_index, pass_ms, &batch); !s.ok()) {
    batch.failed = -1;
    return fail(s);
  }
  const double decode_s = SecondsSince(t_decode);
  batch.wall_s = SecondsSince(t0);
  const double n = static_cast<double>(launches.size());
  const PassHostSeconds& h = batch.host;
  for (auto& r : batch.launches) {
    if (!r.ok()) continue;
    // Each launch's share of the session and of its parts.
    r->wall_s = batch.wall_s / n;
    r->configure_s = configure_s / n;
    r->passes_s = passes_s / n;
    r->decode_s = decode_s / n;
    // The launch's share of each step, as one entry (the steps of its own passes are not kept).
    r->pass_host = {
        {h.before / n, h.drain / n, h.start / n, h.launch / n, h.stop / n, h.after / n}};
  }
  return batch;
}

absl::Status RangeProfiler::ConfigureBatch(int launches, int scope_index) {
  CUpti_RangeProfiler_Object* object = static_cast<CUpti_RangeProfiler_Object*>(object_);
  Scope& sc = scopes_[static_cast<size_t>(scope_index)];
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params init = {
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  init.pRangeProfilerObject = object;
  init.counterDataSize = sc.counter_data.size();
  init.pCounterData = sc.counter_data.data();
  FS_CUPTI_RETURN_IF_ERROR(cuptiRangeProfilerCounterDataImageInitialize(&init),
                           "cuptiRangeProfilerCounterDataImageInitialize (batch)");
  CUpti_RangeProfiler_SetConfig_Params config = {CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
  config.pRangeProfilerObject = object;
  config.configSize = sc.config_image.size();
  config.pConfig = sc.config_image.data();
  config.counterDataImageSize = sc.counter_data.size();
  config.pCounterDataImage = sc.counter_data.data();
  config.range = CUPTI_UserRange;
  config.replayMode = CUPTI_UserReplay;
  config.maxRangesPerPass = static_cast<size_t>(launches);
  config.numNestingLevels = 1;
  config.minNestingLevel = 1;
  config.passIndex = 0;
  config.targetNestingLevel = 1;
  FS_CUPTI_RETURN_IF_ERROR(
      cuptiRangeProfilerSetConfig(&config),
      absl::StrCat("cuptiRangeProfilerSetConfig (", launches, " user ranges, user replay)"));
  return absl::OkStatus();
}

absl::StatusOr<bool> RangeProfiler::RunBatchPass(const std::vector<BatchLaunch>& launches,
                                                 cudaStream_t stream,
                                                 std::vector<std::vector<double>>* pass_ms,
                                                 int* failed, PassHostSeconds* host) {
  CUpti_RangeProfiler_Object* object = static_cast<CUpti_RangeProfiler_Object*>(object_);
  const auto pass_start = static_cast<cudaEvent_t>(pass_start_);
  const auto pass_stop = static_cast<cudaEvent_t>(pass_stop_);
  auto lap = [last = std::chrono::steady_clock::now()](double* into) mutable {
    const auto now = std::chrono::steady_clock::now();
    *into += std::chrono::duration<double>(now - last).count();
    last = now;
  };
  CUpti_RangeProfiler_Start_Params start = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
  start.pRangeProfilerObject = object;
  Step("counters_start");
  FS_CUPTI_RETURN_IF_ERROR(cuptiRangeProfilerStart(&start), "cuptiRangeProfilerStart (batch)");
  lap(&host->start);
  absl::Status launch_status;
  for (size_t i = 0; i < launches.size() && launch_status.ok(); ++i) {
    const BatchLaunch& l = launches[i];
    *failed = static_cast<int>(i);
    if (l.before) launch_status = l.before();
    lap(&host->before);
    // What `before` queued (fresh inputs, the L2 flush) finishes outside the range.
    if (cudaError_t e = cudaStreamSynchronize(stream); launch_status.ok() && e != cudaSuccess) {
      launch_status = CudaStatus(e, "cudaStreamSynchronize before a batched launch");
    }
    lap(&host->drain);
    if (!launch_status.ok()) break;
    const std::string name = absl::StrCat(kRangePrefix, i);
    CUpti_RangeProfiler_PushRange_Params push = {CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
    push.pRangeProfilerObject = object;
    push.pRangeName = name.c_str();
    Step("counters_push");
    FS_CUPTI_RETURN_IF_ERROR(cuptiRangeProfilerPushRange(&push), "cuptiRangeProfilerPushRange");
    lap(&host->start);
    Step("counters_launch");
    const cudaError_t start_error = cudaEventRecord(pass_start, stream);
    const cudaError_t launch_error = l.launch(stream);
    const cudaError_t stop_error = cudaEventRecord(pass_stop, stream);
    const cudaError_t sync_error = cudaStreamSynchronize(stream);
    lap(&host->launch);
    CUpti_RangeProfiler_PopRange_Params pop = {CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
    pop.pRangeProfilerObject = object;
    Step("counters_pop");
    FS_CUPTI_RETURN_IF_ERROR(cuptiRangeProfilerPopRange(&pop), "cuptiRangeProfilerPopRange");
    lap(&host->stop);
    float ms = 0;
    for (auto [e, what] : {std::pair{launch_error, "kernel launch (batched profiling pass)"},
                           std::pair{sync_error, "kernel execution (batched profiling pass)"},
                           std::pair{start_error, "cudaEventRecord (batched pass start)"},
                           std::pair{stop_error, "cudaEventRecord (batched pass stop)"}}) {
      if (launch_status.ok() && e != cudaSuccess) launch_status = CudaStatus(e, what);
    }
    if (!launch_status.ok()) break;
    if (cudaError_t e = cudaEventElapsedTime(&ms, pass_start, pass_stop); e != cudaSuccess) {
      launch_status = CudaStatus(e, "cudaEventElapsedTime (batched profiling pass)");
      break;
    }
    (*pass_ms)[i].push_back(ms);
    lap(&host->launch);
    Step("counters_after");
    if (l.after) launch_status = l.after();
    lap(&host->after);
  }
  CUpti_RangeProfiler_Stop_Params stop = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
  stop.pRangeProfilerObject = object;
  Step("counters_stop");
  const CUptiResult stop_result = cuptiRangeProfilerStop(&stop);
  lap(&host->stop);
  if (!launch_status.ok()) return launch_status;  // `failed` names the launch
  *failed = -1;
  FS_CUPTI_RETURN_IF_ERROR(stop_result, "cuptiRangeProfilerStop (batch)");
  return stop.isAllPassSubmitted != 0;
}

absl::Status RangeProfiler::DecodeBatch(int scope_index,
                                        const std::vector<std::vector<double>>& pass_ms,
                                        BatchProfile* batch) {
  CUpti_RangeProfiler_DecodeData_Params decode = {
      CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  decode.pRangeProfilerObject = static_cast<CUpti_RangeProfiler_Object*>(object_);
  FS_CUPTI_RETURN_IF_ERROR(cuptiRangeProfilerDecodeData(&decode),
                           "cuptiRangeProfilerDecodeData (batch)");
  if (decode.numOfRangeDropped != 0) {
    return absl::ResourceExhaustedError(absl::StrCat("CUPTI dropped ", decode.numOfRangeDropped,
                                                     " of a batch's ", pass_ms.size(),
                                                     " user ranges"));
  }
  const Scope& sc = scopes_[static_cast<size_t>(scope_index)];
  const std::vector<std::string> names = RangeNames();
  auto index_of = [&](const char* name) {
    return static_cast<size_t>(std::find(sc.names.begin(), sc.names.end(), name) -
                               sc.names.begin());
  };
  const size_t busy_index = index_of(kBusyCyclesMetric);
  const size_t clock_index = index_of(kSmClockMetric);
  batch->launches.assign(
      pass_ms.size(), absl::NotFoundError(absl::StrCat("no SM was active in this launch's range (",
                                                       names.size(), " ranges for ", pass_ms.size(),
                                                       " launches): did it enqueue any kernel?")));
  for (size_t k = 0; k < names.size(); ++k) {
    const int index = LaunchIndexOf(names[k]);
    if (index < 0 || index >= static_cast<int>(pass_ms.size())) continue;
    absl::StatusOr<std::vector<double>> values = sc.host->Evaluate(sc.counter_data, k, sc.names);
    if (!values.ok()) return values.status();
    // A range in which no SM was active holds no kernel: the launch enqueued none (the range
    // itself has a duration: its events, the gaps). An untimed scope (kScalar) counts no cycles:
    // its launches showed their kernels in the screen's session before.
    if (sc.timed && (*values)[busy_index] <= 0) continue;
    ProfileResult r;
    r.replay = Replay::kUser;
    r.scope = ScopeAt(scope_index);
    r.instrumented = sc.instrumented;
    r.passes = batch->passes;
    r.ranges = absl::StrCat("one user range around the launch, in a session shared by ",
                            pass_ms.size(), " launches");
    r.pass_ms = pass_ms[static_cast<size_t>(index)];
    const double clock_hz = sc.timed ? (*values)[clock_index] : 0;
    r.kernel_ms = clock_hz > 0 ? (*values)[busy_index] / clock_hz * 1e3 : 0;
    r.kernel_ms_basis =
        sc.timed ? "the busiest SM's active time (CUPTI sm__cycles_active.max at the SMs' clock; a "
                   "user range's duration would hold the host's gaps between the launch's calls)"
                 : "not counted (the scalar counters' session collects no time)";
    for (size_t i = 0; i < sc.metric_index.size(); ++i) {
      r.values.emplace_back(metrics_[sc.metric_index[i]], (*values)[i]);
    }
    batch->launches[static_cast<size_t>(index)] = std::move(r);
  }
  return absl::OkStatus();
}

}  // namespace flashscope::profiler
