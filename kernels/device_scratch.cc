#include "kernels/device_scratch.h"

#include <algorithm>
#include <cstdio>

namespace flashscope::kernels {

cudaError_t DeviceScratch::Get(size_t bytes, void** out) {
  std::lock_guard<std::mutex> lock(mu_);
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  if (device_ != device) {  // another device's block is not usable here
    device_ = device;
    ptr_ = nullptr;
    bytes_ = 0;
  }
  if (bytes_ < bytes) {
    if (ptr_ != nullptr) {
      err = cudaFree(ptr_);  // synchronises: earlier launches using it have finished
      ptr_ = nullptr;
      bytes_ = 0;
      if (err != cudaSuccess) return err;
    }
    const size_t want = std::max(bytes, floor_bytes_);
    err = cudaMalloc(&ptr_, want);
    if (err != cudaSuccess) {
      std::fprintf(stderr,
                   "flashscope: cannot allocate the %zu-byte device scratch of %s (%s); free "
                   "device memory or run smaller problems\n",
                   want, what_, cudaGetErrorString(err));
      ptr_ = nullptr;
      return err;
    }
    bytes_ = want;
  }
  *out = ptr_;
  return cudaSuccess;
}

}  // namespace flashscope::kernels
