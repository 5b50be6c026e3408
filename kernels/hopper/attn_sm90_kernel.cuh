// The one templated FlashAttention forward body behind the Hopper rungs a12..a17 (sm_90a only).
// Like a05..a11 (kernels/attention/attn_mma_impl.cuh), each rung is a compile-time feature set:
// a feature that is off compiles out, so each rung's binary is exactly what its file describes.
//
// Work split: a CTA owns BM = 128 query rows of one (batch, head), two consumer warpgroups of 64
// rows each (192 and three with kThreeWarpgroups), and walks the key tiles of BN keys that its rows
// can see:
//   S = Q·Kᵀ by wgmma, both operands from shared memory (Q and K tiles K-major, 128-byte
//   swizzled as TMA writes them); mask (only on tiles that cross Sk or the causal diagonal);
//   online softmax in registers (attn_mma::SoftmaxState: the same code as a07+); O += P·V by
//   wgmma with P from registers (the S accumulators re-packed as the A fragment) and V from
//   shared memory read MN-major (the transpose bit); O / l staged through shared memory and
//   written with 16-byte stores.
// Loads: Q once, then K and V tiles by TMA (cp.async.bulk.tensor, 3-D tensor maps over
// [B·H, S, D], so rows past a head's S arrive as zeros) into a kStages-deep ring; each stage has
// a "full" mbarrier (TMA completes it with the byte count) and an "empty" one (every consumer warp
// arrives when its wgmmas that read the stage have completed).
// Features (bits beside attn_mma's softmax bits, which these rungs reuse):
//   none           (a12) every thread computes; thread 0 also issues the TMA loads inline;
//   kWarpSpec      (a13) a third warpgroup produces (one thread issues all TMA loads), the two
//                        consumer warpgroups only compute; setmaxnreg moves registers to them;
//   kPingPong      (a14) the consumer warpgroups take turns issuing their GEMMs (named barriers),
//                        so one's softmax runs while the other's GEMMs occupy the tensor cores;
//                        each turn issues Q·K(j) together with P(j-1)·V(j-1);
//   kIntraOverlap  (a15) inside a warpgroup, the softmax of tile j runs while P(j-1)·V(j-1) is
//                        still executing (wait for S first, for O only before rescaling it);
//   kThreeWarpgroups (a17 at D = 64) three consumer warpgroups, 192 query rows per CTA;
//   kPersistent    (a18) one CTA per SM walks a static schedule of query tiles;
//   kSplitKV       (a19) a query tile's key tiles shared by several CTAs, partial (O, lse) merged
//                        by a second kernel (attn_sm90_combine.cuh);
//   kDynamicSchedule (a20) the persistent CTAs take query tiles from an atomic counter.
// a16 adds attn_mma's kCondRescale / kPolyExp softmax bits; a17 picks features per head dim.
// The consumer side (GEMMs, softmax, epilogue) is attn_sm90_consumer.cuh; the loads
// attn_sm90_pipeline.cuh.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/hopper/attn_sm90_consumer.cuh"
#include "kernels/hopper/attn_sm90_pipeline.cuh"

namespace flashscope::kernels::attn_sm90 {

// Persistent (a18): every CTA walks its share of TileSchedule; the producer thread runs ahead
// across tiles (K/V ring and Q buffers carry on from one tile to the next), so the next tile's Q
// and first key tiles load while the consumers finish this one and run its epilogue. Each role
// keeps the same running counts (ring slot g, Q-buffer use) over the same tile sequence.
template <typename T, int D, unsigned F>
__device__ __forceinline__ void RunPersistent(const CUtensorMap* tm_q, const CUtensorMap* tm_k,
                                              const CUtensorMap* tm_v, const Params& p,
                                              unsigned char* smem,
                                              const Barriers<Config<D, F>>& bars) {
  using C = Config<D, F>;
  const TileSchedule sched(p);
  const uint32_t sbase = hopper::SmemAddr(smem);
  int g = 0, use = 0;
  if (threadIdx.x < 128) {
    hopper::SetMaxNRegDec<C::kProducerRegs>();
    if (threadIdx.x != 0) return;
    sched.ForEach([&](int m_block, int bh) {
      const int m0 = m_block * C::kBM, n = KeyTiles<C::kBN>(p, m0 + C::kBM);
      const Producer<C> prod{tm_q, tm_k, tm_v, sbase, bars, bh};
      // Key tile 0 first: its stage frees while this Q buffer may still hold the last epilogue.
      if (n > 0) prod.LoadKV(0, g);
      prod.LoadQ(m0, use % C::kQBuffers, use / C::kQBuffers);
      for (int j = 1; j < n; ++j) prod.LoadKV(j, g + j);
      g += n;
      ++use;
    });
  } else {
    hopper::SetMaxNRegInc<C::kConsumerRegs>();
    sched.ForEach([&](int m_block, int bh) {
      const int m0 = m_block * C::kBM, n = KeyTiles<C::kBN>(p, m0 + C::kBM);
      const Producer<C> prod{tm_q, tm_k, tm_v, sbase, bars, bh};
      RunConsumer<T, D, F>(p, prod, smem, m0, bh, n, threadIdx.x - 128, g, use % C::kQBuffers,
                           (use / C::kQBuffers) & 1);
      g += n;
      ++use;
    });
  }
}

// Persistent with the dynamic schedule (a20): the producer thread takes each next work unit
// from the global counter (the first is blockIdx.x) and publishes it in the Q buffer's unit slot
// before the Q load's arrival, whose release the consumers' wait acquires; -1 with a plain
// arrival says there is no more work. The K/V ring and Q buffers carry on across tiles as in
// RunPersistent.
template <typename T, int D, unsigned F>
__device__ __forceinline__ void RunPersistentDynamic(const CUtensorMap* tm_q,
                                                     const CUtensorMap* tm_k,
                                                     const CUtensorMap* tm_v, const Params& p,
                                                     unsigned char* smem,
                                                     const Barriers<Config<D, F>>& bars) {
  using C = Config<D, F>;
  const DynamicSchedule sched(p);
  const uint32_t sbase = hopper::SmemAddr(smem);
  volatile int* const unit_slot = reinterpret_cast<volatile int*>(smem + C::kOffUnit);
  int g = 0;
  if (threadIdx.x < 128) {
    hopper::SetMaxNRegDec<C::kProducerRegs>();
    if (threadIdx.x != 0) return;
    int u = blockIdx.x;
    for (int use = 0;; ++use) {
      const int buf = use % C::kQBuffers, fill = use / C::kQBuffers;
      // The consumers release the buffer (and its unit slot) after their epilogue's reads.
      if (fill > 0) hopper::MbarWait(bars.QEmpty(buf), (fill - 1) & 1);
      if (u >= sched.units) {
        unit_slot[buf] = -1;
        hopper::MbarArrive(bars.QFull(buf));
        break;
      }
      int m_block, bh;
      sched.Decode(u, &m_block, &bh);
      unit_slot[buf] = u;
      const int m0 = m_block * C::kBM, n = KeyTiles<C::kBN>(p, m0 + C::kBM);
      const Producer<C> prod{tm_q, tm_k, tm_v, sbase, bars, bh};
      if (n > 0) prod.LoadKV(0, g);
      prod.LoadQ(m0, buf);  // its buffer was waited for above
      for (int j = 1; j < n; ++j) prod.LoadKV(j, g + j);
      g += n;
      u = atomicAdd(p.unit_counter, 1) + static_cast<int>(gridDim.x);
    }
    // Every CTA passes here once, after its last fetch: the last one resets the counters.
    if (atomicAdd(p.unit_counter + 1, 1) == static_cast<int>(gridDim.x) - 1) {
      atomicExch(p.unit_counter, 0);
      atomicExch(p.unit_counter + 1, 0);
    }
  } else {
    hopper::SetMaxNRegInc<C::kConsumerRegs>();
    for (int use = 0;; ++use) {
      const int buf = use % C::kQBuffers;
      const uint32_t phase = (use / C::kQBuffers) & 1;
      hopper::MbarWait(bars.QFull(buf), phase);
      // Lane 0 reads the unit and hands it to its warp: the thread that read the slot is then
      // the one whose QEmpty arrival releases it for the producer's next write, an order
      // compute-sanitizer's racecheck follows (docs/ladder.md, session 7).
      int u = 0;
      if ((threadIdx.x & 31) == 0) u = unit_slot[buf];
      u = __shfl_sync(0xffffffffu, u, 0);
      if (u < 0) break;
      int m_block, bh;
      sched.Decode(u, &m_block, &bh);
      const int m0 = m_block * C::kBM, n = KeyTiles<C::kBN>(p, m0 + C::kBM);
      const Producer<C> prod{tm_q, tm_k, tm_v, sbase, bars, bh};
      RunConsumer<T, D, F>(p, prod, smem, m0, bh, n, threadIdx.x - 128, g, buf, phase);
      g += n;
    }
  }
}

// One query tile per CTA (a12..a17): blockIdx.x = bh · n_m_blocks + tile (B·H on x: no 65,535
// limit); causal CTAs of a head run heaviest (last query tile) first, and the tiles of one head
// are neighbours so that their K/V reads meet in L2. Split-KV (a19): n_splits neighbouring CTAs
// share a query tile, each taking a contiguous, balanced share of its visible key tiles.
template <typename T, int D, unsigned F>
__device__ __forceinline__ void RunOneTile(const CUtensorMap* tm_q, const CUtensorMap* tm_k,
                                           const CUtensorMap* tm_v, const Params& p,
                                           unsigned char* smem,
                                           const Barriers<Config<D, F>>& bars) {
  using C = Config<D, F>;
  unsigned tile_id = blockIdx.x;
  int split = 0;
  if constexpr (C::kSplit) {
    split = static_cast<int>(tile_id % p.n_splits);
    tile_id /= p.n_splits;
  }
  const int mi = static_cast<int>(tile_id % p.n_m_blocks);
  const int bh = static_cast<int>(tile_id / p.n_m_blocks);
  const int m0 = (p.causal ? p.n_m_blocks - 1 - mi : mi) * C::kBM;
  int n_tiles = KeyTiles<C::kBN>(p, m0 + C::kBM), kt0 = 0;
  if constexpr (C::kSplit) {
    const int n_all = n_tiles;
    kt0 = static_cast<int>(int64_t(split) * n_all / p.n_splits);
    n_tiles = static_cast<int>(int64_t(split + 1) * n_all / p.n_splits) - kt0;
  }
  const Producer<C> prod{tm_q, tm_k, tm_v, hopper::SmemAddr(smem), bars, bh};
  if constexpr (C::kWS) {
    if (threadIdx.x < 128) {  // producer warpgroup: one thread issues every load
      hopper::SetMaxNRegDec<C::kProducerRegs>();
      if (threadIdx.x == 0) {
        prod.LoadQ(m0);
        for (int j = 0; j < n_tiles; ++j) prod.LoadKV(kt0 + j, j);
      }
    } else {
      hopper::SetMaxNRegInc<C::kConsumerRegs>();
      RunConsumer<T, D, F>(p, prod, smem, m0, bh, n_tiles, threadIdx.x - 128, 0, 0, 0, kt0, split);
    }
  } else {
    if (threadIdx.x == 0) {
      prod.LoadQ(m0);
      for (int j = 0; j < n_tiles && j < C::kStages; ++j) prod.LoadKV(j);
    }
    __syncwarp();
    RunConsumer<T, D, F>(p, prod, smem, m0, bh, n_tiles, threadIdx.x);
  }
}

template <typename T, int D, unsigned F>
__global__ void __launch_bounds__(Config<D, F>::kThreads, 1)
    AttnSm90Kernel(const __grid_constant__ CUtensorMap tm_q,
                   const __grid_constant__ CUtensorMap tm_k,
                   const __grid_constant__ CUtensorMap tm_v, const Params p) {
  using C = Config<D, F>;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  unsigned char* smem = smem_raw + ((1024 - (hopper::SmemAddr(smem_raw) & 1023)) & 1023);
  const Barriers<C> bars{hopper::SmemAddr(smem) + C::kOffBar};
  if (threadIdx.x == 0) bars.Init();
  __syncthreads();
  if constexpr (C::kDyn) {
    RunPersistentDynamic<T, D, F>(&tm_q, &tm_k, &tm_v, p, smem, bars);
  } else if constexpr (C::kPersist) {
    RunPersistent<T, D, F>(&tm_q, &tm_k, &tm_v, p, smem, bars);
  } else {
    RunOneTile<T, D, F>(&tm_q, &tm_k, &tm_v, p, smem, bars);
  }
}

}  // namespace flashscope::kernels::attn_sm90
