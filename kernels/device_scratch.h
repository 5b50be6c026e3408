// Device scratch that a rung's launch needs beside the runner's buffers (split-KV's partial
// results, g11's padded operand copies): one block per user, grown on demand and kept for the
// process. Growing frees the old block, which synchronises the device, so it happens on the
// first, untimed launch of a larger shape. Kept free of Abseil (nvcc compiles its users).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <mutex>

namespace flashscope::kernels {

class DeviceScratch {
 public:
  // `what` names the user in the message of a failed allocation ("split-KV's partial results");
  // the first allocation takes at least `floor_bytes`, so that common sizes never grow it again.
  DeviceScratch(const char* what, size_t floor_bytes) : what_(what), floor_bytes_(floor_bytes) {}
  DeviceScratch(const DeviceScratch&) = delete;
  DeviceScratch& operator=(const DeviceScratch&) = delete;

  // At least `bytes` on the current device: cudaSuccess and *out, or the error (also printed, with
  // the size and the fix). The block is this object's: launches that use it run in one stream.
  cudaError_t Get(size_t bytes, void** out);

 private:
  const char* what_;
  size_t floor_bytes_;
  std::mutex mu_;
  int device_ = -1;
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace flashscope::kernels
