#include "profiler/cupti_host.h"

#include <cupti.h>
#include <cupti_profiler_host.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace flashscope::profiler {
namespace {

std::vector<const char*> CStrings(const std::vector<std::string>& names) {
  std::vector<const char*> out;
  out.reserve(names.size());
  for (const auto& n : names) out.push_back(n.c_str());
  return out;
}

}  // namespace

std::string CuptiResultText(CUptiResult r) {
  const char* text = nullptr;
  if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || text == nullptr) {
    return absl::StrCat("CUPTI error ", static_cast<int>(r));
  }
  return text;
}

absl::Status CuptiStatus(CUptiResult r, const std::string& what) {
  if (r == CUPTI_SUCCESS) return absl::OkStatus();
  const std::string base = absl::StrCat(what, " failed: ", CuptiResultText(r));
  switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
      return absl::PermissionDeniedError(absl::StrCat(
          base,
          ". GPU performance counters are restricted to admin users (ERR_NVGPUCTRPERM): run as "
          "root, or load the driver with NVreg_RestrictProfilingToAdminUsers=0 "
          "(https://developer.nvidia.com/ERR_NVGPUCTRPERM); timing and verification still work"));
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
      return absl::FailedPreconditionError(absl::StrCat(
          base,
          ". This GPU or configuration does not support the CUPTI range profiler "
          "(needs sm_70+, no vGPU without profiling enabled, no confidential compute)"));
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      return absl::FailedPreconditionError(absl::StrCat(
          base,
          ". Another profiler (Nsight Compute/Systems, or a second flashscope profiler) "
          "holds the counters; run without it"));
    default:
      return absl::InternalError(base);
  }
}

std::string ReferenceChipForCc(int cc) {
  if (cc >= 80 && cc < 90) return "GA100";
  if (cc == 90) return "GH100";
  return "";
}

absl::StatusOr<std::unique_ptr<CuptiMetricHost>> CuptiMetricHost::Create(
    const std::string& chip, const std::vector<uint8_t>& counter_availability) {
  CUpti_Profiler_Host_Initialize_Params p = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = chip.c_str();
  p.pCounterAvailabilityImage =
      counter_availability.empty() ? nullptr : counter_availability.data();
  const CUptiResult r = cuptiProfilerHostInitialize(&p);
  if (r != CUPTI_SUCCESS) {
    return CuptiStatus(r, absl::StrCat("cuptiProfilerHostInitialize(chip ", chip,
                                       ") (CUPTI loads libnvperf_host.so from the CUDA toolkit's "
                                       "lib64; check it is on the library path)"));
  }
  return std::unique_ptr<CuptiMetricHost>(new CuptiMetricHost(chip, p.pHostObject));
}

CuptiMetricHost::~CuptiMetricHost() {
  CUpti_Profiler_Host_Deinitialize_Params p = {CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
  p.pHostObject = object_;
  cuptiProfilerHostDeinitialize(&p);  // nothing useful to do with an error at teardown
}

absl::StatusOr<MetricProperties> CuptiMetricHost::Properties(const std::string& hw_name) {
  CUpti_Profiler_Host_GetMetricProperties_Params p = {
      CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
  p.pHostObject = object_;
  p.pMetricName = hw_name.c_str();
  const CUptiResult r = cuptiProfilerHostGetMetricProperties(&p);
  if (r != CUPTI_SUCCESS) {
    return absl::InvalidArgumentError(absl::StrCat("CUPTI does not know metric '", hw_name,
                                                   "' on chip ", chip_, ": ", CuptiResultText(r)));
  }
  MetricProperties m;
  if (p.pDescription) m.description = p.pDescription;
  if (p.pHwUnit) m.hw_unit = p.pHwUnit;
  if (p.pDimUnit) m.dim_unit = p.pDimUnit;
  return m;
}

absl::Status CuptiMetricHost::CheckMetrics(const std::vector<std::string>& hw_names) {
  std::vector<std::string> unknown;
  for (const auto& n : hw_names) {
    if (!Properties(n).ok()) unknown.push_back(n);
  }
  if (unknown.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "CUPTI does not know these metrics on chip ", chip_, ": ", absl::StrJoin(unknown, ", "),
      " (check the spelling and the rollup suffix, e.g. .sum, .avg.pct_of_peak_"
      "sustained_elapsed; `ncu --query-metrics` lists them)"));
}

absl::StatusOr<std::vector<uint8_t>> CuptiMetricHost::ConfigImage(
    const std::vector<std::string>& hw_names) {
  std::vector<const char*> names = CStrings(hw_names);
  CUpti_Profiler_Host_ConfigAddMetrics_Params add = {
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  add.pHostObject = object_;
  add.ppMetricNames = names.data();
  add.numMetrics = names.size();
  if (absl::Status s =
          CuptiStatus(cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics");
      !s.ok()) {
    return s;
  }
  CUpti_Profiler_Host_GetConfigImageSize_Params size = {
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  size.pHostObject = object_;
  if (absl::Status s = CuptiStatus(cuptiProfilerHostGetConfigImageSize(&size),
                                   "cuptiProfilerHostGetConfigImageSize");
      !s.ok()) {
    return s;
  }
  if (size.configImageSize == 0) {
    return absl::FailedPreconditionError(
        "CUPTI built an empty config image: it needs the counter availability image of a live "
        "device (CuptiMetricHost::Create with the device's availability)");
  }
  std::vector<uint8_t> image(size.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params get = {
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
  get.pHostObject = object_;
  get.configImageSize = image.size();
  get.pConfigImage = image.data();
  if (absl::Status s =
          CuptiStatus(cuptiProfilerHostGetConfigImage(&get), "cuptiProfilerHostGetConfigImage");
      !s.ok()) {
    return s;
  }
  return image;
}

absl::StatusOr<int> CuptiMetricHost::NumPasses(std::vector<uint8_t>& config_image) {
  CUpti_Profiler_Host_GetNumOfPasses_Params p = {
      CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
  p.configImageSize = config_image.size();
  p.pConfigImage = config_image.data();
  if (absl::Status s =
          CuptiStatus(cuptiProfilerHostGetNumOfPasses(&p), "cuptiProfilerHostGetNumOfPasses");
      !s.ok()) {
    return s;
  }
  return static_cast<int>(p.numOfPasses);
}

absl::StatusOr<std::vector<double>> CuptiMetricHost::Evaluate(
    const std::vector<uint8_t>& counter_data, size_t range_index,
    const std::vector<std::string>& hw_names) {
  std::vector<const char*> names = CStrings(hw_names);
  std::vector<double> values(names.size(), 0.0);
  CUpti_Profiler_Host_EvaluateToGpuValues_Params p = {
      CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
  p.pHostObject = object_;
  p.pCounterDataImage = counter_data.data();
  p.counterDataImageSize = counter_data.size();
  p.rangeIndex = range_index;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  p.pMetricValues = values.data();
  if (absl::Status s = CuptiStatus(cuptiProfilerHostEvaluateToGpuValues(&p),
                                   "cuptiProfilerHostEvaluateToGpuValues");
      !s.ok()) {
    return s;
  }
  return values;
}

}  // namespace flashscope::profiler
