// attention_fwd rung 4: a03 plus 16-byte coalesced global memory traffic.
//
// Intent: a03 moved the math onto the tensor cores, and its tile loads became visible: each
// thread copied one 2-byte element per instruction, so a warp issued a 64-byte request per load.
// Here every global load of Q, K and V and every store of O moves 16 bytes (uint4, 8 elements)
// per thread, so a warp moves 512 contiguous bytes per instruction and the load/store instruction
// count drops by 8×. Rows of 64 or 128 elements keep each 16-byte vector inside one row, and rows
// past the sequence end are zero-filled as whole vectors.
// Changed vs a03: uint4 loads into shared memory and uint4 stores of O (fallback to a03's element
// copies when a caller's pointer is not 16-byte aligned). Math, tiles and softmax unchanged.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/attention/attention_common.cuh"
#include "kernels/attention/attn_wmma_core.cuh"
#include "kernels/kernel_list.h"

namespace flashscope::kernels {
namespace {

using namespace attn_wmma;

constexpr int kVec = 8;  // elements of T per 16-byte vector

// Copies `rows` × D elements (row stride D in global) into a tile with row stride `ld`,
// zero-filling rows past `valid_rows` so that padded keys contribute nothing (and V never feeds
// garbage or NaN into P·V). kVectorized: 16-byte vectors, which needs 16-byte aligned `src`
// (checked at launch); `dst` rows are 16-byte aligned because ld·sizeof(T) is a multiple of 16.
template <typename T, int D, bool kVectorized>
__device__ __forceinline__ void LoadTile(T* dst, int ld, const T* src, int rows, int valid_rows) {
  if constexpr (kVectorized) {
    constexpr int kVecPerRow = D / kVec;
    for (int idx = threadIdx.x; idx < rows * kVecPerRow; idx += kThreads) {
      const int r = idx / kVecPerRow;
      const int c = (idx % kVecPerRow) * kVec;
      uint4 val = make_uint4(0u, 0u, 0u, 0u);  // all-zero bits are +0 in fp16 and bf16
      if (r < valid_rows)
        val = *reinterpret_cast<const uint4*>(src + static_cast<long long>(r) * D + c);
      *reinterpret_cast<uint4*>(dst + r * ld + c) = val;
    }
  } else {
    LoadTileElements<T, D>(dst, ld, src, rows, valid_rows);
  }
}

template <typename T, int D, bool kVectorized>
__global__ void __launch_bounds__(kThreads)
    A04VectorizedKernel(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                        T* __restrict__ o, float* __restrict__ lse, int heads, int seq_q, int seq_k,
                        bool causal, float scale) {
  using L = Smem<T, D>;
  extern __shared__ __align__(128) unsigned char smem[];
  const Tiles<T, D> t(smem);

  const int m0 = blockIdx.x * kBlockM;
  const long long bh = static_cast<long long>(blockIdx.z) * heads + blockIdx.y;
  AttendAllKeyTiles(t, q, k, v, bh, m0, seq_q, seq_k, causal, scale,
                    [](T* dst, const T* src, int rows, int valid_rows) {
                      LoadTile<T, D, kVectorized>(dst, L::kLdIn, src, rows, valid_rows);
                    });

  // Epilogue: O / l in the input dtype; rows that saw no key have l = 0 and write zeros, lse -inf.
  constexpr int kVecPerRow = D / kVec;
  for (int idx = threadIdx.x; idx < kBlockM * kVecPerRow; idx += kThreads) {
    const int r = idx / kVecPerRow;
    const int c = (idx % kVecPerRow) * kVec;
    if (m0 + r >= seq_q) break;  // rows grow with idx
    const float l = t.row_sum[r];
    const float inv_l = l > 0.f ? 1.f / l : 0.f;
    T* dst = o + (bh * seq_q + m0 + r) * D + c;
    const float* src = t.o_s + r * L::kLdO + c;
    if constexpr (kVectorized) {
      union {
        uint4 u;
        T e[kVec];
      } pack;
#pragma unroll
      for (int x = 0; x < kVec; ++x) pack.e[x] = FromFloat<T>(src[x] * inv_l);
      *reinterpret_cast<uint4*>(dst) = pack.u;
    } else {
#pragma unroll
      for (int x = 0; x < kVec; ++x) dst[x] = FromFloat<T>(src[x] * inv_l);
    }
  }
  if (lse != nullptr) StoreLse(t, lse, bh, seq_q, m0);
}

bool Aligned16(const void* ptr) { return reinterpret_cast<uintptr_t>(ptr) % 16 == 0; }

struct A04Rung {
  template <typename T, int D>
  static cudaError_t Launch(ElementAndHeadDim<T, D>, const AttentionProblem& p,
                            const AttentionArgs& a, cudaStream_t stream) {
    // Row starts are multiples of D·sizeof(T) = 128 or 256 bytes from the base, so base alignment
    // decides every vector's alignment.
    if (Aligned16(a.q) && Aligned16(a.k) && Aligned16(a.v) && Aligned16(a.o)) {
      return LaunchTiledRung<T>(&A04VectorizedKernel<T, D, true>, kBlockM, kThreads,
                                Smem<T, D>::kBytes, p, a, stream);
    }
    return LaunchTiledRung<T>(&A04VectorizedKernel<T, D, false>, kBlockM, kThreads,
                              Smem<T, D>::kBytes, p, a, stream);
  }
  // The vectorised variant: what runs for every buffer the runner allocates (cudaMalloc aligns to
  // 256 bytes).
  template <typename T, int D>
  static DeviceFunction Describe(ElementAndHeadDim<T, D>) {
    return RungFunction<T, D>(&A04VectorizedKernel<T, D, true>, "a04_vectorized", kThreads,
                              Smem<T, D>::kBytes);
  }
};

}  // namespace

KernelEntry MakeA04Vectorized() {
  KernelInfo info;
  info.id = "attn.a04_vectorized";
  info.revision = 4;
  info.title = "a03 with 16-byte coalesced global loads and stores";
  info.changed =
      "uint4 (16-byte) global loads of Q/K/V tiles and stores of O instead of 2-byte "
      "element copies";
  info.tile = TileShape{kBlockM, kBlockN, kFrag, kThreads};
  return BasicRungEntry<A04Rung>(std::move(info));
}

}  // namespace flashscope::kernels
