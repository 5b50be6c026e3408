// example.attn_v2: v1's algorithm, but the block's 64 query rows share K and V tiles of 8 keys
// that the whole block stages in shared memory (one global read of each element per block instead
// of one per row), the online softmax rescales once per tile instead of once per key, and the
// query rows wait in shared memory too, which leaves the registers to the accumulator (v1 spills
// at head_dim > 64).
#include "attention.cuh"

namespace example {
namespace {

constexpr int kTileKeys = kV2TileKeys;

template <typename T, int kMaxD>
__global__ void __launch_bounds__(kRowsPerBlock) AttnV2(AttentionArgs a) {
  // Thread r's query pair i at q_tile[i][r]: a warp reads 32 consecutive words, no bank conflict.
  __shared__ Pair<T> q_tile[kMaxD / 2][kRowsPerBlock];
  __shared__ float k_tile[kTileKeys][kMaxD];
  __shared__ float v_tile[kTileKeys][kMaxD];
  const RowTask t = RowTask::ForThisThread(a);  // inactive threads still help load tiles
  // Keys grow with the row under the causal mask: the block's last row sees the most.
  const int64_t last_row = min(t.row - threadIdx.x + kRowsPerBlock, a.seq_q) - 1;
  const int64_t block_key_end = RowTask::KeyEnd(a, last_row);
  if (t.active) {
    Pair<T> q[kMaxD / 2];
    LoadQueryRow<T, kMaxD>(a, t, q);
#pragma unroll
    for (int i = 0; i < kMaxD / 2; ++i) q_tile[i][threadIdx.x] = q[i];
  }
  const T* k = static_cast<const T*>(a.k) + t.head * a.seq_k * a.head_dim;
  const T* v = static_cast<const T*>(a.v) + t.head * a.seq_k * a.head_dim;

  float acc[kMaxD] = {};
  float m = -INFINITY;
  float l = 0.f;
  for (int64_t start = 0; start < block_key_end; start += kTileKeys) {
    __syncthreads();  // every row is done with the previous tile
    for (int i = threadIdx.x; i < kTileKeys * kMaxD; i += kRowsPerBlock) {
      const int key = i / kMaxD, d = i % kMaxD;
      const bool inside = start + key < a.seq_k && d < a.head_dim;
      const int64_t at = (start + key) * a.head_dim + d;
      k_tile[key][d] = inside ? ToFloat(k[at]) : 0.f;
      v_tile[key][d] = inside ? ToFloat(v[at]) : 0.f;
    }
    __syncthreads();
    const int64_t visible = t.key_end - start;  // keys of this tile the row sees, if < kTileKeys
    if (visible <= 0) continue;

    float s[kTileKeys] = {};
#pragma unroll
    for (int i = 0; i < kMaxD / 2; ++i) {  // q and the tile are zero beyond head_dim
      const float2 qf = ToFloat2(q_tile[i][threadIdx.x]);
#pragma unroll
      for (int j = 0; j < kTileKeys; ++j)
        s[j] += qf.x * k_tile[j][2 * i] + qf.y * k_tile[j][2 * i + 1];
    }
    float tile_max = -INFINITY;
#pragma unroll
    for (int j = 0; j < kTileKeys; ++j) {
      s[j] = j < visible ? s[j] * a.scale : -INFINITY;
      tile_max = fmaxf(tile_max, s[j]);
    }
    const float m_new = fmaxf(m, tile_max);
    const float correction = __expf(m - m_new);
    l *= correction;
#pragma unroll
    for (int d = 0; d < kMaxD; ++d) acc[d] *= correction;
#pragma unroll
    for (int j = 0; j < kTileKeys; ++j) {
      const float p = __expf(s[j] - m_new);  // 0 for the keys the row does not see
      l += p;
#pragma unroll
      for (int d = 0; d < kMaxD; ++d) acc[d] += p * v_tile[j][d];
    }
    m = m_new;
  }
  if (t.active) WriteRow<T, kMaxD>(a, t, acc, m, l);
}

}  // namespace

DeviceKernel AttnV2Kernel(int32_t dtype, int32_t head_dim) {
  static const Instances instances = {
      {{(const void*)AttnV2<__half, 64>, "AttnV2<fp16, 64>"},
       {(const void*)AttnV2<__half, 128>, "AttnV2<fp16, 128>"}},
      {{(const void*)AttnV2<__nv_bfloat16, 64>, "AttnV2<bf16, 64>"},
       {(const void*)AttnV2<__nv_bfloat16, 128>, "AttnV2<bf16, 128>"}}};
  return Pick(instances, dtype, head_dim);
}

}  // namespace example
