// The load side of the Hopper attention rungs (attn_sm90_kernel.cuh has the kernel and the whole
// design): tile configuration, kernel parameters, the mbarriers of the K/V ring and the TMA
// producer.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/attention/attn_mma_softmax.cuh"
#include "kernels/hopper/hopper_ptx.cuh"
#include "kernels/ptx.cuh"

namespace flashscope::kernels::attn_sm90 {

using attn_mma::kCondRescale;
using attn_mma::kDirectRescale;
using attn_mma::kPolyExp;

enum : unsigned {
  kWarpSpec = 1u << 8,
  kPingPong = 1u << 9,
  kIntraOverlap = 1u << 10,
  kThreeWarpgroups = 1u << 11,  // three consumer warpgroups, 192 query rows per CTA
};

// Tile shape, roles and shared-memory layout of one instantiation.
template <int D, unsigned F>
struct Config {
  static_assert(D == 64 || D == 128 || D == 256, "head dims 64, 128 and 256");
  static constexpr bool kWS = (F & kWarpSpec) != 0;
  static constexpr bool kPP = (F & kPingPong) != 0;
  static constexpr bool kIO = (F & kIntraOverlap) != 0;
  static constexpr bool kBatched = kPP || kIO;  // Q·K(j) issued together with P(j-1)·V(j-1)
  static_assert(!kBatched || kWS,
                "the batched schedule has no inline producer: it needs kWarpSpec");
  static constexpr int kConsumerWGs = (F & kThreeWarpgroups) ? 3 : 2;
  static_assert(!kPP || kConsumerWGs == 2, "the ping-pong turns are written for two warpgroups");
  static_assert(kConsumerWGs == 2 || kWS,
                "three consumer warpgroups need the producer's registers");
  static constexpr int kBM = 64 * kConsumerWGs;
  // D = 256: O takes 128 registers per thread, so S gets a narrower tile (32 registers).
  static constexpr int kBN = D <= 128 ? 128 : 64;
  // Three K/V stages where shared memory allows (D = 256 fills it with two).
  static constexpr int kStages = D <= 128 ? 3 : 2;
  static constexpr int kConsumerThreads = 128 * kConsumerWGs;
  static constexpr int kThreads = kConsumerThreads + (kWS ? 128 : 0);
  // 128·24 + 256·240 (or 384·160) = 64512 of the 65536 registers: the producer keeps the minimum.
  static constexpr int kProducerRegs = 24, kConsumerRegs = kConsumerWGs == 2 ? 240 : 160;
  static constexpr int kSub = D / 64;  // 128-byte (64-element) column blocks of a row
  static constexpr uint32_t kQBytes = kSub * kBM * 128;
  static constexpr uint32_t kKVBytes = kSub * kBN * 128;  // one stage of K (or of V)
  static constexpr uint32_t kOffK = kQBytes;
  static constexpr uint32_t kOffV = kOffK + kStages * kKVBytes;
  static constexpr uint32_t kOffBar = kOffV + kStages * kKVBytes;
  static constexpr uint32_t kNumBars = 1 + 4 * kStages;  // q_full; k/v full; k/v empty
  // 1 KiB of slack: the swizzle atoms need a 1024-byte aligned base.
  static constexpr size_t kSmemBytes = kOffBar + kNumBars * 8 + 1024;
  static_assert(kSmemBytes <= 227 * 1024, "shared memory per block on sm_90");
};

// Named barriers (0 is __syncthreads): the ping-pong turns, then one per consumer warpgroup.
constexpr uint32_t kBarTurn0 = 1, kBarEpilogue0 = 3;

struct Params {
  void* o;
  float* lse;  // may be null
  int seq_q;
  int seq_k;
  float scale;  // softmax scale, natural-log domain
  int causal;
  int n_m_blocks;  // query tiles per (batch, head); blockIdx.x = bh · n_m_blocks + tile
};

// Shared-memory addresses of the mbarriers.
template <class C>
struct Barriers {
  uint32_t base;
  __device__ uint32_t QFull() const { return base; }
  __device__ uint32_t KFull(int s) const { return base + 8 * (1 + s); }
  __device__ uint32_t VFull(int s) const { return base + 8 * (1 + C::kStages + s); }
  __device__ uint32_t KEmpty(int s) const { return base + 8 * (1 + 2 * C::kStages + s); }
  __device__ uint32_t VEmpty(int s) const { return base + 8 * (1 + 3 * C::kStages + s); }

  __device__ void Init() const {
    hopper::MbarInit(QFull(), 1);
    for (int s = 0; s < C::kStages; ++s) {
      hopper::MbarInit(KFull(s), 1);
      hopper::MbarInit(VFull(s), 1);
      hopper::MbarInit(KEmpty(s), C::kConsumerThreads / 32);  // every consumer warp
      hopper::MbarInit(VEmpty(s), C::kConsumerThreads / 32);
    }
    hopper::FenceMbarInit();
    hopper::FenceProxyAsyncShared();  // also ordered for the async proxy (TMA) at CTA scope
  }
};

// The TMA side: one thread issues every copy of a CTA.
template <class C>
struct Producer {
  const CUtensorMap* q;
  const CUtensorMap* k;
  const CUtensorMap* v;
  uint32_t smem;  // 1024-aligned base
  Barriers<C> bars;
  int bh;

  __device__ void LoadQ(int m0) const {
    hopper::MbarArriveExpectTx(bars.QFull(), C::kQBytes);
#pragma unroll
    for (int sub = 0; sub < C::kSub; ++sub) {
      hopper::TmaLoad3D(smem + sub * C::kBM * 128, q, bars.QFull(), sub * 64, m0, bh);
    }
  }

  // Key tile j into stage j % kStages, once the consumers have released that stage's last use.
  __device__ void LoadKV(int j) const {
    const int s = j % C::kStages;
    const uint32_t parity = ((j / C::kStages) - 1) & 1;
    const uint32_t k_dst = smem + C::kOffK + s * C::kKVBytes;
    const uint32_t v_dst = smem + C::kOffV + s * C::kKVBytes;
    if (j >= C::kStages) hopper::MbarWait(bars.KEmpty(s), parity);
    hopper::MbarArriveExpectTx(bars.KFull(s), C::kKVBytes);
#pragma unroll
    for (int sub = 0; sub < C::kSub; ++sub) {
      hopper::TmaLoad3D(k_dst + sub * C::kBN * 128, k, bars.KFull(s), sub * 64, j * C::kBN, bh);
    }
    if (j >= C::kStages) hopper::MbarWait(bars.VEmpty(s), parity);
    hopper::MbarArriveExpectTx(bars.VFull(s), C::kKVBytes);
#pragma unroll
    for (int sub = 0; sub < C::kSub; ++sub) {
      hopper::TmaLoad3D(v_dst + sub * C::kBN * 128, v, bars.VFull(s), sub * 64, j * C::kBN, bh);
    }
  }
};

// Key tiles the CTA's rows [m0, m0 + BM) can see: all of them, or up to the causal diagonal of
// its last row (bottom-right aligned); 0 when no row sees any key.
template <int BN>
__device__ __forceinline__ int KeyTiles(const Params& p, int m_end) {
  int n_end = p.seq_k;
  if (p.causal) n_end = min(p.seq_k, m_end + p.seq_k - p.seq_q);
  return n_end > 0 ? (n_end + BN - 1) / BN : 0;
}

// The [n8 blocks][4] accumulator arrays as the flat register list wgmma takes (same order).
template <int R, int C>
__device__ __forceinline__ float (&Flat(float (&x)[R][C]))[R * C] {
  return reinterpret_cast<float(&)[R * C]>(x);
}

}  // namespace flashscope::kernels::attn_sm90
