// What plugin.cc needs from the two kernel files: the arguments of a launch and, per revision,
// the __global__ function it launches for a problem.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "flashscope/kernel_abi.h"

namespace example {

// Every instantiation of both revisions takes this one struct by value, so plugin.cc launches
// any of them the same way (cudaLaunchKernel) without knowing its template arguments.
struct AttentionArgs {
  const void* q;  // [batch·heads, seq_q, head_dim]
  const void* k;  // [batch·heads, seq_k, head_dim]
  const void* v;  // [batch·heads, seq_k, head_dim]
  void* o;        // [batch·heads, seq_q, head_dim]
  float* lse;     // [batch·heads, seq_q] natural log, or null
  int64_t seq_q, seq_k;
  int32_t head_dim;
  int32_t causal;
  float scale;
};

// Query rows per thread block, one per thread, in both revisions.
constexpr int kRowsPerBlock = 64;
// Keys per shared-memory tile of revision 2.
constexpr int kV2TileKeys = 8;

// The __global__ function a revision launches for a dtype (fs_dtype) and head_dim, with the name
// reports show for it. head_dim is rounded up to 64 or 128 so that a row fits in registers.
struct DeviceKernel {
  const void* symbol;
  const char* name;
};
DeviceKernel AttnV1Kernel(int32_t dtype, int32_t head_dim);
DeviceKernel AttnV2Kernel(int32_t dtype, int32_t head_dim);

}  // namespace example
