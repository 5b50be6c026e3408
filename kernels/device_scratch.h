// Device scratch that a kernel's launch needs beside the runner's buffers (split-KV's partial
// results, g11's padded operand copies, the peers' workspaces): one block per user and device,
// grown on demand and kept for the process. Growing frees the old block, which synchronises the
// device, so it happens on the first, untimed launch of a larger shape. Each device keeps its own
// block: a launch on another device neither reuses nor loses it. Kept free of Abseil (nvcc
// compiles its users).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <map>
#include <mutex>

namespace flashscope::kernels {

class DeviceScratch {
 public:
  // `what` names the user in the message of a failed allocation ("split-KV's partial results");
  // the first allocation on a device takes at least `floor_bytes`, so that common sizes never
  // grow it again (0: exactly what is asked).
  DeviceScratch(const char* what, size_t floor_bytes) : what_(what), floor_bytes_(floor_bytes) {}
  DeviceScratch(const DeviceScratch&) = delete;
  DeviceScratch& operator=(const DeviceScratch&) = delete;

  // At least `bytes` on the current device: cudaSuccess and *out (null when bytes is 0 and no
  // block exists yet), or the error (also printed, with the size and the fix). The block is this
  // object's on that device: launches that use it run in one stream.
  cudaError_t Get(size_t bytes, void** out);

 private:
  struct Block {
    void* ptr = nullptr;
    size_t bytes = 0;
  };
  const char* what_;
  size_t floor_bytes_;
  std::mutex mu_;
  std::map<int, Block> blocks_;  // by device ordinal
};

}  // namespace flashscope::kernels
