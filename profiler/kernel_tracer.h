// CUPTI activity records of a traced launch. By default the kernels alone
// (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL): exact durations per kernel and summed, for
// implementations that launch several. With `TraceScope::kAllWork`, also every memory copy and
// memset and every synchronisation API call, each with its CUPTI stream id: what the trust checks'
// stream accounting reads (docs/trust.md). CUPTI sees work from every CUDA runtime in the process
// (a plugin may link its own), since it records at the driver. One tracer may be active in the
// process at a time (CUPTI's activity buffers are process-wide).
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

enum class ActivityKind { kKernel, kMemcpy, kMemset, kSync };
const char* ActivityKindName(ActivityKind kind);  // "kernel", "memcpy", "memset", "sync"

// Stream id of a record that belongs to no stream (a context or event synchronisation).
inline constexpr uint32_t kNoStream = 0xFFFFFFFFu;

// One record. Timestamps are CUPTI's (nanoseconds, the time base of HostTimestampNs()): GPU
// execution for kernels, copies and memsets; the API call on the host for synchronisations.
struct KernelRecord {
  ActivityKind kind = ActivityKind::kKernel;
  // kernel: its name, demangled when possible; memcpy: "HtoD", "DtoH", "DtoD", ...;
  // memset: "memset"; sync: "cudaStreamSynchronize", "cudaEventSynchronize",
  // "cudaDeviceSynchronize" (a context synchronisation), "cudaStreamWaitEvent", "unknown".
  std::string name;
  double ms = 0;  // end - start
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t stream_id = kNoStream;
  uint64_t bytes = 0;        // memcpy, memset
  bool synchronous = false;  // memcpy: not flagged asynchronous by CUPTI (the host waited)
};

enum class TraceScope {
  kKernels,  // kernels only (the profile's per-kernel durations)
  kAllWork,  // kernels, copies, memsets and synchronisation calls
};

class KernelTracer {
 public:
  // Registers CUPTI's activity buffer callbacks (once per process).
  static absl::StatusOr<std::unique_ptr<KernelTracer>> Create();
  ~KernelTracer();
  KernelTracer(const KernelTracer&) = delete;
  KernelTracer& operator=(const KernelTracer&) = delete;

  // Synchronizes the device (work queued before must not show up), then starts recording.
  // FailedPrecondition when another tracer is recording.
  absl::Status Start(TraceScope scope = TraceScope::kKernels);
  // Synchronizes the device, stops recording and returns the records in start order.
  absl::StatusOr<std::vector<KernelRecord>> Stop();
  // Start, launch(stream), Stop; a launch error returns the CUDA error name.
  absl::StatusOr<std::vector<KernelRecord>> Trace(
      const std::function<cudaError_t(cudaStream_t)>& launch, cudaStream_t stream,
      TraceScope scope = TraceScope::kKernels);

 private:
  KernelTracer() = default;
  bool recording_ = false;
  TraceScope scope_ = TraceScope::kKernels;
};

// Sum of the kernel records' durations (other kinds are not counted).
double TotalMs(const std::vector<KernelRecord>& records);

// CUPTI's clock, the time base of every record (cuptiGetTimestamp); 0 if CUPTI cannot read it.
uint64_t HostTimestampNs();

}  // namespace flashscope::profiler
