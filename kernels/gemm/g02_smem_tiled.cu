// gemm rung 2: shared-memory tiling (the tiled-matmul seed's second kernel).
//
// Intent: stop re-reading A and B from global memory for every output element. A block of
// 16×16 threads computes a 16×16 tile of C; it walks K in steps of 16, each step loading one
// 16×16 tile of A and one of B into shared memory (one element per thread, coalesced), then every
// thread reads its row of the A tile and its column of the B tile from shared memory. Each global
// element is now fetched once per block instead of once per thread: 16× less global traffic.
// Changed vs g01: A/B tiles staged in shared memory (converted to FP32 at load); edges predicated
// so that any M, N, K works (out-of-range tile elements are loaded as zeros).
#include <cuda_fp16.h>

#include <string>
#include <vector>

#include "kernels/gemm/gemm_common.cuh"
#include "kernels/kernel_list.h"

namespace flashscope::kernels {
namespace {

constexpr int kTile = 16;  // BM = BN = BK = 16, 256 threads

template <typename T>
__global__ void __launch_bounds__(kTile* kTile)
    G02SmemTiledKernel(const T* __restrict__ a, const T* __restrict__ b, float* __restrict__ c,
                       int m, int n, int k) {
  __shared__ float a_s[kTile][kTile];
  __shared__ float b_s[kTile][kTile];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;
  const int col = blockIdx.x * kTile + tx;

  float acc = 0.f;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    const int a_col = k0 + tx;
    const int b_row = k0 + ty;
    a_s[ty][tx] =
        (row < m && a_col < k) ? ToFloat(a[static_cast<long long>(row) * k + a_col]) : 0.f;
    b_s[ty][tx] =
        (b_row < k && col < n) ? ToFloat(b[static_cast<long long>(b_row) * n + col]) : 0.f;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kTile; ++i) acc = fmaf(a_s[ty][i], b_s[i][tx], acc);
    __syncthreads();
  }
  if (row < m && col < n) c[static_cast<long long>(row) * n + col] = acc;
}

struct G02Rung {
  static constexpr int kBlockM = kTile;

  template <typename T>
  static cudaError_t Launch(const GemmProblem& g, const GemmArgs& args, cudaStream_t stream) {
    const dim3 block(kTile, kTile);
    const dim3 grid(static_cast<unsigned>((g.n + kTile - 1) / kTile),
                    static_cast<unsigned>((g.m + kTile - 1) / kTile));
    G02SmemTiledKernel<T><<<grid, block, 0, stream>>>(
        static_cast<const T*>(args.a), static_cast<const T*>(args.b), args.c, static_cast<int>(g.m),
        static_cast<int>(g.n), static_cast<int>(g.k));
    return LaunchResult();
  }

  template <typename T>
  static DeviceFunction Describe(const GemmProblem&) {
    return {reinterpret_cast<const void*>(&G02SmemTiledKernel<T>),
            std::string("g02_smem_tiled<") + ElementName<T>() + ">", kTile * kTile, 0};
  }
};

}  // namespace

KernelEntry MakeG02SmemTiled() {
  KernelEntry e;
  e.info.id = "gemm.g02_smem_tiled";
  e.info.family = Family::kGemm;
  e.info.revision = 2;
  e.info.title = "Shared-memory tiles of 16x16";
  e.info.changed = "A and B tiles staged in shared memory and reused by the 16x16 block";
  e.info.min_sm = 80;
  e.info.tile = TileShape{kTile, kTile, kTile, kTile * kTile};
  return BasicGemmEntry<G02Rung>(std::move(e));
}

}  // namespace flashscope::kernels
