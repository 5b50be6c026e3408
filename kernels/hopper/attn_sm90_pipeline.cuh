// The load side of the Hopper attention rungs (attn_sm90_kernel.cuh has the kernel and the whole
// design): tile configuration, kernel parameters, the mbarriers of the K/V ring and the TMA
// producer.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "common/problem.h"
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
  kPersistent = 1u << 12,       // one CTA per SM walks a static schedule of query tiles (a18)
  kSplitKV = 1u << 13,          // a query tile's key tiles split over CTAs, then combined (a19)
  kDynamicSchedule = 1u << 14,  // persistent CTAs take query tiles from an atomic counter (a20)
  kTrimWarpgroups = 1u << 15,   // a warpgroup computes only the key tiles its own rows see (a26)
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
  static constexpr bool kPersist = (F & kPersistent) != 0;
  static_assert(!kPersist || kWS, "the persistent loop keeps the producer warpgroup busy");
  static constexpr bool kSplit = (F & kSplitKV) != 0;
  static constexpr bool kDyn = (F & kDynamicSchedule) != 0;
  static_assert(!kDyn || kPersist, "the dynamic schedule is the persistent grid's");
  static_assert(!kSplit || (kWS && !kPersist),
                "split-KV is written for the one-tile-per-CTA grid with a producer warpgroup");
  // a26: each consumer warpgroup computes only the key tiles its own 64 rows see, which only a
  // free-running schedule allows (the ping-pong turns and a15's batched issue pair the warpgroups).
  static constexpr bool kTrim = (F & kTrimWarpgroups) != 0;
  static_assert(!kTrim || (kWS && !kBatched),
                "trimmed warpgroups need a producer warpgroup and the free-running schedule");
  static constexpr int kConsumerWGs = (F & kThreeWarpgroups) ? 3 : 2;
  static_assert(!kPP || kConsumerWGs == 2, "the ping-pong turns are written for two warpgroups");
  static_assert(kConsumerWGs == 2 || kWS,
                "three consumer warpgroups need the producer's registers");
  static constexpr int kBM = 64 * kConsumerWGs;
  // D = 256: O takes 128 registers per thread, so S gets a narrower tile (32 registers).
  static constexpr int kBN = D <= 128 ? 128 : 64;
  // Persistent at D = 128 (a24): two Q buffers and two K/V stages (2 x 32 + 2 x 64 KiB) instead of
  // one Q buffer and three stages, so that the next unit's Q loads under this unit's tiles.
  static constexpr bool kPrefetch128 = kPersist && D == 128;
  // Three K/V stages where shared memory allows (D = 256 fills it with two).
  static constexpr int kStages = D <= 128 && !kPrefetch128 ? 3 : 2;
  static constexpr int kConsumerThreads = 128 * kConsumerWGs;
  static constexpr int kThreads = kConsumerThreads + (kWS ? 128 : 0);
  // 128·24 + 256·240 (or 384·160) = 64512 of the 65536 registers: the producer keeps the minimum.
  static constexpr int kProducerRegs = 24, kConsumerRegs = kConsumerWGs == 2 ? 240 : 160;
  static constexpr int kSub = D / 64;  // 128-byte (64-element) column blocks of a row
  static constexpr uint32_t kQBytes = kSub * kBM * 128;
  static constexpr uint32_t kKVBytes = kSub * kBN * 128;  // one stage of K (or of V)
  // Persistent at D = 64 and 128: two Q buffers, so that the next tile's Q lands while this
  // tile's epilogue stages O in its own buffer (D = 128 gives up its third K/V stage for it);
  // D = 256 has no room for a second one, and there the next Q waits for the epilogue's reads.
  static constexpr int kQBuffers = kPersist && D <= 128 ? 2 : 1;
  // q_full per buffer, and q_empty per buffer when persistent (consumers release the buffer).
  static constexpr int kQBars = kPersist ? 2 * kQBuffers : 1;
  static constexpr uint32_t kOffK = kQBuffers * kQBytes;
  static constexpr uint32_t kOffV = kOffK + kStages * kKVBytes;
  static constexpr uint32_t kOffBar = kOffV + kStages * kKVBytes;
  static constexpr uint32_t kNumBars = kQBars + 4 * kStages;  // q bars; k/v full; k/v empty
  // Dynamic schedule: one int per Q buffer, the work unit whose Q it holds (-1: no more work).
  static constexpr uint32_t kOffUnit = kOffBar + kNumBars * 8;
  // 1 KiB of slack: the swizzle atoms need a 1024-byte aligned base.
  static constexpr size_t kSmemBytes = kOffUnit + (kDyn ? 4 * kQBuffers : 0) + 1024;
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
  int n_m_blocks;    // query tiles per (batch, head); blockIdx.x = bh · n_m_blocks + tile
  int64_t bh_count;  // batch · heads (the persistent schedule's extent)
  // Split-KV (a19): each query tile's key tiles are dealt to n_splits CTAs (blockIdx.x = (bh ·
  // n_m_blocks + tile) · n_splits + split); with n_splits > 1 each writes its normalised partial O
  // [split][bh][seq_q][D] and log-sum-exp [split][bh][seq_q] (fp32) for the combine kernel.
  int n_splits = 1;
  float* part_o = nullptr;
  float* part_lse = nullptr;
  // Dynamic schedule (a20): [0] the next work unit past the first wave, [1] CTAs done fetching
  // (the last one resets both to 0 for the next launch); heads per scheduling group.
  int* unit_counter = nullptr;
  int sched_group = 1;
};

// The Params every launch fills the same way: output, lengths, scale (natural log), mask, and
// one query tile of `block_m` rows per (batch, head) and tile; the schedule's fields as declared.
inline Params TileParams(const AttentionProblem& pr, void* o, float* lse, float scale,
                         int block_m) {
  Params p;
  p.o = o;
  p.lse = pr.want_lse ? lse : nullptr;
  p.seq_q = static_cast<int>(pr.seq_q);
  p.seq_k = static_cast<int>(pr.seq_k);
  p.scale = scale;
  p.causal = pr.causal ? 1 : 0;
  p.n_m_blocks = static_cast<int>((pr.seq_q + block_m - 1) / block_m);
  p.bh_count = pr.batch * pr.heads;
  return p;
}

// Shared-memory addresses of the mbarriers.
template <class C>
struct Barriers {
  uint32_t base;
  static constexpr int kQ = C::kQBars;
  __device__ uint32_t QFull(int b = 0) const { return base + 8 * b; }
  __device__ uint32_t QEmpty(int b) const { return base + 8 * (C::kQBuffers + b); }
  __device__ uint32_t KFull(int s) const { return base + 8 * (kQ + s); }
  __device__ uint32_t VFull(int s) const { return base + 8 * (kQ + C::kStages + s); }
  __device__ uint32_t KEmpty(int s) const { return base + 8 * (kQ + 2 * C::kStages + s); }
  __device__ uint32_t VEmpty(int s) const { return base + 8 * (kQ + 3 * C::kStages + s); }

  __device__ void Init() const {
    for (int b = 0; b < C::kQBuffers; ++b) {
      hopper::MbarInit(QFull(b), 1);
      if constexpr (C::kPersist) hopper::MbarInit(QEmpty(b), C::kConsumerThreads / 32);
    }
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

  // The Q tile at row m0 into Q buffer `buf` (persistent: its `use`-th fill, once the consumers
  // have released the previous one).
  __device__ void LoadQ(int m0, int buf = 0, int use = 0) const {
    if (C::kPersist && use > 0) hopper::MbarWait(bars.QEmpty(buf), (use - 1) & 1);
    const uint32_t dst = smem + buf * C::kQBytes;
    hopper::MbarArriveExpectTx(bars.QFull(buf), C::kQBytes);
#pragma unroll
    for (int sub = 0; sub < C::kSub; ++sub) {
      hopper::TmaLoad3D(dst + sub * C::kBM * 128, q, bars.QFull(buf), sub * 64, m0, bh);
    }
  }

  __device__ void LoadKV(int j) const { LoadKV(j, j); }

  // Key tile j into the ring's g-th slot (stage g % kStages; g = j unless persistent, where the
  // ring runs on across query tiles), once the consumers have released that stage's last use.
  __device__ void LoadKV(int j, int g) const {
    const int s = g % C::kStages;
    const uint32_t parity = ((g / C::kStages) - 1) & 1;
    const uint32_t k_dst = smem + C::kOffK + s * C::kKVBytes;
    const uint32_t v_dst = smem + C::kOffV + s * C::kKVBytes;
    if (g >= C::kStages) hopper::MbarWait(bars.KEmpty(s), parity);
    hopper::MbarArriveExpectTx(bars.KFull(s), C::kKVBytes);
#pragma unroll
    for (int sub = 0; sub < C::kSub; ++sub) {
      hopper::TmaLoad3D(k_dst + sub * C::kBN * 128, k, bars.KFull(s), sub * 64, j * C::kBN, bh);
    }
    if (g >= C::kStages) hopper::MbarWait(bars.VEmpty(s), parity);
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

// The persistent grid's schedule (a18): units of work in bh-major order (a head's tiles are
// neighbours, so the CTAs running at once share a few heads' K/V in L2), dealt round-robin: CTA c
// takes units c, c + gridDim.x, ... Non-causal, a unit is one query tile. Causal, a unit is a
// head's k-th heaviest and k-th lightest query tiles (m-blocks n_m-1-k and k; the middle one alone
// when n_m is odd), so that units cost about the same and a static deal stays balanced: dealt one
// tile at a time, CTA c would always get the same causal position whenever gridDim.x is a multiple
// of n_m (132 = 12 · 11 at S = 2048, BM = 192), the heaviest tiles all on the same CTAs.
struct TileSchedule {
  int n_m, per_head;
  bool causal;
  int64_t units;

  __device__ explicit TileSchedule(const Params& p)
      : n_m(p.n_m_blocks),
        per_head(p.causal ? (p.n_m_blocks + 1) / 2 : p.n_m_blocks),
        causal(p.causal != 0),
        units(p.bh_count * per_head) {}

  // Calls fn(m_block, bh) for each of this CTA's query tiles, in order.
  template <class Fn>
  __device__ __forceinline__ void ForEach(Fn&& fn) const {
    for (int64_t u = blockIdx.x; u < units; u += gridDim.x) {
      const int bh = static_cast<int>(u / per_head), k = static_cast<int>(u % per_head);
      if (!causal) {
        fn(k, bh);
        continue;
      }
      fn(n_m - 1 - k, bh);
      if (k != n_m - 1 - k) fn(k, bh);
    }
  }
};

// The dynamic schedule (a20): CTA c starts with unit c, then takes the next unit from a global
// counter whenever its producer is ready to load another query tile, so no CTA idles while work
// is left. Units are ordered for a short tail and shared K/V: heads in groups of sched_group
// (a few waves of tiles, whose K/V fit in L2 together); within a group level by level, causal
// heaviest first (level 0 is every head's last query tile), so the last units handed out are the
// lightest ones.
struct DynamicSchedule {
  // 32-bit throughout (units <= 2^31 - 1, checked by Supports): the producer thread decodes units
  // under setmaxnreg 24, where 64-bit divisions spilled.
  int n_m, group, bh_count, units;
  bool causal;

  __device__ explicit DynamicSchedule(const Params& p)
      : n_m(p.n_m_blocks),
        group(p.sched_group),
        bh_count(static_cast<int>(p.bh_count)),
        units(static_cast<int>(p.bh_count) * p.n_m_blocks),
        causal(p.causal != 0) {}

  __device__ __forceinline__ void Decode(int u, int* m_block, int* bh) const {
    const int per_group = group * n_m;
    const int g0 = u / per_group * group;  // first head of u's group
    const int in = u - g0 * n_m;
    const int size = min(group, bh_count - g0);  // the last group may be smaller
    const int level = in / size;
    *bh = g0 + (in - level * size);
    *m_block = causal ? n_m - 1 - level : level;
  }
};

// The [n8 blocks][4] accumulator arrays as the flat register list wgmma takes (same order).
template <int R, int C>
__device__ __forceinline__ float (&Flat(float (&x)[R][C]))[R * C] {
  return reinterpret_cast<float(&)[R * C]>(x);
}

}  // namespace flashscope::kernels::attn_sm90
