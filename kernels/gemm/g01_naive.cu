// gemm rung 1: naive, one thread per element of C.
//
// Intent: the reference point of the GEMM ladder (the first kernel of the tiled-matmul seed).
// Each thread walks a full row of A and a full column of B in global memory and accumulates the
// dot product in FP32. A warp's threads share the row of A (a broadcast) and read consecutive
// columns of B (coalesced), but nothing is reused across threads: every element of A and B is
// fetched from global memory (or L1/L2) once per output element that needs it.
// Changed vs previous: nothing, this is the first rung.
#include <cuda_fp16.h>

#include <string>
#include <vector>

#include "kernels/gemm/gemm_common.cuh"
#include "kernels/kernel_list.h"

namespace flashscope::kernels {
namespace {

constexpr int kBlock = 16;  // 16×16 threads, one C element each

template <typename T>
__global__ void __launch_bounds__(kBlock* kBlock)
    G01NaiveKernel(const T* __restrict__ a, const T* __restrict__ b, float* __restrict__ c, int m,
                   int n, int k) {
  const int row = blockIdx.y * kBlock + threadIdx.y;
  const int col = blockIdx.x * kBlock + threadIdx.x;
  if (row >= m || col >= n) return;
  const T* a_row = a + static_cast<long long>(row) * k;
  float acc = 0.f;
  for (int i = 0; i < k; ++i) {
    acc = fmaf(ToFloat(a_row[i]), ToFloat(b[static_cast<long long>(i) * n + col]), acc);
  }
  c[static_cast<long long>(row) * n + col] = acc;
}

struct G01Rung {
  static constexpr int kBlockM = kBlock;

  template <typename T>
  static cudaError_t Launch(const GemmProblem& g, const GemmArgs& args, cudaStream_t stream) {
    const dim3 block(kBlock, kBlock);
    const dim3 grid(static_cast<unsigned>((g.n + kBlock - 1) / kBlock),
                    static_cast<unsigned>((g.m + kBlock - 1) / kBlock));
    G01NaiveKernel<T><<<grid, block, 0, stream>>>(
        static_cast<const T*>(args.a), static_cast<const T*>(args.b), args.c, static_cast<int>(g.m),
        static_cast<int>(g.n), static_cast<int>(g.k));
    return LaunchResult();
  }

  template <typename T>
  static DeviceFunction Describe(const GemmProblem&) {
    return {reinterpret_cast<const void*>(&G01NaiveKernel<T>),
            std::string("g01_naive<") + ElementName<T>() + ">", kBlock * kBlock, 0};
  }
};

}  // namespace

KernelEntry MakeG01Naive() {
  KernelEntry e;
  e.info.id = "gemm.g01_naive";
  e.info.family = Family::kGemm;
  e.info.revision = 1;
  e.info.title = "Naive, one thread per C element";
  e.info.changed = "first rung: every thread reads its row of A and column of B from global";
  e.info.min_sm = 80;
  e.info.tile = TileShape{kBlock, kBlock, 1, kBlock * kBlock};
  return BasicGemmEntry<G01Rung>(std::move(e));
}

}  // namespace flashscope::kernels
