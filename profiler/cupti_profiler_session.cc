// The replay passes of a range-profiler session (profiler/cupti_profiler.h): one
// Start/launch/Stop per pass (user replay) until CUPTI says every pass was submitted, within the
// bound of profiler/cupti_profiler_passes.h; beside cupti_profiler.cc, which sets the session up
// and decodes it.
#include <cupti_range_profiler.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "profiler/cuda_check.h"
#include "profiler/cupti_host.h"
#include "profiler/cupti_profiler.h"
#include "profiler/cupti_profiler_internal.h"
#include "profiler/cupti_profiler_passes.h"

namespace flashscope::profiler {

absl::Status RangeProfiler::RunPasses(const std::function<cudaError_t(cudaStream_t)>& launch,
                                      const std::function<absl::Status()>& before_pass,
                                      const std::function<absl::Status()>& after_pass,
                                      cudaStream_t stream, Replay replay, bool user_range,
                                      ProfileResult* result) {
  Scope& scope = ScopeOf(*result);
  const int passes_needed = scope.passes_needed;
  auto pass = [&]() -> absl::StatusOr<bool> {
    return RunOnePass(launch, before_pass, after_pass, stream, user_range, result);
  };
  if (replay == Replay::kKernel) {
    // Kernel replay runs every pass inside the one launch; relaunching would change the data.
    absl::StatusOr<bool> all_submitted = pass();
    if (!all_submitted.ok()) return all_submitted.status();
    if (!*all_submitted) {
      return absl::InternalError(
          "CUPTI kernel replay returned with passes still to run (isAllPassSubmitted = 0)");
    }
    result->passes = std::max(1, passes_needed);
    return absl::OkStatus();
  }
  ReplayPassSource source;
  source.run_pass = pass;
  source.one_at_a_time = [&]() { return OneAtATimePasses(scope); };
  source.kernels = [&]() { return KernelsOfUnfinishedSession(); };
  absl::StatusOr<int> passes = ReplayUntilAllSubmitted(passes_needed, source);
  if (!passes.ok()) return passes.status();
  result->passes = *passes;
  return absl::OkStatus();
}

absl::StatusOr<bool> RangeProfiler::RunOnePass(
    const std::function<cudaError_t(cudaStream_t)>& launch,
    const std::function<absl::Status()>& before_pass,
    const std::function<absl::Status()>& after_pass, cudaStream_t stream, bool user_range,
    ProfileResult* result) {
  CUpti_RangeProfiler_Object* object = static_cast<CUpti_RangeProfiler_Object*>(object_);
  const auto pass_start = static_cast<cudaEvent_t>(pass_start_);
  const auto pass_stop = static_cast<cudaEvent_t>(pass_stop_);
  PassHostSeconds host;
  auto lap = [last = std::chrono::steady_clock::now()](double* into) mutable {
    const auto now = std::chrono::steady_clock::now();
    *into = std::chrono::duration<double>(now - last).count();
    last = now;
  };
  if (before_pass) {
    if (absl::Status s = before_pass(); !s.ok()) return s;
  }
  lap(&host.before);
  // The L2 flush (or whatever before_pass queued) must not be profiled: it runs before Start.
  FS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream),
                          "cudaStreamSynchronize before a profiling pass");
  lap(&host.drain);
  CUpti_RangeProfiler_Start_Params start = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
  start.pRangeProfilerObject = object;
  FS_CUPTI_RETURN_IF_ERROR(cuptiRangeProfilerStart(&start), "cuptiRangeProfilerStart");
  if (user_range) {
    CUpti_RangeProfiler_PushRange_Params push = {CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
    push.pRangeProfilerObject = object;
    push.pRangeName = "flashscope_case";
    FS_CUPTI_RETURN_IF_ERROR(cuptiRangeProfilerPushRange(&push), "cuptiRangeProfilerPushRange");
  }
  lap(&host.start);
  // Events are not kernels: no auto range is opened for them.
  const cudaError_t start_error = cudaEventRecord(pass_start, stream);
  const cudaError_t launch_error = launch(stream);
  const cudaError_t stop_error = cudaEventRecord(pass_stop, stream);
  const cudaError_t sync_error = cudaStreamSynchronize(stream);
  lap(&host.launch);
  if (user_range) {
    CUpti_RangeProfiler_PopRange_Params pop = {CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
    pop.pRangeProfilerObject = object;
    FS_CUPTI_RETURN_IF_ERROR(cuptiRangeProfilerPopRange(&pop), "cuptiRangeProfilerPopRange");
  }
  CUpti_RangeProfiler_Stop_Params stop = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
  stop.pRangeProfilerObject = object;
  FS_CUPTI_RETURN_IF_ERROR(cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop");
  lap(&host.stop);
  FS_CUDA_RETURN_IF_ERROR(launch_error, "kernel launch (profiling pass)");
  FS_CUDA_RETURN_IF_ERROR(sync_error, "kernel execution (profiling pass)");
  FS_CUDA_RETURN_IF_ERROR(start_error, "cudaEventRecord (profiling pass start)");
  FS_CUDA_RETURN_IF_ERROR(stop_error, "cudaEventRecord (profiling pass stop)");
  float ms = 0;
  FS_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, pass_start, pass_stop),
                          "cudaEventElapsedTime (profiling pass)");
  result->pass_ms.push_back(ms);
  if (after_pass) {
    if (absl::Status s = after_pass(); !s.ok()) return s;
  }
  lap(&host.after);
  result->pass_host.push_back(host);
  return stop.isAllPassSubmitted != 0;
}

absl::StatusOr<int> RangeProfiler::OneAtATimePasses(Scope& scope) {
  int& cached = scope.one_at_a_time;
  if (cached > 0) return cached;
  int sum = 0;
  for (const std::string& name : scope.names) {
    // One host object per image: CUPTI's host object accumulates the metrics of its images.
    absl::StatusOr<std::unique_ptr<CuptiMetricHost>> host =
        CuptiMetricHost::Create(chip_, counter_availability_);
    if (!host.ok()) return host.status();
    absl::StatusOr<std::vector<uint8_t>> image = (*host)->ConfigImage({name});
    if (!image.ok()) return image.status();
    absl::StatusOr<int> passes = CuptiMetricHost::NumPasses(*image);
    if (!passes.ok()) return passes.status();
    sum += *passes;
  }
  cached = sum;
  return sum;
}

std::string RangeProfiler::KernelsOfUnfinishedSession() {
  // The session so far, decoded (allowed after Stop) for its auto ranges' names: the kernels.
  CUpti_RangeProfiler_DecodeData_Params decode = {
      CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  decode.pRangeProfilerObject = static_cast<CUpti_RangeProfiler_Object*>(object_);
  if (cuptiRangeProfilerDecodeData(&decode) != CUPTI_SUCCESS) {
    return "the launch's kernels (CUPTI could not decode the unfinished session to name them)";
  }
  std::vector<std::string> names = RangeNames();
  if (names.empty()) return "the launch's kernels (CUPTI recorded no named range)";
  return absl::StrCat("kernel ", absl::StrJoin(names, ", kernel "));
}

std::vector<std::string> RangeProfiler::RangeNames() const {
  std::vector<std::string> names;
  CUpti_RangeProfiler_GetCounterDataInfo_Params info = {
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
  const std::vector<uint8_t>& counter_data = scopes_[object_scope_].counter_data;
  info.pCounterDataImage = counter_data.data();
  info.counterDataImageSize = counter_data.size();
  if (cuptiRangeProfilerGetCounterDataInfo(&info) != CUPTI_SUCCESS) return names;
  for (size_t i = 0; i < info.numTotalRanges; ++i) {
    CUpti_RangeProfiler_CounterData_GetRangeInfo_Params range = {
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE};
    range.pCounterDataImage = counter_data.data();
    range.counterDataImageSize = counter_data.size();
    range.rangeIndex = i;
    range.rangeDelimiter = "/";
    if (cuptiRangeProfilerCounterDataGetRangeInfo(&range) == CUPTI_SUCCESS &&
        range.rangeName != nullptr) {
      names.emplace_back(range.rangeName);
    }
  }
  return names;
}

}  // namespace flashscope::profiler
