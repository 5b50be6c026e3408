// The gemm reference (fp64 accumulation) and baseline (fp32), and the output poisoning.
//
// A 16×16 shared-memory tiled product: each thread owns one C element and sums over k in order,
// so the fp32 version is exactly the plain in-order fp32 sum a naive implementation computes.
#include <cuda_runtime.h>

#include <cstdint>

#include "verify/device_types.cuh"
#include "verify/error_stats.h"
#include "verify/gpu_reference.h"

namespace flashscope::verify {
namespace {

using device::ToFloat;

constexpr int kTile = 16;

template <typename T, typename A>
__global__ void __launch_bounds__(kTile* kTile)
    GemmReferenceKernel(int64_t m, int64_t n, int64_t kdim, const T* a, const T* b, float* c) {
  __shared__ A as[kTile][kTile];
  __shared__ A bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t row = static_cast<int64_t>(blockIdx.y) * kTile + ty;
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kTile + tx;
  A acc = 0;
  for (int64_t k0 = 0; k0 < kdim; k0 += kTile) {
    const int64_t ka = k0 + tx, kb = k0 + ty;
    as[ty][tx] = row < m && ka < kdim ? static_cast<A>(ToFloat<T>(a[row * kdim + ka])) : A(0);
    bs[ty][tx] = kb < kdim && col < n ? static_cast<A>(ToFloat<T>(b[kb * n + col])) : A(0);
    __syncthreads();
    const int steps = static_cast<int>(kdim - k0 < kTile ? kdim - k0 : kTile);
    for (int kk = 0; kk < steps; ++kk) acc += as[ty][kk] * bs[kk][tx];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = static_cast<float>(acc);
}

template <typename T, typename A>
cudaError_t LaunchGemm(const GemmProblem& p, const void* a, const void* b, float* c,
                       cudaStream_t stream) {
  const int64_t gx = (p.n + kTile - 1) / kTile, gy = (p.m + kTile - 1) / kTile;
  if (gx > 0x7FFFFFFF || gy > 65535) return cudaErrorInvalidConfiguration;
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy));
  GemmReferenceKernel<T, A><<<grid, dim3(kTile, kTile), 0, stream>>>(
      p.m, p.n, p.k, static_cast<const T*>(a), static_cast<const T*>(b), c);
  return cudaGetLastError();
}

// One thread per C element; k in chunks of 16 (kTile), each summed exactly in fp64 (products of
// fp16/bf16 values are exact in fp64, and so is a sum of 16 of them unless their exponents differ
// by more than ~30), then added to the fp32 accumulator and truncated to fp32.
template <typename T>
__global__ void __launch_bounds__(kTile* kTile)
    GemmTensorCoreBaselineKernel(int64_t m, int64_t n, int64_t kdim, const T* a, const T* b,
                                 float* c) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t row = static_cast<int64_t>(blockIdx.y) * kTile + ty;
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kTile + tx;
  float acc = 0;
  for (int64_t k0 = 0; k0 < kdim; k0 += kTile) {
    const int64_t ka = k0 + tx, kb = k0 + ty;
    as[ty][tx] = row < m && ka < kdim ? ToFloat<T>(a[row * kdim + ka]) : 0.0f;
    bs[ty][tx] = kb < kdim && col < n ? ToFloat<T>(b[kb * n + col]) : 0.0f;
    __syncthreads();
    const int steps = static_cast<int>(kdim - k0 < kTile ? kdim - k0 : kTile);
    double chunk = 0;
    for (int kk = 0; kk < steps; ++kk) {
      chunk = __dadd_rn(chunk, __dmul_rn(as[ty][kk], bs[kk][tx]));
    }
    acc = __double2float_rz(__dadd_rn(static_cast<double>(acc), chunk));
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}

template <typename T>
cudaError_t LaunchTensorCoreBaseline(const GemmProblem& p, const void* a, const void* b, float* c,
                                     cudaStream_t stream) {
  const int64_t gx = (p.n + kTile - 1) / kTile, gy = (p.m + kTile - 1) / kTile;
  if (gx > 0x7FFFFFFF || gy > 65535) return cudaErrorInvalidConfiguration;
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy));
  GemmTensorCoreBaselineKernel<T><<<grid, dim3(kTile, kTile), 0, stream>>>(
      p.m, p.n, p.k, static_cast<const T*>(a), static_cast<const T*>(b), c);
  return cudaGetLastError();
}

}  // namespace

cudaError_t GemmTensorCoreBaselineGpu(const GemmProblem& p, const void* a, const void* b, float* c,
                                      cudaStream_t stream) {
  if (p.m <= 0 || p.n <= 0 || p.k <= 0) return cudaErrorInvalidValue;
  switch (p.dtype) {
    case DType::kF16:
      return LaunchTensorCoreBaseline<__half>(p, a, b, c, stream);
    case DType::kBF16:
      return LaunchTensorCoreBaseline<__nv_bfloat16>(p, a, b, c, stream);
    case DType::kF32:
      break;
  }
  return cudaErrorInvalidValue;
}

cudaError_t GemmReferenceGpu(const GemmProblem& p, const void* a, const void* b,
                             ReferencePrecision precision, float* c, cudaStream_t stream) {
  if (p.m <= 0 || p.n <= 0 || p.k <= 0) return cudaErrorInvalidValue;
  const bool f64 = precision == ReferencePrecision::kFp64;
  switch (p.dtype) {
    case DType::kF32:
      return f64 ? LaunchGemm<float, double>(p, a, b, c, stream)
                 : LaunchGemm<float, float>(p, a, b, c, stream);
    case DType::kF16:
      return f64 ? LaunchGemm<__half, double>(p, a, b, c, stream)
                 : LaunchGemm<__half, float>(p, a, b, c, stream);
    case DType::kBF16:
      return f64 ? LaunchGemm<__nv_bfloat16, double>(p, a, b, c, stream)
                 : LaunchGemm<__nv_bfloat16, float>(p, a, b, c, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t PoisonBytes(void* p, size_t bytes, cudaStream_t stream) {
  return cudaMemsetAsync(p, kPoisonByte, bytes, stream);
}

}  // namespace flashscope::verify
