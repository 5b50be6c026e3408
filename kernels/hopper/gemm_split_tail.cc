#include "kernels/hopper/gemm_split_tail.h"

#include <algorithm>
#include <cstdio>
#include <mutex>

namespace flashscope::kernels::g06 {

SplitTail SplitTailPlan(int64_t tiles, int64_t resident, int64_t k_tiles) {
  SplitTail plan;
  plan.full_units = tiles;
  if (tiles <= 0 || resident <= 0) return plan;
  const int64_t tail = tiles % resident;
  if (tail == 0) return plan;  // whole waves: nothing idles at the end
  // The splits' partial sums reach C one after another (about 2-3 us each for a 128x256 tile:
  // read and write 64 KiB per warpgroup through L2, then the hand-over), while each split saves
  // 1/splits of a tile's main loop (~40-60 us at 3000-5000^3): about 6 splits minimise the sum.
  const int64_t splits = std::min<int64_t>({kMaxSplits, resident / tail, k_tiles / 4});
  if (splits < 2) return plan;
  plan.full_units = tiles - tail;
  plan.splits = static_cast<int>(splits);
  return plan;
}

cudaError_t SplitTailChain(size_t count, int** out) {
  static std::mutex mu;
  static int device_of = -1;
  static int* chain = nullptr;
  static size_t have = 0;
  std::lock_guard<std::mutex> lock(mu);
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  if (device_of != device) {  // another device's block is not usable here
    chain = nullptr;
    have = 0;
    device_of = device;
  }
  if (have < count) {
    if (chain != nullptr) {
      err = cudaFree(chain);  // synchronises: earlier launches using it have finished
      chain = nullptr;
      have = 0;
      if (err != cudaSuccess) return err;
    }
    void* p = nullptr;
    err = cudaMalloc(&p, count * sizeof(int));
    if (err == cudaSuccess) err = cudaMemset(p, 0, count * sizeof(int));
    if (err != cudaSuccess) {
      std::fprintf(stderr, "flashscope g07: cannot allocate %zu split-order counters (%s)\n", count,
                   cudaGetErrorString(err));
      return err;
    }
    chain = static_cast<int*>(p);
    have = count;
  }
  *out = chain;
  return cudaSuccess;
}

}  // namespace flashscope::kernels::g06
