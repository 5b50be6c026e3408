#include "kernels/device_scratch.h"

#include <algorithm>
#include <cstdio>

namespace flashscope::kernels {

cudaError_t DeviceScratch::Get(size_t bytes, void** out) {
  std::lock_guard<std::mutex> lock(mu_);
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  Block& block = blocks_[device];  // the current device's own: freeing it needs no switch
  if (block.bytes < bytes) {
    if (block.ptr != nullptr) {
      err = cudaFree(block.ptr);  // synchronises: earlier launches using it have finished
      block = Block{};
      if (err != cudaSuccess) return err;
    }
    const size_t want = std::max(bytes, floor_bytes_);
    err = cudaMalloc(&block.ptr, want);
    if (err != cudaSuccess) {
      std::fprintf(stderr,
                   "flashscope: cannot allocate the %zu-byte device scratch of %s on device %d "
                   "(%s); free device memory or run smaller problems\n",
                   want, what_, device, cudaGetErrorString(err));
      block = Block{};
      return err;
    }
    block.bytes = want;
  }
  *out = block.ptr;
  return cudaSuccess;
}

}  // namespace flashscope::kernels
