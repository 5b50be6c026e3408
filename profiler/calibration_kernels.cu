#include <cuda_fp16.h>

#include "profiler/calibration_kernels.h"

namespace flashscope::profiler {
namespace {

constexpr int kAccumulators = 8;  // independent mma chains per warp: enough to fill the pipe

__device__ __forceinline__ void Mma16816(float (&d)[4], const uint32_t (&a)[4],
                                         const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__global__ void MmaLoopKernel(float* out, int iters) {
  // Operands come from the thread index so the compiler cannot fold them; tiny values keep the
  // accumulators finite over millions of steps.
  const __half2 va = __floats2half2_rn(1e-3f * (threadIdx.x & 7), 1e-3f);
  const __half2 vb = __floats2half2_rn(1e-3f, 1e-3f * (threadIdx.x & 3));
  uint32_t a[4], b[2];
  for (int i = 0; i < 4; ++i) a[i] = *reinterpret_cast<const uint32_t*>(&va);
  for (int i = 0; i < 2; ++i) b[i] = *reinterpret_cast<const uint32_t*>(&vb);
  float acc[kAccumulators][4] = {};
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < kAccumulators; ++k) Mma16816(acc[k], a, b);
  }
  float sum = 0.f;
#pragma unroll
  for (int k = 0; k < kAccumulators; ++k) sum += acc[k][0] + acc[k][1] + acc[k][2] + acc[k][3];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

constexpr int kSharedFloat4s = 2048;  // 32 KiB

__global__ void SharedLoopKernel(float* out, int iters) {
  __shared__ float4 tile[kSharedFloat4s];
  for (int i = threadIdx.x; i < kSharedFloat4s; i += blockDim.x) {
    tile[i] = make_float4(i, i + 1, i + 2, i + 3);
  }
  __syncthreads();
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
  float4 acc = make_float4(0, 0, 0, 0);
  // Consecutive lanes read consecutive 16-byte words: each warp load is four conflict-free
  // wavefronts. asm volatile keeps every load (the tile never changes, so plain C++ loads could
  // be hoisted or merged). Four loads in flight per step hide the shared-memory latency.
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const int idx = (threadIdx.x + (it * 4 + u) * blockDim.x) & (kSharedFloat4s - 1);
      float4 v;
      asm volatile("ld.shared.v4.f32 {%0,%1,%2,%3}, [%4];"
                   : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                   : "r"(base + idx * 16u));
      acc.x += v.x;
      acc.y += v.y;
      acc.z += v.z;
      acc.w += v.w;
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc.x + acc.y + acc.z + acc.w;
}

constexpr int kCopyUnroll = 4;

__global__ void CopyKernel(float4* __restrict__ dst, const float4* __restrict__ src, size_t n) {
  // Each block copies contiguous tiles of blockDim x 4 vectors (four 16-byte loads in flight per
  // thread, neighbouring lanes on neighbouring addresses), tiles strided over the grid.
  const size_t tile = static_cast<size_t>(blockDim.x) * kCopyUnroll;
  for (size_t base = blockIdx.x * tile; base < n; base += gridDim.x * tile) {
    float4 v[kCopyUnroll];
#pragma unroll
    for (int u = 0; u < kCopyUnroll; ++u) {
      const size_t i = base + u * blockDim.x + threadIdx.x;
      if (i < n) v[u] = src[i];
    }
#pragma unroll
    for (int u = 0; u < kCopyUnroll; ++u) {
      const size_t i = base + u * blockDim.x + threadIdx.x;
      if (i < n) dst[i] = v[u];
    }
  }
}

__device__ __forceinline__ float Ex2(float x) {
  float y;
  asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

__global__ void ExpLoopKernel(float* out, int iters) {
  float x[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) x[k] = -0.01f * (threadIdx.x & 15) - 0.1f * k;
  // x <- 2^(-x) stays in (0.5, 1.5): no overflow, no denormals; one MUFU.EX2 and one FMUL (or
  // the negation folded into the MUFU operand) per step, so the XU pipe is the bottleneck.
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = Ex2(-x[k]);
  }
  float sum = 0.f;
#pragma unroll
  for (int k = 0; k < 8; ++k) sum += x[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

__global__ void SpinKernel(int64_t ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (static_cast<int64_t>(now - start) < ns);
}

}  // namespace

cudaError_t LaunchMmaLoop(float* out, int blocks, int iters, cudaStream_t stream) {
  MmaLoopKernel<<<blocks, kCalibrationBlockThreads, 0, stream>>>(out, iters);
  return cudaGetLastError();
}

cudaError_t LaunchSharedLoop(float* out, int blocks, int iters, cudaStream_t stream) {
  SharedLoopKernel<<<blocks, kCalibrationBlockThreads, 0, stream>>>(out, iters);
  return cudaGetLastError();
}

cudaError_t LaunchCopy(void* dst, const void* src, size_t bytes, int blocks, cudaStream_t stream) {
  if (bytes % 16 != 0) return cudaErrorInvalidValue;
  CopyKernel<<<blocks, 256, 0, stream>>>(static_cast<float4*>(dst), static_cast<const float4*>(src),
                                         bytes / 16);
  return cudaGetLastError();
}

cudaError_t LaunchExpLoop(float* out, int blocks, int iters, cudaStream_t stream) {
  ExpLoopKernel<<<blocks, kCalibrationBlockThreads, 0, stream>>>(out, iters);
  return cudaGetLastError();
}

__global__ void IncrementKernel(unsigned* data, size_t count) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
       i += stride) {
    data[i] += 1;
  }
}

cudaError_t LaunchIncrement(unsigned* data, size_t count, cudaStream_t stream) {
  IncrementKernel<<<256, kCalibrationBlockThreads, 0, stream>>>(data, count);
  return cudaGetLastError();
}

cudaError_t LaunchSpin(int64_t ns, int blocks, cudaStream_t stream) {
  SpinKernel<<<blocks, 1, 0, stream>>>(ns);
  return cudaGetLastError();
}

const void* CalibrationFunction(CalibrationKernel kernel) {
  switch (kernel) {
    case CalibrationKernel::kMmaLoop:
      return reinterpret_cast<const void*>(&MmaLoopKernel);
    case CalibrationKernel::kSharedLoop:
      return reinterpret_cast<const void*>(&SharedLoopKernel);
    case CalibrationKernel::kCopy:
      return reinterpret_cast<const void*>(&CopyKernel);
    case CalibrationKernel::kExpLoop:
      return reinterpret_cast<const void*>(&ExpLoopKernel);
    case CalibrationKernel::kSpin:
      return reinterpret_cast<const void*>(&SpinKernel);
    case CalibrationKernel::kIncrement:
      return reinterpret_cast<const void*>(&IncrementKernel);
  }
  return nullptr;
}

}  // namespace flashscope::profiler
