#include "profiler/cupti_profiler.h"

#include <cuda.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "common/seconds_since.h"
#include "profiler/cuda_check.h"
#include "profiler/cupti_host.h"
#include "profiler/cupti_profiler_internal.h"
#include "profiler/kernel_combine.h"

namespace flashscope::profiler {
namespace {

using cupti_internal::kBusyCyclesMetric;
using cupti_internal::kGpuTimeMetric;
using cupti_internal::kSmClockMetric;

// What CUPTI collects for `names`: them, then the kernels' GPU time and the busiest SM's active
// cycles with the SMs' clock (batched sessions' kernel time) when not among them.
std::vector<std::string> WithGpuTime(std::vector<std::string> names) {
  for (const char* always : {kGpuTimeMetric, kBusyCyclesMetric, kSmClockMetric}) {
    if (std::find(names.begin(), names.end(), always) == names.end()) names.push_back(always);
  }
  return names;
}

const char* SupportLevelText(CUpti_Profiler_Support_Level level) {
  switch (level) {
    case CUPTI_PROFILER_CONFIGURATION_SUPPORTED:
      return "supported";
    case CUPTI_PROFILER_CONFIGURATION_DISABLED:
      return "disabled by the system";
    case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED:
      return "unsupported";
    default:
      return "unknown";
  }
}

absl::Status CheckDeviceSupported(CUdevice dev) {
  CUpti_Profiler_DeviceSupported_Params p = {CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
  p.cuDevice = dev;
  p.api = CUPTI_PROFILER_RANGE_PROFILING;
  FS_CUPTI_RETURN_IF_ERROR(cuptiProfilerDeviceSupported(&p), "cuptiProfilerDeviceSupported");
  if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "this GPU cannot be profiled with the CUPTI range profiler: architecture ",
      SupportLevelText(p.architecture), ", vGPU ", SupportLevelText(p.vGpu),
      ", confidential compute ", SupportLevelText(p.confidentialCompute), ", SLI ",
      SupportLevelText(p.sli), ", WSL ", SupportLevelText(p.wsl),
      " (profiling needs sm_70+, profiling enabled on a vGPU, confidential compute off)"));
}

absl::StatusOr<std::vector<uint8_t>> CounterAvailability(CUcontext ctx) {
  CUpti_Profiler_GetCounterAvailability_Params p = {
      CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
  p.ctx = ctx;
  FS_CUPTI_RETURN_IF_ERROR(cuptiProfilerGetCounterAvailability(&p),
                           "cuptiProfilerGetCounterAvailability (size)");
  std::vector<uint8_t> image(p.counterAvailabilityImageSize);
  p.pCounterAvailabilityImage = image.data();
  FS_CUPTI_RETURN_IF_ERROR(cuptiProfilerGetCounterAvailability(&p),
                           "cuptiProfilerGetCounterAvailability");
  return image;
}

// The current CUcontext, through the runtime's driver entry point so that flashscope does not
// link libcuda.so.1: binaries that link the profiler must start on CPU-only CI machines.
absl::StatusOr<CUcontext> CurrentContext() {
  using GetCurrentFn = CUresult (*)(CUcontext*);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  FS_CUDA_RETURN_IF_ERROR(
      cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &found),
      "cudaGetDriverEntryPointByVersion(cuCtxGetCurrent)");
  if (fn == nullptr || found != cudaDriverEntryPointSuccess) {
    return absl::InternalError("the CUDA driver does not export cuCtxGetCurrent");
  }
  CUcontext ctx = nullptr;
  if (reinterpret_cast<GetCurrentFn>(fn)(&ctx) != CUDA_SUCCESS || ctx == nullptr) {
    return absl::InternalError("cuCtxGetCurrent returned no context after cudaSetDevice");
  }
  return ctx;
}

}  // namespace

absl::StatusOr<std::unique_ptr<RangeProfiler>> RangeProfiler::Create(
    const std::vector<MetricDef>& metrics, int device, const std::vector<MetricDef>& screen) {
  if (metrics.empty()) return absl::InvalidArgumentError("RangeProfiler: no metrics requested");
  std::unique_ptr<RangeProfiler> rp(new RangeProfiler());
  rp->metrics_ = metrics;
  rp->metrics_.insert(rp->metrics_.end(), screen.begin(), screen.end());
  std::vector<std::string> requested;
  for (const auto& m : rp->metrics_) requested.push_back(m.hw_name);
  rp->device_ = device;

  FS_CUDA_RETURN_IF_ERROR(cudaSetDevice(device), "cudaSetDevice");
  FS_CUDA_RETURN_IF_ERROR(cudaFree(nullptr), "cudaFree(0) (creating the CUDA context)");
  absl::StatusOr<CUcontext> ctx_or = CurrentContext();
  if (!ctx_or.ok()) return ctx_or.status();
  CUcontext ctx = *ctx_or;
  rp->context_ = ctx;
  // CUdevice is the device ordinal for the driver API (what cuDeviceGet returns for it).
  const CUdevice dev = device;

  CUpti_Profiler_Initialize_Params init = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  FS_CUPTI_RETURN_IF_ERROR(cuptiProfilerInitialize(&init), "cuptiProfilerInitialize");
  rp->initialized_ = true;
  if (absl::Status s = CheckDeviceSupported(dev); !s.ok()) return s;

  CUpti_Device_GetChipName_Params chip = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  chip.deviceIndex = static_cast<size_t>(device);
  FS_CUPTI_RETURN_IF_ERROR(cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName");
  rp->chip_ = chip.pChipName;

  // Metric names first, on the host alone (no counter-availability image needed), so that a
  // typo is named even when the counters cannot be read right now.
  {
    absl::StatusOr<std::unique_ptr<CuptiMetricHost>> names_only =
        CuptiMetricHost::Create(rp->chip_, {});
    if (!names_only.ok()) return names_only.status();
    if (absl::Status s = (*names_only)->CheckMetrics(WithGpuTime(requested)); !s.ok()) return s;
  }
  absl::StatusOr<std::vector<uint8_t>> avail = CounterAvailability(ctx);
  if (!avail.ok()) {
    // A RangeProfiler stays enabled on its context until destroyed (see Profile), and CUPTI
    // allows one range profiler per context: say so rather than only CUPTI's code.
    return absl::Status(avail.status().code(),
                        absl::StrCat(avail.status().message(),
                                     " (only one range profiler may be enabled on a context: is "
                                     "another RangeProfiler alive in this process, or ncu "
                                     "attached?)"));
  }
  rp->counter_availability_ = *avail;
  std::vector<size_t> every(metrics.size());  // the screen's metrics are not kAll's
  for (size_t i = 0; i < every.size(); ++i) every[i] = i;
  absl::StatusOr<Scope> all = rp->MakeScope(std::move(every));
  if (!all.ok()) return all.status();
  rp->scopes_.push_back(*std::move(all));
  if (absl::Status st = rp->PrepareHardwareScope(); !st.ok()) return st;
  if (absl::Status st = rp->PrepareScreenAndScalarScopes(metrics.size()); !st.ok()) return st;
  FS_CUDA_RETURN_IF_ERROR(cudaEventCreate(reinterpret_cast<cudaEvent_t*>(&rp->pass_start_)),
                          "cudaEventCreate (profiling pass)");
  FS_CUDA_RETURN_IF_ERROR(cudaEventCreate(reinterpret_cast<cudaEvent_t*>(&rp->pass_stop_)),
                          "cudaEventCreate (profiling pass)");
  return rp;
}

absl::StatusOr<RangeProfiler::Scope> RangeProfiler::MakeScope(std::vector<size_t> metric_index,
                                                              bool timed) const {
  Scope sc;
  sc.timed = timed;
  sc.metric_index = std::move(metric_index);
  std::vector<std::string> names;
  for (size_t i : sc.metric_index) {
    names.push_back(metrics_[i].hw_name);
    sc.instrumented = sc.instrumented || IsInstrumentedMetric(metrics_[i].hw_name);
  }
  sc.names = timed ? WithGpuTime(std::move(names)) : std::move(names);
  absl::StatusOr<std::unique_ptr<CuptiMetricHost>> host =
      CuptiMetricHost::Create(chip_, counter_availability_);
  if (!host.ok()) return host.status();
  sc.host = *std::move(host);
  if (absl::Status s = sc.host->CheckMetrics(sc.names); !s.ok()) return s;
  absl::StatusOr<std::vector<uint8_t>> config = sc.host->ConfigImage(sc.names);
  if (!config.ok()) return config.status();
  sc.config_image = std::move(*config);
  absl::StatusOr<int> passes = CuptiMetricHost::NumPasses(sc.config_image);
  if (!passes.ok()) return passes.status();
  sc.passes_needed = *passes;
  return sc;
}

absl::Status RangeProfiler::PrepareHardwareScope() {
  const size_t all = scopes_[0].metric_index.size();  // kAll's metrics come first in metrics_
  std::vector<size_t> hardware;
  for (size_t i = 0; i < all; ++i) {
    if (!IsInstrumentedMetric(metrics_[i].hw_name)) hardware.push_back(i);
  }
  // kHardware would collect all or nothing: it is kAll.
  if (hardware.empty() || hardware.size() == all) return absl::OkStatus();
  absl::StatusOr<Scope> sc = MakeScope(std::move(hardware));
  if (!sc.ok()) return sc.status();
  hw_scope_ = static_cast<int>(scopes_.size());
  scopes_.push_back(*std::move(sc));
  return absl::OkStatus();
}

absl::Status RangeProfiler::PrepareScreenAndScalarScopes(size_t first_screen) {
  std::vector<size_t> screen, scalar;
  for (size_t i = 0; i < metrics_.size(); ++i) {
    if (i >= first_screen) {
      if (IsInstrumentedMetric(metrics_[i].hw_name)) {
        return absl::InvalidArgumentError(
            absl::StrCat("RangeProfiler: the screen collects hardware counters only, not ",
                         metrics_[i].hw_name));
      }
      screen.push_back(i);
    } else if (IsInstrumentedMetric(metrics_[i].hw_name)) {
      scalar.push_back(i);
    }
  }
  for (auto [indices, slot] : {std::pair{&screen, &screen_scope_}, {&scalar, &scalar_scope_}}) {
    if (indices->empty()) continue;
    absl::StatusOr<Scope> sc = MakeScope(*indices, /*timed=*/slot != &scalar_scope_);
    if (!sc.ok()) return sc.status();
    *slot = static_cast<int>(scopes_.size());
    scopes_.push_back(*std::move(sc));
  }
  return absl::OkStatus();
}

int RangeProfiler::ScopeIndex(MetricScope scope) const {
  switch (scope) {
    case MetricScope::kHardware:
      return hw_scope_ >= 0 ? hw_scope_ : 0;
    case MetricScope::kScreen:
      return screen_scope_;
    case MetricScope::kScalar:
      return scalar_scope_;
    case MetricScope::kAll:
      break;
  }
  return 0;
}

MetricScope RangeProfiler::ScopeAt(int index) const {
  if (index == hw_scope_) return MetricScope::kHardware;
  if (index == screen_scope_) return MetricScope::kScreen;
  if (index == scalar_scope_) return MetricScope::kScalar;
  return MetricScope::kAll;
}

bool RangeProfiler::has_scope(MetricScope scope) const {
  if (scope == MetricScope::kHardware) return has_hardware_subset();
  return ScopeIndex(scope) >= 0;
}

absl::Status RangeProfiler::ScopeMissing(MetricScope scope) const {
  if (ScopeIndex(scope) >= 0) return absl::OkStatus();
  return absl::FailedPreconditionError(
      scope == MetricScope::kScreen
          ? "RangeProfiler: no screen metrics were given to Create()"
          : "RangeProfiler: no SASS-instrumented metric was given to Create()");
}

bool IsInstrumentedMetric(const std::string& hw_name) {
  return hw_name.find("__sass_") != std::string::npos;
}

RangeProfiler::~RangeProfiler() {
  Disable();
  if (pass_start_) cudaEventDestroy(static_cast<cudaEvent_t>(pass_start_));
  if (pass_stop_) cudaEventDestroy(static_cast<cudaEvent_t>(pass_stop_));
  scopes_.clear();  // the host objects go before CUPTI is deinitialised
  if (!initialized_) return;
  CUpti_Profiler_DeInitialize_Params p = {CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
  cuptiProfilerDeInitialize(&p);  // teardown: an error here changes no result
}

const char* ReplayName(Replay replay) { return replay == Replay::kKernel ? "kernel" : "user"; }

absl::StatusOr<ProfileResult> RangeProfiler::Profile(
    const std::function<cudaError_t(cudaStream_t)>& launch,
    const std::function<absl::Status()>& before_pass, cudaStream_t stream, Replay replay,
    const std::function<absl::Status()>& after_pass, MetricScope scope) {
  absl::StatusOr<ProfileResult> result =
      ProfileEnabled(launch, before_pass, after_pass, stream, replay, scope);
  // A failed call can leave CUPTI mid-session (measured on an H200: the call after a launch that
  // enqueued no kernel crashed inside CUPTI): disable, and let the next call enable afresh.
  if (!result.ok()) Disable();
  return result;
}

void RangeProfiler::Disable() {
  if (object_ == nullptr) return;
  CUpti_RangeProfiler_Disable_Params d = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
  d.pRangeProfilerObject = static_cast<CUpti_RangeProfiler_Object*>(object_);
  cuptiRangeProfilerDisable(&d);  // recovery: the error being returned is the one that matters
  object_ = nullptr;
  for (Scope& sc : scopes_) sc.counter_data.clear();
}

absl::StatusOr<ProfileResult> RangeProfiler::ProfileEnabled(
    const std::function<cudaError_t(cudaStream_t)>& launch,
    const std::function<absl::Status()>& before_pass,
    const std::function<absl::Status()>& after_pass, cudaStream_t stream, Replay replay,
    MetricScope scope) {
  const auto t0 = std::chrono::steady_clock::now();
  // Everything queued before profiling must finish outside the profiled kernels.
  FS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  if (absl::Status s = ScopeMissing(scope); !s.ok()) return s;
  if (scope == MetricScope::kScalar) {
    return absl::FailedPreconditionError(
        "RangeProfiler: the scalar scope counts no time and serves batched sessions only");
  }
  ProfileResult result;
  result.replay = replay;
  result.scope =
      scope == MetricScope::kHardware && !has_hardware_subset() ? MetricScope::kAll : scope;
  const auto t_enable = std::chrono::steady_clock::now();
  if (absl::Status s = EnsureEnabled(replay, ScopeIndex(result.scope)); !s.ok()) {
    return s;
  }
  result.instrumented = ScopeOf(result).instrumented;
  result.enable_s = SecondsSince(t_enable);
  const auto t_config = std::chrono::steady_clock::now();
  absl::StatusOr<bool> user_range = Configure(replay, &result);
  if (!user_range.ok()) return user_range.status();
  result.set_config_s = SecondsSince(t_config);
  result.configure_s = SecondsSince(t0);
  const auto t_passes = std::chrono::steady_clock::now();
  if (absl::Status s =
          RunPasses(launch, before_pass, after_pass, stream, replay, *user_range, &result);
      !s.ok()) {
    return s;
  }
  result.passes_s = SecondsSince(t_passes);
  const auto t_decode = std::chrono::steady_clock::now();
  if (absl::Status s = DecodeAndCombine(*user_range, &result); !s.ok()) return s;
  result.decode_s = SecondsSince(t_decode);
  result.wall_s = SecondsSince(t0);
  return result;
}

absl::Status RangeProfiler::EnsureEnabled(Replay replay, int scope, bool batch) {
  // Enabled once and kept: no launch outside a Start/Stop pair is profiled, so timing and other
  // work on the context are unaffected, and the per-call enable/disable cost is gone.
  // One enabled object serves one replay mode and one config: a change of either enables afresh
  // (the kernel-replay GPU test crashed inside CUPTI when it followed user-replay calls on the
  // same object; every session of the all-metrics config that followed a hardware-only session
  // on the same object wanted more passes than its config said, 2 x H200 trust run). A case
  // that needs both scopes pays one enable per change (~0.22 s on an H200, docs/profiler.md).
  const bool scope_changed = object_ != nullptr && object_scope_ != scope;
  if (object_ != nullptr && (object_replay_ != replay || object_batch_ != batch ||
                             (scope_changed && reenable_on_scope_change_))) {
    Disable();
  }
  if (object_ == nullptr) {
    object_replay_ = replay;
    object_batch_ = batch;
    CUpti_RangeProfiler_Enable_Params enable = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    enable.ctx = static_cast<CUcontext>(context_);
    FS_CUPTI_RETURN_IF_ERROR(cuptiRangeProfilerEnable(&enable), "cuptiRangeProfilerEnable");
    object_ = enable.pRangeProfilerObject;
  }
  object_scope_ = scope;
  if (!scopes_[scope].counter_data.empty()) return absl::OkStatus();
  // The counter-data image of the scope, sized for the metrics its config collects.
  std::vector<const char*> names;
  for (const auto& n : scopes_[scope].names) names.push_back(n.c_str());
  CUpti_RangeProfiler_GetCounterDataSize_Params size = {
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
  size.pRangeProfilerObject = static_cast<CUpti_RangeProfiler_Object*>(object_);
  size.pMetricNames = names.data();
  size.numMetrics = names.size();
  size.maxNumOfRanges = kCounterDataRanges;
  size.maxNumRangeTreeNodes = kCounterDataRanges;
  FS_CUPTI_RETURN_IF_ERROR(cuptiRangeProfilerGetCounterDataSize(&size),
                           "cuptiRangeProfilerGetCounterDataSize");
  scopes_[scope].counter_data.assign(size.counterDataSize, 0);
  return absl::OkStatus();
}

absl::StatusOr<bool> RangeProfiler::Configure(Replay replay, ProfileResult* result) {
  CUpti_RangeProfiler_Object* object = static_cast<CUpti_RangeProfiler_Object*>(object_);
  std::vector<uint8_t>* counter_data = &ScopeOf(*result).counter_data;
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params init = {
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  init.pRangeProfilerObject = object;
  init.counterDataSize = counter_data->size();
  init.pCounterData = counter_data->data();
  FS_CUPTI_RETURN_IF_ERROR(cuptiRangeProfilerCounterDataImageInitialize(&init),
                           "cuptiRangeProfilerCounterDataImageInitialize");

  CUpti_RangeProfiler_SetConfig_Params config = {CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
  config.pRangeProfilerObject = object;
  const std::vector<uint8_t>& image = ScopeOf(*result).config_image;
  config.configSize = image.size();
  config.pConfig = image.data();
  config.counterDataImageSize = counter_data->size();
  config.pCounterDataImage = counter_data->data();
  config.range = CUPTI_AutoRange;
  config.replayMode = replay == Replay::kKernel ? CUPTI_KernelReplay : CUPTI_UserReplay;
  config.maxRangesPerPass = kMaxKernelsPerLaunch;
  config.numNestingLevels = 1;  // required for auto ranges
  config.minNestingLevel = 1;
  config.passIndex = 0;
  config.targetNestingLevel = 1;
  if (replay == Replay::kUser && range_mode_ == RangeMode::kUser) {
    config.range = CUPTI_UserRange;
    config.maxRangesPerPass = 1;
    FS_CUPTI_RETURN_IF_ERROR(cuptiRangeProfilerSetConfig(&config),
                             "cuptiRangeProfilerSetConfig (user range, user replay)");
    result->ranges =
        "one user range around the launch (asked for); gaps between kernels count "
        "as elapsed time";
    return true;
  }
  const CUptiResult auto_result = cuptiRangeProfilerSetConfig(&config);
  if (auto_result == CUPTI_SUCCESS || replay != Replay::kUser) {
    FS_CUPTI_RETURN_IF_ERROR(auto_result, absl::StrCat("cuptiRangeProfilerSetConfig (auto range, ",
                                                       ReplayName(replay), " replay)"));
    return false;
  }
  // A CUPTI that refuses auto ranges under user replay still measures one user range around
  // the launch: less exact (launch latency and gaps count as elapsed cycles), and said so.
  config.range = CUPTI_UserRange;
  config.maxRangesPerPass = 1;
  FS_CUPTI_RETURN_IF_ERROR(cuptiRangeProfilerSetConfig(&config),
                           "cuptiRangeProfilerSetConfig (user range, user replay)");
  result->ranges =
      absl::StrCat("one user range around the launch (CUPTI refused per-kernel auto ranges: ",
                   CuptiResultText(auto_result), "); gaps between kernels count as elapsed time");
  return true;
}

absl::Status RangeProfiler::DecodeAndCombine(bool user_range, ProfileResult* result) {
  CUpti_RangeProfiler_DecodeData_Params decode = {
      CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  decode.pRangeProfilerObject = static_cast<CUpti_RangeProfiler_Object*>(object_);
  FS_CUPTI_RETURN_IF_ERROR(cuptiRangeProfilerDecodeData(&decode), "cuptiRangeProfilerDecodeData");
  if (decode.numOfRangeDropped != 0) {
    return absl::ResourceExhaustedError(
        absl::StrCat("CUPTI dropped ", decode.numOfRangeDropped,
                     " kernel range(s): one profiled launch may enqueue at most ",
                     kMaxKernelsPerLaunch, " kernels (RangeProfiler::kMaxKernelsPerLaunch)"));
  }
  CUpti_RangeProfiler_GetCounterDataInfo_Params info = {
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
  Scope& sc = ScopeOf(*result);
  info.pCounterDataImage = sc.counter_data.data();
  info.counterDataImageSize = sc.counter_data.size();
  FS_CUPTI_RETURN_IF_ERROR(cuptiRangeProfilerGetCounterDataInfo(&info),
                           "cuptiRangeProfilerGetCounterDataInfo");
  if (info.numTotalRanges < 1) {
    // NotFound: the launch itself is at fault, not the profiler (the trust checks fail the case).
    return absl::NotFoundError("CUPTI recorded no kernel: did the launch enqueue any kernel?");
  }
  result->kernels = user_range ? 0 : static_cast<int>(info.numTotalRanges);

  // The metrics of this scope (indices into metrics_) and the names collected for them.
  const std::vector<std::string>& names = sc.names;
  const std::vector<size_t>& metric_index = sc.metric_index;
  const size_t time_index =
      static_cast<size_t>(std::find(names.begin(), names.end(), kGpuTimeMetric) - names.begin());
  // per_kernel[k][i]: metric names[i] of kernel k.
  std::vector<std::vector<double>> per_kernel;
  for (size_t k = 0; k < info.numTotalRanges; ++k) {
    absl::StatusOr<std::vector<double>> values = sc.host->Evaluate(sc.counter_data, k, names);
    if (!values.ok()) return values.status();
    per_kernel.push_back(*std::move(values));
  }
  std::vector<double> weights;
  for (const auto& v : per_kernel) {
    weights.push_back(v[time_index]);
    result->kernel_ms += v[time_index] * 1e-6;  // gpu__time_duration is in nanoseconds
  }
  for (size_t i = 0; i < metric_index.size(); ++i) {
    std::vector<double> column;
    for (const auto& v : per_kernel) column.push_back(v[i]);
    result->values.emplace_back(metrics_[metric_index[i]],
                                CombineKernelValues(CombineRuleFor(names[i]), column, weights));
  }
  return absl::OkStatus();
}

}  // namespace flashscope::profiler
