// Measured peaks: what this GPU really reaches, as the denominator of "% of measured peak".
#include <cublas_v2.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "profiler/cuda_check.h"
#include "profiler/device_info.h"
#include "profiler/profiler_kernels.h"
#include "profiler/sample_stats.h"

namespace flashscope::profiler {
namespace {

constexpr int kGemmSize = 8192;
constexpr int kWarmup = 3;
constexpr int kRuns = 10;
constexpr size_t kCopyBytes = size_t{1} << 30;

absl::Status CublasStatus(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat(what, " failed: ", cublasGetStatusName(s), " (", cublasGetStatusString(s), ")"));
}

// Median milliseconds of `kRuns` event-timed runs of `run` after `kWarmup` untimed ones.
absl::StatusOr<double> MedianMs(const std::function<absl::Status()>& run, cudaStream_t stream) {
  cudaEvent_t start = nullptr, stop = nullptr;
  FS_CUDA_RETURN_IF_ERROR(cudaEventCreate(&start), "cudaEventCreate");
  absl::Cleanup free_start = [start] { cudaEventDestroy(start); };
  FS_CUDA_RETURN_IF_ERROR(cudaEventCreate(&stop), "cudaEventCreate");
  absl::Cleanup free_stop = [stop] { cudaEventDestroy(stop); };
  for (int i = 0; i < kWarmup; ++i) {
    if (absl::Status s = run(); !s.ok()) return s;
  }
  std::vector<double> ms;
  for (int i = 0; i < kRuns; ++i) {
    FS_CUDA_RETURN_IF_ERROR(cudaEventRecord(start, stream), "cudaEventRecord");
    if (absl::Status s = run(); !s.ok()) return s;
    FS_CUDA_RETURN_IF_ERROR(cudaEventRecord(stop, stream), "cudaEventRecord");
    FS_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float t = 0;
    FS_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
    ms.push_back(t);
  }
  return Summarize(ms).median;
}

absl::StatusOr<double> GemmTflops(cublasHandle_t handle, bool bf16, cudaStream_t stream) {
  const size_t elems = size_t{kGemmSize} * kGemmSize;
  void* buf[3] = {nullptr, nullptr, nullptr};
  absl::Cleanup free_all = [&buf] {
    for (void* p : buf) cudaFree(p);
  };
  for (int i = 0; i < 3; ++i) {
    FS_CUDA_RETURN_IF_ERROR(cudaMalloc(&buf[i], elems * 2), "cudaMalloc (peak GEMM operands)");
  }
  // Random operands: zeros run measurably faster than real data on some GPUs.
  for (int i = 0; i < 2; ++i) {
    FS_CUDA_RETURN_IF_ERROR(LaunchFillUniform16(buf[i], elems, bf16, 1234 + i, stream),
                            "fill kernel launch (peak GEMM operands)");
  }
  const cudaDataType_t type = bf16 ? CUDA_R_16BF : CUDA_R_16F;
  const float alpha = 1.0f, beta = 0.0f;
  auto run = [&]() -> absl::Status {
    return CublasStatus(
        cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, kGemmSize, kGemmSize, kGemmSize, &alpha,
                     buf[0], type, kGemmSize, buf[1], type, kGemmSize, &beta, buf[2], type,
                     kGemmSize, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx");
  };
  absl::StatusOr<double> ms = MedianMs(run, stream);
  if (!ms.ok()) return ms.status();
  const double flops = 2.0 * kGemmSize * double{kGemmSize} * kGemmSize;
  return flops / (*ms * 1e-3) / 1e12;
}

}  // namespace

absl::StatusOr<MeasuredPeaks> MeasurePeaks(cudaStream_t stream) {
  MeasuredPeaks peaks;
  cublasHandle_t handle = nullptr;
  if (absl::Status s = CublasStatus(cublasCreate(&handle), "cublasCreate"); !s.ok()) return s;
  absl::Cleanup destroy = [handle] { cublasDestroy(handle); };
  if (absl::Status s = CublasStatus(cublasSetStream(handle, stream), "cublasSetStream"); !s.ok()) {
    return s;
  }
  absl::StatusOr<double> fp16 = GemmTflops(handle, false, stream);
  if (!fp16.ok()) return fp16.status();
  absl::StatusOr<double> bf16 = GemmTflops(handle, true, stream);
  if (!bf16.ok()) return bf16.status();
  peaks.matmul_fp16_tflops = *fp16;
  peaks.matmul_bf16_tflops = *bf16;
  peaks.matmul_source = absl::StrCat("cublasGemmEx ", kGemmSize,
                                     "^3 NN, fp16/bf16 in and out, "
                                     "fp32 compute, random data, median of ",
                                     kRuns, " after ", kWarmup, " warm-up");

  void* src = nullptr;
  void* dst = nullptr;
  absl::Cleanup free_copy = [&] {
    cudaFree(src);
    cudaFree(dst);
  };
  FS_CUDA_RETURN_IF_ERROR(cudaMalloc(&src, kCopyBytes), "cudaMalloc (peak copy source, 1 GiB)");
  FS_CUDA_RETURN_IF_ERROR(cudaMalloc(&dst, kCopyBytes), "cudaMalloc (peak copy target, 1 GiB)");
  FS_CUDA_RETURN_IF_ERROR(LaunchFillUniform16(src, kCopyBytes / 2, false, 99, stream),
                          "fill kernel launch (peak copy source)");
  auto copy = [&]() -> absl::Status {
    FS_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(dst, src, kCopyBytes, cudaMemcpyDeviceToDevice, stream),
                            "cudaMemcpyAsync (device to device)");
    return absl::OkStatus();
  };
  absl::StatusOr<double> copy_ms = MedianMs(copy, stream);
  if (!copy_ms.ok()) return copy_ms.status();
  peaks.copy_gbps = 2.0 * static_cast<double>(kCopyBytes) / (*copy_ms * 1e-3) / 1e9;
  peaks.copy_source = absl::StrCat(
      "cudaMemcpyAsync device-to-device of 1 GiB, bytes read + "
      "written, median of ",
      kRuns, " after ", kWarmup, " warm-up");
  return peaks;
}

}  // namespace flashscope::profiler
