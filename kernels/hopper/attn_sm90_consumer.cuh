// The consumer side of the Hopper attention rungs (attn_sm90_kernel.cuh has the kernel, its
// grids and the whole design): one consumer thread's GEMMs, online softmax and epilogue over the
// key tiles of its query tile, and RunConsumer, which the grids call per query tile.
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
  // Split-KV (a19): the first key tile of this CTA's share and which share it is; 0 otherwise.
  int kt0, split;
  int ctid, cw, warp, lane, g, t, row_lo;
  Softmax st;

  __device__ Consumer(const Params& params, const Producer<C>& producer, unsigned char* base,
                      int m0_, int bh_, int n_tiles_, int consumer_tid, int kv0_, int qbuf_,
                      uint32_t qphase_, int kt0_, int split_)
      : p(params),
        prod(producer),
        smem(base),
        m0(m0_),
        bh(bh_),
        n_tiles(n_tiles_),
        kv0(kv0_),
        qbuf(qbuf_),
        qphase(qphase_),
        kt0(kt0_),
        split(split_) {
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

  // `tile` counts this CTA's key tiles; split-KV shares start at key tile kt0.
  __device__ __forceinline__ void Mask(float (&s)[BN / 8][4], int tile) const {
    const int key_tile = C::kSplit ? kt0 + tile : tile;
    attn_mma::MaskScores<BN>(s, key_tile * BN, row_lo, p.seq_k, p.causal, p.seq_k - p.seq_q, g, t);
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

  // a26: how many of this CTA's key tiles (a prefix) this warpgroup's own rows see: none when
  // they all lie past seq_q (the last query tile's padding), fewer than the CTA's when the causal
  // diagonal crosses the tile (the tile's first warpgroup stops a key tile or more earlier).
  // Skipping the rest changes no result: they are masked whole for every row of the warpgroup.
  // (RunSequential calls it only with kTrim; without, every warpgroup walks all n_tiles.)
  __device__ __forceinline__ int OwnKeyTiles() const {
    const int first_row = m0 + cw * 64;
    if (first_row >= p.seq_q) return 0;
    const int seen = KeyTiles<BN>(p, min(first_row + 64, p.seq_q)) - (C::kSplit ? kt0 : 0);
    return max(0, min(n_tiles, seen));
  }

  // a26: a key tile this warpgroup's rows do not see: it still waits for the tile to land before
  // releasing it, so that its one arrival per stage fill counts towards that fill and never towards
  // an earlier one that other warpgroups are still reading.
  __device__ __forceinline__ void PassOver(int s, uint32_t ph) const {
    hopper::MbarWait(prod.bars.KFull(s), ph);
    Release(prod.bars.KEmpty(s));
    hopper::MbarWait(prod.bars.VFull(s), ph);
    Release(prod.bars.VEmpty(s));
  }

  // a12/a13: per key tile, S = Q·Kᵀ, wait, softmax (O rescaled in place), P·V, wait.
  __device__ void RunSequential() {
    hopper::MbarWait(prod.bars.QFull(qbuf), qphase);
    // a26: the computing loop ends at this warpgroup's own last key tile, then a loop of its own
    // passes over the CTA's remaining ones. (A test inside the computing loop cost a20's schedule
    // 9-12 % at S >= 2048: session 10, device call 1.)
    // The shuffle from lane 0 tells the compiler the count is warp-uniform, so that the loop keeps
    // its stage and phase in uniform registers as a20's does (computed from the warpgroup index,
    // which it cannot prove uniform, the loop state moved to vector registers: -10 % at D = 64).
    const int own_tiles = C::kTrim ? __shfl_sync(0xffffffffu, OwnKeyTiles(), 0) : n_tiles;
    for (int it = 0; it < own_tiles; ++it) {
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
    if constexpr (C::kTrim) {
      for (int it = own_tiles; it < n_tiles; ++it) PassOver(Slot(it), Phase(it));
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
    if constexpr (C::kSplit) {
      if (p.n_splits > 1) return EpiloguePartial();
    }
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

  // Split-KV: this share's O / l and log-sum-exp in fp32, straight from the registers (a quad
  // writes 32 contiguous bytes of a row per n8 block); the combine kernel weighs the shares. A
  // share that saw no key writes O = 0 and -inf, which the combine gives weight 0.
  __device__ void EpiloguePartial() {
    float lse[2];
    st.Finalize(nullptr, lse);
    const int64_t slab = (int64_t(split) * p.bh_count + bh) * p.seq_q;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row_lo + g + 8 * h;
      if (row >= p.seq_q) continue;
      float* const dst = p.part_o + (slab + row) * D + 2 * t;
#pragma unroll
      for (int dt = 0; dt < D / 8; ++dt) {
        *reinterpret_cast<float2*>(dst + dt * 8) =
            make_float2(st.o[dt][2 * h], st.o[dt][2 * h + 1]);
      }
      if (t == 0) p.part_lse[slab + row] = lse[h];
    }
  }
};

template <typename T, int D, unsigned F>
__device__ __forceinline__ void RunConsumer(const Params& p, const Producer<Config<D, F>>& prod,
                                            unsigned char* smem, int m0, int bh, int n_tiles,
                                            int consumer_tid, int kv0 = 0, int qbuf = 0,
                                            uint32_t qphase = 0, int kt0 = 0, int split = 0) {
  Consumer<T, D, F> c(p, prod, smem, m0, bh, n_tiles, consumer_tid, kv0, qbuf, qphase, kt0, split);
  if constexpr (Config<D, F>::kBatched) {
    c.RunBatched();
  } else {
    c.RunSequential();
  }
  c.Epilogue();
}

}  // namespace flashscope::kernels::attn_sm90
