#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "common/split_mix.h"
#include "verify/element_bits.cuh"
#include "verify/output_check.h"

namespace flashscope::verify {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 1024;  // grid-stride: any size

__device__ __forceinline__ unsigned long long WarpSum(unsigned long long v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

template <typename T>
__global__ void OutputCheckKernel(const typename ElementBits<T>::Type* out, const float* ref,
                                  long long n, ElementBoundDevice bound,
                                  OutputCheckCounts* counts) {
  using E = ElementBits<T>;
  unsigned long long bad = 0, never = 0, nonfinite = 0, hash = 0;
  float max_abs = 0.f;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const typename E::Type bits = out[i];
    // splitmix64's finaliser: every (index, bits) pair lands on an unrelated 64-bit value, so the
    // wrapping sum over elements changes when any element's bits or position change.
    hash += SplitMix64(static_cast<unsigned long long>(bits) ^
                       (static_cast<unsigned long long>(i) * 0xD6E8FEB86659FD93ull));
    if (bits == E::kPoison) {
      ++never;
      ++bad;
      continue;
    }
    const float v = E::Value(bits);
    if (!isfinite(v)) {
      ++nonfinite;
      ++bad;
      continue;
    }
    const double err = fabs(static_cast<double>(v) - static_cast<double>(ref[i]));
    const double limit = bound.absolute
                             ? bound.max_abs
                             : bound.atol + bound.rtol * fabs(static_cast<double>(ref[i]));
    if (err > limit) ++bad;
    max_abs = fmaxf(max_abs, static_cast<float>(err));
  }
  bad = WarpSum(bad);
  never = WarpSum(never);
  nonfinite = WarpSum(nonfinite);
  hash = WarpSum(hash);
  for (int o = 16; o > 0; o /= 2)
    max_abs = fmaxf(max_abs, __shfl_down_sync(0xffffffffu, max_abs, o));
  if (threadIdx.x % 32 != 0) return;
  if (bad) atomicAdd(&counts->bad, bad);
  if (never) atomicAdd(&counts->never_written, never);
  if (nonfinite) atomicAdd(&counts->nonfinite, nonfinite);
  atomicAdd(&counts->hash, hash);                              // wraps: the sum is order-free
  atomicMax(&counts->max_abs_bits, __float_as_uint(max_abs));  // max_abs >= 0: bits order
}

}  // namespace

cudaError_t LaunchOutputCheck(const void* out, DType dtype, const float* ref, int64_t n,
                              const ElementBoundDevice& bound, OutputCheckCounts* counts,
                              cudaStream_t stream) {
  if (cudaError_t e = cudaMemsetAsync(counts, 0, sizeof(OutputCheckCounts), stream);
      e != cudaSuccess) {
    return e;
  }
  if (n <= 0) return cudaSuccess;
  const long long blocks_needed = (n + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(blocks_needed < kMaxBlocks ? blocks_needed : kMaxBlocks);
  switch (dtype) {
    case DType::kF32:
      OutputCheckKernel<float><<<blocks, kThreads, 0, stream>>>(
          static_cast<const unsigned int*>(out), ref, n, bound, counts);
      break;
    case DType::kF16:
      OutputCheckKernel<__half><<<blocks, kThreads, 0, stream>>>(
          static_cast<const unsigned short*>(out), ref, n, bound, counts);
      break;
    case DType::kBF16:
      OutputCheckKernel<__nv_bfloat16><<<blocks, kThreads, 0, stream>>>(
          static_cast<const unsigned short*>(out), ref, n, bound, counts);
      break;
    case DType::kE4M3:  // never an output type: an E4M3 attention writes BF16
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace flashscope::verify
