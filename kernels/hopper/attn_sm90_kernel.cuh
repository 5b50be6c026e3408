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
//   kThreeWarpgroups (a17 at D = 64) three consumer warpgroups, 192 query rows per CTA.
// a16 adds attn_mma's kCondRescale / kPolyExp softmax bits; a17 picks features per head dim.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/hopper/attn_sm90_pipeline.cuh"

namespace flashscope::kernels::attn_sm90 {

// One consumer thread's view: its warpgroup's 64 rows, the online-softmax state of its rows
// (rows g and g+8 of its warp's 16, as in the mma.sync rungs) and the O accumulators.
template <typename T, int D, unsigned F>
struct Consumer {
  using C = Config<D, F>;
  static constexpr int BN = C::kBN;
  using Softmax = attn_mma::SoftmaxState<T, D, BN, F | kDirectRescale>;

  const Params& p;
  Producer<C> prod;
  unsigned char* smem;  // 1024-aligned base (generic pointer)
  int m0, bh, n_tiles;
  // Persistent (a18): the ring slot of this tile's first key tile, and the Q buffer with the
  // parity of its fill; 0 for every other rung (one tile per CTA).
  int kv0, qbuf;
  uint32_t qphase;
  int ctid, cw, warp, lane, g, t, row_lo;
  Softmax st;

  __device__ Consumer(const Params& params, const Producer<C>& producer, unsigned char* base,
                      int m0_, int bh_, int n_tiles_, int consumer_tid, int kv0_, int qbuf_,
                      uint32_t qphase_)
      : p(params),
        prod(producer),
        smem(base),
        m0(m0_),
        bh(bh_),
        n_tiles(n_tiles_),
        kv0(kv0_),
        qbuf(qbuf_),
        qphase(qphase_) {
    ctid = consumer_tid;
    cw = ctid / 128;
    warp = (ctid / 32) % 4;
    lane = ctid % 32;
    g = lane / 4;
    t = lane % 4;
    row_lo = m0 + cw * 64 + warp * 16;
    st.Init();
  }

  // Ring stage and fill parity of this tile's key tile `it` (compile-time `it`-only unless
  // persistent, so the other rungs' code is what it was).
  __device__ __forceinline__ int Slot(int it) const {
    return (C::kPersist ? kv0 + it : it) % C::kStages;
  }
  __device__ __forceinline__ uint32_t Phase(int it) const {
    return ((C::kPersist ? kv0 + it : it) / C::kStages) & 1;
  }
  // Offset of this tile's Q buffer (also where the epilogue stages O).
  __device__ __forceinline__ uint32_t QOffset() const {
    return C::kQBuffers > 1 ? qbuf * C::kQBytes : 0u;
  }

  // S = Q·Kᵀ for this warpgroup's 64 rows: D/16 wgmmas m64nBNk16, both operands K-major in the
  // 128-byte swizzle; a k16 slice is 32 bytes further along the 128-byte rows of a column block.
  __device__ __forceinline__ void IssueQK(float (&s)[BN / 8][4], int stage) const {
    const uint32_t q = prod.smem + QOffset() + cw * 64 * 128;
    const uint32_t k = prod.smem + C::kOffK + stage * C::kKVBytes;
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
      const uint32_t col = (kk % 4) * 32;
      const uint64_t da = hopper::SmemDescriptorSw128(q + (kk / 4) * C::kBM * 128 + col, 16, 1024);
      const uint64_t db = hopper::SmemDescriptorSw128(k + (kk / 4) * BN * 128 + col, 16, 1024);
      hopper::Wgmma<BN>::template SS<T, false, false>(Flat(s), da, db, kk > 0 ? 1u : 0u);
    }
  }

  // O += P·V: BN/16 wgmmas m64nDk16, P from registers, V MN-major (transposed): a k16 slice is
  // 16 key rows (2048 bytes) on; LBO steps over the 64-column blocks, SBO over 8-key groups.
  __device__ __forceinline__ void IssuePV(const uint32_t (&pa)[BN / 16][4], int stage) {
    const uint32_t v = prod.smem + C::kOffV + stage * C::kKVBytes;
#pragma unroll
    for (int kc = 0; kc < BN / 16; ++kc) {
      const uint64_t db = hopper::SmemDescriptorSw128(v + kc * 2048, BN * 128, 1024);
      hopper::Wgmma<D>::template RS<T, true>(Flat(st.o), pa[kc], db, 1u);
    }
  }

  // P (fp32, accumulator layout) to the A fragments of P·V: keys 16kc..16kc+15 are the n8
  // blocks 2kc and 2kc+1.
  __device__ __forceinline__ static void PackP(const float (&s)[BN / 8][4],
                                               uint32_t (&pa)[BN / 16][4]) {
#pragma unroll
    for (int kc = 0; kc < BN / 16; ++kc) {
      pa[kc][0] = ptx::PackFloat2<T>(s[2 * kc][0], s[2 * kc][1]);
      pa[kc][1] = ptx::PackFloat2<T>(s[2 * kc][2], s[2 * kc][3]);
      pa[kc][2] = ptx::PackFloat2<T>(s[2 * kc + 1][0], s[2 * kc + 1][1]);
      pa[kc][3] = ptx::PackFloat2<T>(s[2 * kc + 1][2], s[2 * kc + 1][3]);
    }
  }

  // Every consumer warp arrives once its wgmmas reading the stage have completed.
  __device__ __forceinline__ void Release(uint32_t bar) const {
    if (lane == 0) hopper::MbarArrive(bar);
  }

  __device__ __forceinline__ void Mask(float (&s)[BN / 8][4], int tile) const {
    attn_mma::MaskScores<BN>(s, tile * BN, row_lo, p.seq_k, p.causal, p.seq_k - p.seq_q, g, t);
  }

  // Ping-pong: a warpgroup waits for its turn before issuing GEMMs and hands the turn over
  // after. Warpgroup 1 hands over before its first turn (warpgroup 0 goes first) and not after
  // its last, so every bar.sync meets exactly one bar.arrive of the other warpgroup.
  __device__ __forceinline__ void TakeTurn() const {
    if constexpr (C::kPP) hopper::NamedBarrierSync(kBarTurn0 + cw, 256);
  }
  __device__ __forceinline__ void PassTurn(bool last) const {
    if constexpr (C::kPP) {
      if (!(last && cw == 1)) hopper::NamedBarrierArrive(kBarTurn0 + (cw ^ 1), 256);
    }
  }

  // a12/a13: per key tile, S = Q·Kᵀ, wait, softmax (O rescaled in place), P·V, wait.
  __device__ void RunSequential() {
    hopper::MbarWait(prod.bars.QFull(qbuf), qphase);
    for (int it = 0; it < n_tiles; ++it) {
      const int s = Slot(it);
      const uint32_t ph = Phase(it);
      if constexpr (!C::kWS) {
        // Inline producer: refill the stage tile it-1 used, once every warp has released it.
        if (ctid == 0 && it >= 1 && it + C::kStages - 1 < n_tiles) {
          prod.LoadKV(it + C::kStages - 1);
        }
        __syncwarp();
      }
      float sc[BN / 8][4];
      hopper::MbarWait(prod.bars.KFull(s), ph);
      hopper::WgmmaFence();
      IssueQK(sc, s);
      hopper::WgmmaCommit();
      hopper::WgmmaWait<0>();
      hopper::FenceOperands(Flat(sc));
      Release(prod.bars.KEmpty(s));
      Mask(sc, it);
      st.SoftmaxInRegs(sc, p.scale);
      uint32_t pa[BN / 16][4];
      PackP(sc, pa);
      hopper::MbarWait(prod.bars.VFull(s), ph);
      hopper::FenceOperands(Flat(st.o));
      hopper::WgmmaFence();
      IssuePV(pa, s);
      hopper::WgmmaCommit();
      hopper::WgmmaWait<0>();
      hopper::FenceOperands(Flat(st.o));
      Release(prod.bars.VEmpty(s));
    }
  }

  // Softmax of a tile whose S has landed: mask, new max, P = exp2(...) in place, row sums.
  // Returns whether O needs rescaling by alpha (applied by the caller once O is not in flight).
  __device__ __forceinline__ bool SoftmaxTile(float (&sc)[BN / 8][4], int tile, float (&alpha)[2]) {
    Mask(sc, tile);
    float mx[2];
    Softmax::RowMax(sc, mx);
    const bool rescale = st.UpdateMax(mx, p.scale, alpha);
    st.ExpAndSum(sc, p.scale);
    return rescale;
  }

  // a14/a15: each turn issues Q·K(it) and P(it-1)·V(it-1) together. With kIntraOverlap the
  // turn waits only for Q·K(it) and runs the softmax of tile it while P(it-1)·V(it-1) executes;
  // the wait for that P·V sits at the top of the next iteration, across the loop's back edge:
  // placed after the softmax in the same basic block, ptxas hoists it above the softmax (seen in
  // the SASS), which would serialise the two again. O is rescaled for tile it-1 between the two
  // issues, when no wgmma writes it.
  __device__ void RunBatched() {
    hopper::MbarWait(prod.bars.QFull(qbuf), qphase);
    if (n_tiles == 0) return;
    if constexpr (C::kPP) {
      if (cw == 1) hopper::NamedBarrierArrive(kBarTurn0, 256);
    }
    float sc[BN / 8][4];      // S of the current tile, then its P (fp32)
    uint32_t pa[BN / 16][4];  // P of the previous tile, the A operand of its P·V
    float alpha[2];
    hopper::MbarWait(prod.bars.KFull(Slot(0)), Phase(0));
    TakeTurn();
    hopper::WgmmaFence();
    IssueQK(sc, Slot(0));
    hopper::WgmmaCommit();
    PassTurn(false);
    hopper::WgmmaWait<0>();
    hopper::FenceOperands(Flat(sc));
    Release(prod.bars.KEmpty(Slot(0)));
    SoftmaxTile(sc, 0, alpha);  // O is still zero: no rescale
    bool rescale = false;
    for (int it = 1; it < n_tiles; ++it) {
      const int s = Slot(it), sp = Slot(it - 1);
      RetirePV(it - 2);
      PackP(sc, pa);
      hopper::MbarWait(prod.bars.KFull(s), Phase(it));
      hopper::MbarWait(prod.bars.VFull(sp), Phase(it - 1));
      TakeTurn();
      hopper::WgmmaFence();
      IssueQK(sc, s);
      hopper::WgmmaCommit();
      RescaleBeforePV(rescale, alpha);
      IssuePV(pa, sp);
      hopper::WgmmaCommit();
      PassTurn(false);
      if constexpr (C::kIO) {
        hopper::WgmmaWait<1>();  // S(it) has landed; P(it-1)·V(it-1) may still run
      } else {
        hopper::WgmmaWait<0>();
      }
      hopper::FenceOperands(Flat(sc));
      Release(prod.bars.KEmpty(s));
      rescale = SoftmaxTile(sc, it, alpha);
    }
    RetirePV(n_tiles - 2);
    PackP(sc, pa);
    const int sl = Slot(n_tiles - 1);
    hopper::MbarWait(prod.bars.VFull(sl), Phase(n_tiles - 1));
    TakeTurn();
    RescaleBeforePV(rescale, alpha);
    IssuePV(pa, sl);
    hopper::WgmmaCommit();
    PassTurn(true);
    RetirePV(n_tiles - 1);
  }

  // Waits for every wgmma of this warpgroup (the P·V of tile `tile` is the last one in flight)
  // and releases that tile's V stage; nothing to release for tile < 0.
  __device__ __forceinline__ void RetirePV(int tile) {
    hopper::WgmmaWait<0>();
    hopper::FenceOperands(Flat(st.o));
    if (tile >= 0) Release(prod.bars.VEmpty(Slot(tile)));
  }

  // O *= alpha (when the last softmax moved the max), then the fence the next wgmma on O needs.
  __device__ __forceinline__ void RescaleBeforePV(bool rescale, const float (&alpha)[2]) {
    hopper::FenceOperands(Flat(st.o));
    if (rescale) {
      st.RescaleO(0, alpha[0]);
      st.RescaleO(1, alpha[1]);
    }
    hopper::FenceOperands(Flat(st.o));
    hopper::WgmmaFence();
  }

  // O / l, staged in this warpgroup's own rows of the Q tile (its Q·Kᵀ reads are complete) in
  // the same swizzled layout, then 16-byte coalesced stores of the rows inside seq_q; the
  // log-sum-exp from the quad's first thread. Persistent: then each warp hands the Q buffer
  // back to the producer (its generic-proxy writes ordered before the TMA's next fill).
  __device__ void Epilogue() {
    unsigned char* const stage = smem + QOffset();
    float lse[2];
    st.Finalize(nullptr, lse);
    const int r_base = cw * 64 + warp * 16 + g;  // row within the CTA's tile
#pragma unroll
    for (int dt = 0; dt < D / 8; ++dt) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = r_base + 8 * h, col = dt * 8 + 2 * t;
        const uint32_t off = (col / 64) * C::kBM * 128 + row * 128 +
                             ((((col % 64) / 8) ^ (row & 7)) << 4) + (col % 8) * 2;
        *reinterpret_cast<uint32_t*>(stage + off) =
            ptx::PackFloat2<T>(st.o[dt][2 * h], st.o[dt][2 * h + 1]);
      }
    }
    hopper::NamedBarrierSync(kBarEpilogue0 + cw, 128);
    constexpr int kChunks = D / 8;
    T* out = static_cast<T*>(p.o) + int64_t(bh) * p.seq_q * D;
#pragma unroll
    for (int i = ctid % 128; i < 64 * kChunks; i += 128) {
      const int r = cw * 64 + i / kChunks, ch = i % kChunks;
      if (m0 + r < p.seq_q) {
        const uint32_t off = (ch / 8) * C::kBM * 128 + r * 128 + (((ch % 8) ^ (r & 7)) << 4);
        *reinterpret_cast<uint4*>(out + int64_t(m0 + r) * D + ch * 8) =
            *reinterpret_cast<const uint4*>(stage + off);
      }
    }
    if (p.lse != nullptr && t == 0) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int grow = m0 + r_base + 8 * h;
        if (grow < p.seq_q) p.lse[int64_t(bh) * p.seq_q + grow] = lse[h];
      }
    }
    if constexpr (C::kPersist) {
      hopper::FenceProxyAsyncShared();
      __syncwarp();
      Release(prod.bars.QEmpty(qbuf));
    }
  }
};

template <typename T, int D, unsigned F>
__device__ __forceinline__ void RunConsumer(const Params& p, const Producer<Config<D, F>>& prod,
                                            unsigned char* smem, int m0, int bh, int n_tiles,
                                            int consumer_tid, int kv0 = 0, int qbuf = 0,
                                            uint32_t qphase = 0) {
  Consumer<T, D, F> c(p, prod, smem, m0, bh, n_tiles, consumer_tid, kv0, qbuf, qphase);
  if constexpr (Config<D, F>::kBatched) {
    c.RunBatched();
  } else {
    c.RunSequential();
  }
  c.Epilogue();
}

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

// One query tile per CTA (a12..a17): blockIdx.x = bh · n_m_blocks + tile (B·H on x: no 65,535
// limit); causal CTAs of a head run heaviest (last query tile) first, and the tiles of one head
// are neighbours so that their K/V reads meet in L2.
template <typename T, int D, unsigned F>
__device__ __forceinline__ void RunOneTile(const CUtensorMap* tm_q, const CUtensorMap* tm_k,
                                           const CUtensorMap* tm_v, const Params& p,
                                           unsigned char* smem,
                                           const Barriers<Config<D, F>>& bars) {
  using C = Config<D, F>;
  const int mi = static_cast<int>(blockIdx.x % p.n_m_blocks);
  const int bh = static_cast<int>(blockIdx.x / p.n_m_blocks);
  const int m0 = (p.causal ? p.n_m_blocks - 1 - mi : mi) * C::kBM;
  const int n_tiles = KeyTiles<C::kBN>(p, m0 + C::kBM);
  const Producer<C> prod{tm_q, tm_k, tm_v, hopper::SmemAddr(smem), bars, bh};
  if constexpr (C::kWS) {
    if (threadIdx.x < 128) {  // producer warpgroup: one thread issues every load
      hopper::SetMaxNRegDec<C::kProducerRegs>();
      if (threadIdx.x == 0) {
        prod.LoadQ(m0);
        for (int j = 0; j < n_tiles; ++j) prod.LoadKV(j);
      }
    } else {
      hopper::SetMaxNRegInc<C::kConsumerRegs>();
      RunConsumer<T, D, F>(p, prod, smem, m0, bh, n_tiles, threadIdx.x - 128);
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
  if constexpr (C::kPersist) {
    RunPersistent<T, D, F>(&tm_q, &tm_k, &tm_v, p, smem, bars);
  } else {
    RunOneTile<T, D, F>(&tm_q, &tm_k, &tm_v, p, smem, bars);
  }
}

}  // namespace flashscope::kernels::attn_sm90
