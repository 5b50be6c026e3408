// What the report says about the GPU: identity, size, clocks, driver and runtime versions, and
// measured peaks (cuBLAS dense matrix rate, device copy bandwidth) for "% of measured peak".
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "common/measured_peaks.h"

namespace flashscope::profiler {

struct DeviceInfo {
  std::string name;
  int sm_count = 0;
  int cc = 0;  // compute capability x 10
  int64_t l2_bytes = 0;
  int64_t memory_bytes = 0;
  int sm_clock_mhz = 0;         // peak (boost) SM clock the driver reports
  int memory_clock_mhz = 0;     // peak memory clock the driver reports
  int memory_bus_bits = 0;      // memory bus width (cudaDevAttrGlobalMemoryBusWidth)
  std::string driver_version;   // "580.95.05" from NVML when available, else "13.0" (CUDA API)
  std::string runtime_version;  // "13.0"
  // Which GPU this is whatever CUDA_VISIBLE_DEVICES says: what nvidia-smi prints, and what a
  // worker is pinned by (docs/devices.md).
  std::string uuid;        // "GPU-8932f937-d72c-4106-c12f-20bd9faed9f6"
  std::string pci_bus_id;  // "0000:3B:00.0"
};

// cudaDeviceProp::uuid as nvidia-smi prints it: "GPU-" and the 16 bytes in hex, 8-4-4-4-12.
std::string FormatGpuUuid(const unsigned char bytes[16]);

// Number of CUDA devices. No GPU or no driver -> FailedPrecondition saying so (never a crash).
absl::StatusOr<int> CountDevices();

absl::StatusOr<DeviceInfo> QueryDevice(int device = 0);

// The one peaks struct (common/measured_peaks.h): a report records what was measured as it is.
using MeasuredPeaks = ::flashscope::MeasuredPeaks;

// cuBLAS GemmEx 8192^3 fp16 and bf16 with fp32 accumulate on random data, and a 1 GiB
// device-to-device copy; each the median of >= 10 event-timed runs after warm-up. Takes a few
// seconds and ~2.4 GiB of device memory.
absl::StatusOr<MeasuredPeaks> MeasurePeaks(cudaStream_t stream);

}  // namespace flashscope::profiler
