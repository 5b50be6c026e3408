// Device code both revisions share: fp16/bf16 conversions, which keys a query row sees, and the
// final write of a row.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "kernels.h"

namespace example {

// Two elements of T packed in one 32-bit register: a thread keeps its query row this way, which
// halves the registers the row takes (the values are T to begin with, so nothing is lost).
template <typename T>
using Pair = std::conditional_t<std::is_same_v<T, __half>, __half2, __nv_bfloat162>;

__device__ inline float2 ToFloat2(__half2 x) { return __half22float2(x); }
__device__ inline float2 ToFloat2(__nv_bfloat162 x) { return __bfloat1622float2(x); }
__device__ inline float ToFloat(__half x) { return __half2float(x); }
__device__ inline float ToFloat(__nv_bfloat16 x) { return __bfloat162float(x); }
template <typename T>
__device__ inline T FromFloat(float x) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(x);
  } else {
    return __float2bfloat16_rn(x);
  }
}

// A revision's four instantiations, [fp16, bf16][head_dim rounded up to 64, 128], and the one a
// problem launches.
using Instances = DeviceKernel[2][2];
inline DeviceKernel Pick(const Instances& instances, int32_t dtype, int32_t head_dim) {
  return instances[dtype == FS_DTYPE_BF16 ? 1 : 0][head_dim <= 64 ? 0 : 1];
}

// The query row this thread owns and the keys it sees: causal masking is bottom-right aligned,
// so row i sees keys j <= i + (seq_k - seq_q).
struct RowTask {
  int64_t head;  // index into batch·heads
  int64_t row;   // query row within the head
  bool active;   // false for the padding threads of the last block of a head
  int64_t key_end;

  __device__ static int64_t KeyEnd(const AttentionArgs& a, int64_t row) {
    if (!a.causal) return a.seq_k;
    const int64_t end = row + (a.seq_k - a.seq_q) + 1;
    return end < 0 ? 0 : (end > a.seq_k ? a.seq_k : end);
  }
  __device__ static RowTask ForThisThread(const AttentionArgs& a) {
    const int64_t blocks_per_head = (a.seq_q + kRowsPerBlock - 1) / kRowsPerBlock;
    RowTask t;
    t.head = blockIdx.x / blocks_per_head;
    t.row = (blockIdx.x % blocks_per_head) * kRowsPerBlock + threadIdx.x;
    t.active = t.row < a.seq_q;
    t.key_end = t.active ? KeyEnd(a, t.row) : 0;
    return t;
  }
};

// Loads this thread's query row, zero beyond head_dim.
template <typename T, int kMaxD>
__device__ inline void LoadQueryRow(const AttentionArgs& a, const RowTask& t,
                                    Pair<T> (&q)[kMaxD / 2]) {
  const T* row = static_cast<const T*>(a.q) + (t.head * a.seq_q + t.row) * a.head_dim;
#pragma unroll
  for (int i = 0; i < kMaxD / 2; ++i) {
    const int d = 2 * i;
    const T zero = FromFloat<T>(0.f);
    q[i].x = d < a.head_dim ? row[d] : zero;
    q[i].y = d + 1 < a.head_dim ? row[d + 1] : zero;
  }
}

// O = acc / l and lse = m + log(l); a row that saw no key writes zeros and lse = -inf.
template <typename T, int kMaxD>
__device__ inline void WriteRow(const AttentionArgs& a, const RowTask& t, const float (&acc)[kMaxD],
                                float m, float l) {
  T* out = static_cast<T*>(a.o) + (t.head * a.seq_q + t.row) * a.head_dim;
  const float inv_l = l > 0.f ? 1.f / l : 0.f;
#pragma unroll
  for (int d = 0; d < kMaxD; ++d) {
    if (d < a.head_dim) out[d] = FromFloat<T>(acc[d] * inv_l);
  }
  if (a.lse != nullptr) a.lse[t.head * a.seq_q + t.row] = l > 0.f ? m + logf(l) : -INFINITY;
}

}  // namespace example
