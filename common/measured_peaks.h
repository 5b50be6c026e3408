// The peaks a run measures on its GPU (profiler/device_info.h's MeasurePeaks) and every report
// records (reports/report.h): one struct for both, so that a peak added here reaches the report
// without a copy in between.
#pragma once

#include <string>

namespace flashscope {

struct MeasuredPeaks {
  double matmul_fp16_tflops = 0;  // dense fp16 GEMM through cuBLAS, random data
  double matmul_bf16_tflops = 0;
  double copy_gbps = 0;       // device-to-device copy, bytes read + written per second (GB/s)
  std::string matmul_source;  // how it was measured, e.g. "cublasGemmEx 8192x8192x8192, ..."
  std::string copy_source;
};

}  // namespace flashscope
