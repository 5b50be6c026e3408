// example.attn_v1: one thread per query row, fp32 accumulation, online softmax. Every thread reads
// K and V straight from global memory, key after key, and rescales its accumulator at each key.
#include "attention.cuh"

namespace example {
namespace {

template <typename T, int kMaxD>
__global__ void __launch_bounds__(kRowsPerBlock) AttnV1(AttentionArgs a) {
  const RowTask t = RowTask::ForThisThread(a);
  if (!t.active) return;
  Pair<T> q[kMaxD / 2];
  LoadQueryRow<T, kMaxD>(a, t, q);
  const T* k = static_cast<const T*>(a.k) + t.head * a.seq_k * a.head_dim;
  const T* v = static_cast<const T*>(a.v) + t.head * a.seq_k * a.head_dim;

  float acc[kMaxD] = {};
  float m = -INFINITY;  // running max of the scaled scores
  float l = 0.f;        // running sum of exp(score - m)
  for (int64_t j = 0; j < t.key_end; ++j) {
    const T* k_row = k + j * a.head_dim;
    const T* v_row = v + j * a.head_dim;
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < kMaxD / 2; ++i) {
      const float2 qf = ToFloat2(q[i]);
      if (2 * i < a.head_dim) s += qf.x * ToFloat(k_row[2 * i]);
      if (2 * i + 1 < a.head_dim) s += qf.y * ToFloat(k_row[2 * i + 1]);
    }
    s *= a.scale;
    const float m_new = fmaxf(m, s);
    const float correction = __expf(m - m_new);  // 0 at the first key (m = -inf)
    const float p = __expf(s - m_new);
    l = l * correction + p;
#pragma unroll
    for (int d = 0; d < kMaxD; ++d) {
      if (d < a.head_dim) acc[d] = acc[d] * correction + p * ToFloat(v_row[d]);
    }
    m = m_new;
  }
  WriteRow<T, kMaxD>(a, t, acc, m, l);
}

}  // namespace

DeviceKernel AttnV1Kernel(int32_t dtype, int32_t head_dim) {
  static const Instances instances = {
      {{(const void*)AttnV1<__half, 64>, "AttnV1<fp16, 64>"},
       {(const void*)AttnV1<__half, 128>, "AttnV1<fp16, 128>"}},
      {{(const void*)AttnV1<__nv_bfloat16, 64>, "AttnV1<bf16, 64>"},
       {(const void*)AttnV1<__nv_bfloat16, 128>, "AttnV1<bf16, 128>"}}};
  return Pick(instances, dtype, head_dim);
}

}  // namespace example
