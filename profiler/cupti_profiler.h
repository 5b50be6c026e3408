// Hardware metrics of one case with the CUDA 13 Range Profiler (cupti_range_profiler.h +
// cupti_profiler_host.h): one user range around the case's launch, every replay pass driven by
// us (user replay): before each pass `before_pass` runs (the runner flushes L2 there), then the
// launch. Our kernels are idempotent, so relaunching replaces saving and restoring memory.
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

struct ProfileResult {
  std::vector<std::pair<MetricDef, double>> values;  // in the order of the metrics given
  int passes = 0;                                    // replay passes run
  double wall_s = 0;  // host wall time of Profile(), all passes and decoding included
};

class RangeProfiler {
 public:
  // Checks that the device supports range profiling and that counters are permitted, checks
  // every metric name against CUPTI's tables for this chip (an unknown one is named), and
  // builds the config image. Errors say why and how to fix it (ERR_NVGPUCTRPERM, unsupported
  // device, CUPTI libraries missing); the runner then records "metrics unavailable: <message>".
  static absl::StatusOr<std::unique_ptr<RangeProfiler>> Create(
      const std::vector<MetricDef>& metrics, int device = 0);
  ~RangeProfiler();
  RangeProfiler(const RangeProfiler&) = delete;
  RangeProfiler& operator=(const RangeProfiler&) = delete;

  // Runs all passes over `launch` on `stream` and evaluates the metrics. `before_pass` may be
  // empty. A launch error returns the CUDA error name.
  absl::StatusOr<ProfileResult> Profile(const std::function<cudaError_t(cudaStream_t)>& launch,
                                        const std::function<absl::Status()>& before_pass,
                                        cudaStream_t stream);

  int passes_needed() const { return passes_needed_; }
  const std::string& chip() const { return chip_; }

 private:
  RangeProfiler() = default;

  std::vector<MetricDef> metrics_;
  std::vector<std::string> hw_names_;
  std::string chip_;
  int device_ = 0;
  void* context_ = nullptr;  // CUcontext (primary context of device_)
  std::unique_ptr<CuptiMetricHost> host_;
  std::vector<uint8_t> config_image_;
  int passes_needed_ = 0;
  bool initialized_ = false;  // cuptiProfilerInitialize succeeded
  // Enabled on the first Profile() and kept until destruction, with its counter-data image:
  // enabling and sizing per call cost ~0.13 s per case (measured on an H200, docs/profiler.md).
  void* object_ = nullptr;  // CUpti_RangeProfiler_Object*
  std::vector<uint8_t> counter_data_;
};

}  // namespace flashscope::profiler
