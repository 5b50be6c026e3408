// Exact kernel durations from CUPTI activity records (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL):
// per kernel and summed, for implementations that launch several kernels. One tracer may be
// active in the process at a time (CUPTI's activity buffers are process-wide).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace flashscope::profiler {

struct KernelRecord {
  std::string name;  // demangled when possible
  double ms = 0;     // end - start, from the GPU's timestamps
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
};

class KernelTracer {
 public:
  // Registers CUPTI's activity buffer callbacks (once per process).
  static absl::StatusOr<std::unique_ptr<KernelTracer>> Create();
  ~KernelTracer();
  KernelTracer(const KernelTracer&) = delete;
  KernelTracer& operator=(const KernelTracer&) = delete;

  // Starts recording kernels. FailedPrecondition when another tracer is recording.
  absl::Status Start();
  // Synchronizes the device, stops recording and returns the kernels in start order.
  absl::StatusOr<std::vector<KernelRecord>> Stop();
  // Start, launch(stream), Stop; a launch error returns the CUDA error name.
  absl::StatusOr<std::vector<KernelRecord>> Trace(
      const std::function<cudaError_t(cudaStream_t)>& launch, cudaStream_t stream);

 private:
  KernelTracer() = default;
  bool recording_ = false;
};

// Sum of the records' durations.
double TotalMs(const std::vector<KernelRecord>& records);

}  // namespace flashscope::profiler
