// The gemm reference (fp64 accumulation), the baselines (in-order fp32 for fp32 inputs, a tensor
// core's chunked truncating sum for fp16/bf16/e4m3: baseline_rules.cuh), and the output poisoning.
//
// One 16×16 shared-memory tiled product serves all of them: each thread owns one C element and
// walks k in order; the accumulation policy (InOrderSum, TensorCoreChunks) is the only difference,
// so the fp32 in-order version is exactly the plain sum a naive implementation computes.
#include <cuda_runtime.h>

#include <cstdint>

#include "common/element_convert.cuh"
#include "verify/baseline_rules.cuh"
#include "verify/element_dispatch.cuh"
#include "verify/error_stats.h"
#include "verify/gpu_reference.h"

namespace flashscope::verify {
namespace {

constexpr int kTile = 16;

// How a 16-wide k step of the tile is added to a thread's accumulator. `Operand` is what the
// shared tiles hold, `Acc` the accumulator; `chunk_end` says that the step closes one of the
// policy's chunks (or is the last step).
template <typename A>
struct InOrderSum {  // the plain in-order sum in fp32 (baseline) or fp64 (reference)
  using Operand = A;
  using Acc = A;
  static constexpr int kChunk = kTile;
  __device__ static Acc AddTile(Acc acc, const A (&as)[kTile][kTile], const A (&bs)[kTile][kTile],
                                int ty, int tx, int steps, bool /*chunk_end*/) {
    for (int kk = 0; kk < steps; ++kk) acc += as[ty][kk] * bs[kk][tx];
    return acc;
  }
  __device__ static float Value(Acc acc) { return static_cast<float>(acc); }
};

// A tensor core's accumulation (BaselineRules<T>): the products of each chunk of kChunk
// consecutive k (16 for fp16/bf16: one k-step of mma.m16n8k16; 32 for e4m3: one k-step of
// wgmma.m64nNk32; from k = 0) summed exactly in fp64 (products of 16-bit or 8-bit floats are
// exact in fp64, and so is a sum of 32 of them unless their exponents differ by more than ~30),
// then added to the accumulator with the rules' truncation.
template <typename T>
struct TensorCoreChunks {
  using Operand = float;
  struct Acc {
    float sum = 0;
    double chunk = 0;  // the open chunk's exact partial sum
  };
  static constexpr int kChunk = BaselineRules<T>::kChunk;
  static_assert(kChunk % kTile == 0, "a chunk is whole tile steps");
  __device__ static Acc AddTile(Acc acc, const float (&as)[kTile][kTile],
                                const float (&bs)[kTile][kTile], int ty, int tx, int steps,
                                bool chunk_end) {
    for (int kk = 0; kk < steps; ++kk) {
      acc.chunk = __dadd_rn(acc.chunk, __dmul_rn(as[ty][kk], bs[kk][tx]));
    }
    if (chunk_end) {
      acc.sum = BaselineRules<T>::Accumulate(acc.sum, acc.chunk);
      acc.chunk = 0;
    }
    return acc;
  }
  __device__ static float Value(const Acc& acc) { return acc.sum; }
};

template <typename T, typename Sum>
__global__ void __launch_bounds__(kTile* kTile)
    GemmTiledKernel(int64_t m, int64_t n, int64_t kdim, const T* a, const T* b, float* c) {
  using S = typename Sum::Operand;
  __shared__ S as[kTile][kTile];
  __shared__ S bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t row = static_cast<int64_t>(blockIdx.y) * kTile + ty;
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kTile + tx;
  typename Sum::Acc acc{};
  for (int64_t k0 = 0; k0 < kdim; k0 += kTile) {
    const int64_t ka = k0 + tx, kb = k0 + ty;
    as[ty][tx] = row < m && ka < kdim ? static_cast<S>(ToFloat<T>(a[row * kdim + ka])) : S(0);
    bs[ty][tx] = kb < kdim && col < n ? static_cast<S>(ToFloat<T>(b[kb * n + col])) : S(0);
    __syncthreads();
    const int steps = static_cast<int>(kdim - k0 < kTile ? kdim - k0 : kTile);
    const bool chunk_end = k0 + kTile >= kdim || (k0 + kTile) % Sum::kChunk == 0;
    acc = Sum::AddTile(acc, as, bs, ty, tx, steps, chunk_end);
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = Sum::Value(acc);
}

template <typename T, typename Sum>
cudaError_t LaunchGemm(const GemmProblem& p, const void* a, const void* b, float* c,
                       cudaStream_t stream) {
  const int64_t gx = (p.n + kTile - 1) / kTile, gy = (p.m + kTile - 1) / kTile;
  if (gx > 0x7FFFFFFF || gy > 65535) return cudaErrorInvalidConfiguration;
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy));
  GemmTiledKernel<T, Sum><<<grid, dim3(kTile, kTile), 0, stream>>>(
      p.m, p.n, p.k, static_cast<const T*>(a), static_cast<const T*>(b), c);
  return cudaGetLastError();
}

}  // namespace

cudaError_t GemmTensorCoreBaselineGpu(const GemmProblem& p, const void* a, const void* b, float* c,
                                      cudaStream_t stream) {
  if (p.m <= 0 || p.n <= 0 || p.k <= 0) return cudaErrorInvalidValue;
  switch (p.dtype) {
    case DType::kF16:
      return LaunchGemm<__half, TensorCoreChunks<__half>>(p, a, b, c, stream);
    case DType::kBF16:
      return LaunchGemm<__nv_bfloat16, TensorCoreChunks<__nv_bfloat16>>(p, a, b, c, stream);
    case DType::kE4M3:
      return LaunchGemm<__nv_fp8_e4m3, TensorCoreChunks<__nv_fp8_e4m3>>(p, a, b, c, stream);
    case DType::kF32:
      break;
  }
  return cudaErrorInvalidValue;
}

cudaError_t GemmReferenceGpu(const GemmProblem& p, const void* a, const void* b,
                             ReferencePrecision precision, float* c, cudaStream_t stream) {
  if (p.m <= 0 || p.n <= 0 || p.k <= 0) return cudaErrorInvalidValue;
  const bool f64 = precision == ReferencePrecision::kFp64;
  return WithElementType(p.dtype, [&](auto element) {
    using T = decltype(element);
    return f64 ? LaunchGemm<T, InOrderSum<double>>(p, a, b, c, stream)
               : LaunchGemm<T, InOrderSum<float>>(p, a, b, c, stream);
  });
}

cudaError_t PoisonBytes(void* p, size_t bytes, cudaStream_t stream) {
  return cudaMemsetAsync(p, kPoisonByte, bytes, stream);
}

}  // namespace flashscope::verify
