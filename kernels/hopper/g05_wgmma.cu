// g05_wgmma — intent: the GEMM ladder's Hopper rung: the tensor cores driven by a warpgroup with
// wgmma.mma_async (sm_90a), operands read by the tensor cores straight from shared memory through
// matrix descriptors, the accumulators in registers.
// Changed vs g04 (mma.sync m16n8k16 from ldmatrix fragments, 8 warps, 128x128 tiles): two
// warpgroups (8 warps, 256 threads) own a 128x128 tile of C, each issuing wgmma.m64n128k16 (fp16
// in, fp32 acc) on its 64 rows of A and the shared B tile
// four times per 64-wide K step; no ldmatrix, no per-warp fragments. Shared memory holds A (128x64,
// K-major) and B (64x128, N-major as in global memory, which wgmma reads with its transpose bit)
// in the 128-byte swizzled layout: 1024-byte atoms of 8 rows of 128 bytes, the 16-byte chunk c of
// atom row r at position c ^ r, so the tensor cores' operand reads spread over all banks (the
// unswizzled "interleaved" layout ran 3x slower). Every shared store is one 16-byte chunk, a
// quarter warp filling 8 rows of one chunk column (conflict-free).
// Aligned shapes (K, N multiples of 8): a 3-stage cp.async pipeline copies each 16-byte chunk
// straight to its swizzled place, two tiles in flight while the wgmmas of a third run; the
// previous step's wgmmas are retired (wgmma.wait_group 1) before their stage is refilled.
// Other shapes: two buffers staged through registers with zero fill at the edges. Either way
// fence.proxy.async precedes the barrier: the tensor cores read shared memory through the async
// proxy.
// Any M, N, K (zero fill at the edges). fp16 only, like g04. Built for sm_90a only
// (-gencode=arch=compute_90a,code=sm_90a): it runs on compute capability 9.0 (H100, H200) and
// nowhere else, which KernelInfo::exact_sm says.
// The wgmma, descriptor and fence wrappers and the epilogue are shared with g06
// (kernels/hopper/hopper_ptx.cuh, wgmma_epilogue.cuh).
// History and predictions: docs/perf-notes.md ("gemm.g05_wgmma"): v1 transposed B through
// 2-byte stores (39 TFLOPS, shared-memory bound), v3 staged 12 loads per thread through
// registers (124 TFLOPS, latency bound), v4 a cp.async pipeline (105), v5 the 128-byte swizzle
// (337), v6 two warpgroups sharing B (375 at 4096^3 on an H200).
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/gemm/gemm_common.cuh"
#include "kernels/hopper/hopper_ptx.cuh"
#include "kernels/hopper/wgmma_epilogue.cuh"
#include "kernels/ptx.cuh"
#include "kernels/registry.h"

namespace flashscope::kernels {
namespace {

constexpr int kBM = 128, kBN = 128, kBK = 64, kThreads = 256;  // two warpgroups, 64 rows each
constexpr int kAChunks = kBM * kBK / 8 / kThreads;       // 16-byte chunks per thread and K step: 4
constexpr int kBChunks = kBK * kBN / 8 / kThreads;       // 4
constexpr int kAElems = kBM * kBK, kBElems = kBN * kBK;  // halves per buffer
constexpr int kStages = 3;                               // tiles in flight in the cp.async kernel
// Both sizes include 1 KiB of slack for aligning the base to the 1024-byte swizzle atoms.
constexpr size_t kSmemBytes = size_t(2) * (kAElems + kBElems) * sizeof(__half) + 1024;  // 65 KiB
constexpr size_t kAsyncSmemBytes =
    size_t(kStages) * (kAElems + kBElems) * sizeof(__half) + 1024;  // 97 KiB (+1 KiB slack)

// 128-byte swizzle: a tile is a grid of 1024-byte atoms, 8 rows of 128 bytes; the 16-byte chunk c
// of atom row r sits at chunk position c ^ r. The tensor cores then read 8 rows of one chunk
// column from 8 different bank groups.

// Byte offset of A element (r, k) in the [kBM x kBK] K-major tile (one 128-byte row per r).
__device__ __forceinline__ int OffsetA(int r, int k) {
  return (r >> 3) * 1024 + (r & 7) * 128 + ((((k >> 3) ^ r) & 7) << 4) + (k & 7) * 2;
}

// Byte offset of B element (k, n) in the [kBK x kBN] tile kept N-major (MN-major for wgmma, the
// transpose bit set): atoms of 8 k-rows x 64 n, the kBN/64 atoms of one k-group side by side.
__device__ __forceinline__ int OffsetB(int k, int n) {
  return ((k >> 3) * (kBN / 64) + (n >> 6)) * 1024 + (k & 7) * 128 +
         (((((n & 63) >> 3) ^ k) & 7) << 4) + (n & 7) * 2;
}

// 8 halves at src (n valid of them), zero-filled beyond, as one 16-byte value.
__device__ __forceinline__ uint4 LoadChunk(const __half* src, int valid, bool vec_ok) {
  if (valid >= 8 && vec_ok) return *reinterpret_cast<const uint4*>(src);
  __align__(16) __half h[8];
#pragma unroll
  for (int e = 0; e < 8; ++e) h[e] = e < valid ? src[e] : __float2half(0.f);
  return *reinterpret_cast<const uint4*>(h);
}

// The chunks one thread moves per K step: 4 of A, 8 of B, each one 16-byte core-matrix row.
struct Staged {
  uint4 a[kAChunks], b[kBChunks];
};

// Position of chunk i of this thread: lane % 8 picks the row within a core matrix, so a quarter
// warp writes 128 contiguous bytes of shared memory (no bank conflict) while lane / 8 walks along
// the global row (64 contiguous bytes per row and warp).
__device__ __forceinline__ void ChunkPosA(int i, int* r, int* kc) {
  const int c = threadIdx.x + i * kThreads, lane = c % 32, w = c / 32;  // w: 0..31
  *r = (w % 16) * 8 + lane % 8;
  *kc = ((w / 16) * 4 + lane / 8) * 8;
}
__device__ __forceinline__ void ChunkPosB(int i, int* kr, int* nc) {
  const int c = threadIdx.x + i * kThreads, lane = c % 32, w = c / 32;  // w: 0..31
  *kr = (w % 8) * 8 + lane % 8;
  *nc = ((w / 8) * 4 + lane / 8) * 8;
}

// Issues every global load of the A tile (kBM x kBK at m0, k0) and the B tile (kBK x kBN at k0,
// n0) before any is used: 12 loads in flight per thread. Interior tiles take straight-line 16-byte
// loads; edge tiles zero-fill element by element.
__device__ __forceinline__ void LoadTiles(Staged* st, const __half* A, const __half* B, int M,
                                          int N, int K, int m0, int n0, int k0, bool vec_ok) {
  const bool interior = vec_ok && m0 + kBM <= M && n0 + kBN <= N && k0 + kBK <= K;
#pragma unroll
  for (int i = 0; i < kAChunks; ++i) {
    int r, kc;
    ChunkPosA(i, &r, &kc);
    const __half* src = A + int64_t(m0 + r) * K + k0 + kc;
    if (interior) {
      st->a[i] = *reinterpret_cast<const uint4*>(src);
    } else {
      st->a[i] = m0 + r < M ? LoadChunk(src, K - (k0 + kc), vec_ok) : make_uint4(0, 0, 0, 0);
    }
  }
#pragma unroll
  for (int i = 0; i < kBChunks; ++i) {
    int kr, nc;
    ChunkPosB(i, &kr, &nc);
    const __half* src = B + int64_t(k0 + kr) * N + n0 + nc;
    if (interior) {
      st->b[i] = *reinterpret_cast<const uint4*>(src);
    } else {
      st->b[i] = k0 + kr < K ? LoadChunk(src, N - (n0 + nc), vec_ok) : make_uint4(0, 0, 0, 0);
    }
  }
}

__device__ __forceinline__ void StoreTiles(const Staged& st, unsigned char* sA, unsigned char* sB) {
#pragma unroll
  for (int i = 0; i < kAChunks; ++i) {
    int r, kc;
    ChunkPosA(i, &r, &kc);
    *reinterpret_cast<uint4*>(sA + OffsetA(r, kc)) = st.a[i];
  }
#pragma unroll
  for (int i = 0; i < kBChunks; ++i) {
    int kr, nc;
    ChunkPosB(i, &kr, &nc);
    *reinterpret_cast<uint4*>(sB + OffsetB(kr, nc)) = st.b[i];
  }
}

// The four wgmmas of one 64-wide K step on the A and B tiles at sA, sB.
__device__ __forceinline__ void WgmmaStep(float (&d)[64], const unsigned char* sA,
                                          const unsigned char* sB) {
  // Each warpgroup multiplies its own 64 rows of A (8 swizzle atoms on).
  const int wg = threadIdx.x / 128;
#pragma unroll
  for (int kk = 0; kk < kBK / 16; ++kk) {
    // A: the k16 slice starts 32 bytes further along each 128-byte row; SBO: next 8-row atom
    // (1024 bytes); LBO unused (the tile's K fits in one atom row), set to 16.
    const uint64_t da = hopper::SmemDescriptorSw128(sA + wg * 8 * 1024 + kk * 32, 16, 1024);
    // B (N-major): the slice is two 8-k atom rows (2 x kBN/64 atoms on); LBO: next 64-n atom
    // (1024 bytes); SBO: next 8-k group (kBN/64 atoms on).
    const uint64_t db =
        hopper::SmemDescriptorSw128(sB + kk * 2 * (kBN / 64) * 1024, 1024, (kBN / 64) * 1024);
    hopper::Wgmma<kBN>::SS<__half, false, true>(d, da, db, 1);
  }
}

// Aligned shapes (K, N multiples of 8, 16-byte aligned operands): every chunk is wholly inside or
// outside the matrices, so cp.async copies it straight into its core-matrix row (zero-filling the
// outside ones) with kStages tiles in flight, and no register staging.
__device__ __forceinline__ void CopyTilesAsync(unsigned char* sA, unsigned char* sB,
                                               const __half* A, const __half* B, int M, int N,
                                               int K, int m0, int n0, int k0) {
#pragma unroll
  for (int i = 0; i < kAChunks; ++i) {
    int r, kc;
    ChunkPosA(i, &r, &kc);
    const bool ok = m0 + r < M && k0 + kc < K;
    ptx::CpAsync16(ptx::SmemAddr(sA + OffsetA(r, kc)), ok ? A + int64_t(m0 + r) * K + k0 + kc : A,
                   ok);
  }
#pragma unroll
  for (int i = 0; i < kBChunks; ++i) {
    int kr, nc;
    ChunkPosB(i, &kr, &nc);
    const bool ok = k0 + kr < K && n0 + nc < N;
    ptx::CpAsync16(ptx::SmemAddr(sB + OffsetB(kr, nc)), ok ? B + int64_t(k0 + kr) * N + n0 + nc : B,
                   ok);
  }
}

__global__ void __launch_bounds__(kThreads, 1)
    G05WgmmaAsyncKernel(const __half* A, const __half* B, float* C, int M, int N, int K) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  // Swizzle atoms must start on 1024-byte boundaries; the launch adds 1 KiB of slack.
  unsigned char* const smem =
      smem_raw +
      ((1024 - (static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw)) & 1023)) & 1023);
  unsigned char* const sA0 = smem;
  unsigned char* const sB0 = smem + kStages * kAElems * 2;
  const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;
  const int k_tiles = (K + kBK - 1) / kBK;
  float d[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) d[i] = 0.f;

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < k_tiles) {
      CopyTilesAsync(sA0 + s * kAElems * 2, sB0 + s * kBElems * 2, A, B, M, N, K, m0, n0, s * kBK);
    }
    ptx::CpAsyncCommit();  // one group per stage, empty or not: uniform wait counts
  }
  for (int kt = 0; kt < k_tiles; ++kt) {
    const int stage = kt % kStages;
    ptx::CpAsyncWait<kStages - 2>();  // this thread's copies of tile kt have landed
    hopper::FenceProxyAsyncShared();  // ...and are visible to the tensor cores (async proxy)
    __syncthreads();                  // everyone's copies of tile kt
    hopper::WgmmaFence();
    WgmmaStep(d, sA0 + stage * kAElems * 2, sB0 + stage * kBElems * 2);
    hopper::WgmmaCommit();
    // Keep this step's wgmmas in flight, retire the previous step's: its stage is refilled next.
    hopper::WgmmaWait<1>();
    const int next = kt + kStages - 1;
    if (next < k_tiles) {
      const int ns = next % kStages;
      CopyTilesAsync(sA0 + ns * kAElems * 2, sB0 + ns * kBElems * 2, A, B, M, N, K, m0, n0,
                     next * kBK);
    }
    ptx::CpAsyncCommit();
  }
  hopper::WgmmaWait<0>();
  ptx::CpAsyncWait<0>();
  hopper::StoreWgmmaAccumulators<kBN>(d, C, M, N, m0 + (threadIdx.x / 32) * 16, n0);
}

__global__ void __launch_bounds__(kThreads, 1)
    G05WgmmaKernel(const __half* A, const __half* B, float* C, int M, int N, int K, bool vec_ok) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  // Swizzle atoms must start on 1024-byte boundaries; the launch adds 1 KiB of slack.
  unsigned char* const smem =
      smem_raw +
      ((1024 - (static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw)) & 1023)) & 1023);
  // Buffers by arithmetic, not a pointer array: a run-time index into an array would put it in
  // local memory.
  unsigned char* const sA0 = smem;
  unsigned char* const sB0 = smem + 2 * kAElems * 2;
  const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;
  const int k_tiles = (K + kBK - 1) / kBK;

  float d[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) d[i] = 0.f;

  Staged st;
  LoadTiles(&st, A, B, M, N, K, m0, n0, 0, vec_ok);
  StoreTiles(st, sA0, sB0);
  for (int kt = 0; kt < k_tiles; ++kt) {
    const int buf = kt & 1;
    unsigned char* const sA = sA0 + buf * kAElems * 2;
    unsigned char* const sB = sB0 + buf * kBElems * 2;
    hopper::FenceProxyAsyncShared();  // this thread's generic-proxy stores become visible to the
                                      // tensor cores
    __syncthreads();
    hopper::WgmmaFence();
    WgmmaStep(d, sA, sB);
    hopper::WgmmaCommit();
    // Overlap: fetch the next step into the other buffer while the tensor cores work. That buffer
    // was last read by the previous step's wgmmas, which the wait below retired.
    if (kt + 1 < k_tiles) {
      LoadTiles(&st, A, B, M, N, K, m0, n0, (kt + 1) * kBK, vec_ok);
      StoreTiles(st, sA0 + (buf ^ 1) * kAElems * 2, sB0 + (buf ^ 1) * kBElems * 2);
    }
    hopper::WgmmaWait<0>();
  }

  hopper::StoreWgmmaAccumulators<kBN>(d, C, M, N, m0 + (threadIdx.x / 32) * 16, n0);
}

std::string G05Supports(const GemmProblem& p) {
  return TensorCoreGemmSupport(p, kBM,
                               "g05 issues wgmma with fp16 operands (use gemm.g01..g03 for fp32)");
}

bool AsyncPath(const GemmProblem& p, const void* a, const void* b) {
  return p.k % 8 == 0 && p.n % 8 == 0 && reinterpret_cast<uintptr_t>(a) % 16 == 0 &&
         reinterpret_cast<uintptr_t>(b) % 16 == 0;
}

cudaError_t LaunchG05(const GemmProblem& p, const GemmArgs& a, cudaStream_t stream) {
  static const cudaError_t attr = cudaFuncSetAttribute(
      G05WgmmaKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kSmemBytes));
  if (attr != cudaSuccess) return attr;
  static const cudaError_t async_attr =
      cudaFuncSetAttribute(G05WgmmaAsyncKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(kAsyncSmemBytes));
  if (async_attr != cudaSuccess) return async_attr;
  const dim3 grid(static_cast<unsigned>((p.n + kBN - 1) / kBN),
                  static_cast<unsigned>((p.m + kBM - 1) / kBM));
  const auto* A = static_cast<const __half*>(a.a);
  const auto* B = static_cast<const __half*>(a.b);
  const int M = static_cast<int>(p.m), N = static_cast<int>(p.n), K = static_cast<int>(p.k);
  if (AsyncPath(p, a.a, a.b)) {
    G05WgmmaAsyncKernel<<<grid, kThreads, kAsyncSmemBytes, stream>>>(A, B, a.c, M, N, K);
  } else {
    // Unaligned shapes: chunks may straddle the edge, so they go through registers with zero fill.
    G05WgmmaKernel<<<grid, kThreads, kSmemBytes, stream>>>(A, B, a.c, M, N, K,
                                                           /*vec_ok=*/false);
  }
  return cudaGetLastError();
}

}  // namespace

KernelEntry MakeG05Wgmma() {
  KernelEntry e;
  e.info.id = "gemm.g05_wgmma";
  e.info.family = Family::kGemm;
  e.info.revision = 5;
  e.info.title =
      "wgmma.m64n128k16 from swizzled shared memory, two warpgroups, 128x128x64 tiles, cp.async";
  e.info.changed =
      "Hopper warpgroup MMA (wgmma.mma_async, sm_90a): operands read by the tensor cores from "
      "shared memory, no ldmatrix; next K step loaded while the wgmmas run";
  e.info.min_sm = 90;
  e.info.exact_sm = 90;  // sm_90a code: compute capability 9.0 only
  e.info.tile = TileShape{kBM, kBN, kBK, kThreads};
  e.info.required_sass = {"HGMMA", "LDGSTS"};  // wgmma fed by cp.async
  e.gemm_supports = G05Supports;
  e.gemm_launch = LaunchG05;
  e.device_functions = [](const Problem& pr) {
    std::vector<DeviceFunction> out;
    if (const auto* p = std::get_if<GemmProblem>(&pr); p != nullptr && G05Supports(*p).empty()) {
      // The cp.async kernel is the one launched for K, N multiples of 8 (aligned operands).
      const bool async = p->k % 8 == 0 && p->n % 8 == 0;
      out.push_back(async ? DeviceFunction{reinterpret_cast<const void*>(&G05WgmmaAsyncKernel),
                                           "G05WgmmaAsyncKernel", kThreads, kAsyncSmemBytes}
                          : DeviceFunction{reinterpret_cast<const void*>(&G05WgmmaKernel),
                                           "G05WgmmaKernel", kThreads, kSmemBytes});
    }
    return out;
  };
  return e;
}

}  // namespace flashscope::kernels
