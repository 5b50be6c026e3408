// The device side of the FP8 rungs (a27_fp8.cu has the design; attn_fp8_entry.cuh, the host): FP8
// (E4M3) attention forward on Hopper with fp32 accumulation and a BF16 output. Like a13/a26 it
// runs a producer warpgroup (one thread issues every TMA load) and two free-running consumer
// warpgroups of 64 query rows each, over a ring of K / V^T stages guarded by full / empty
// mbarriers; it reuses attn_sm90's Params, KeyTiles and mbarrier wrappers and attn_mma's online
// softmax and mask. What FP8 changes:
//   - S = Q·Kᵀ by wgmma m64n128k32 .e4m3 with both operands K-major (D contiguous) as TMA writes
//     them: 128-byte swizzle where a row has >= 128 bytes (D = 128: one atom per row; D = 256: two
//     column blocks), 64-byte swizzle at D = 64 (64-byte rows);
//   - P·V by wgmma m64nDk32 .e4m3 with P from registers and V^T from shared memory, K-major (keys
//     contiguous; FP8 wgmma cannot read an MN-major operand): V^T comes from a pre-pass
//     (TransposeVKernel, attn_fp8_transpose.cuh) that also permutes keys within each 32-key group
//     (attn_fp8_layout.h), so that P's fp32 accumulators convert pairwise into the A fragment in
//     place;
//   - O (fp32) / l written as BF16 straight from the registers.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/attention/attn_mma_softmax.cuh"
#include "kernels/hopper/attn_fp8_layout.h"
#include "kernels/hopper/attn_sm90_pipeline.cuh"
#include "kernels/hopper/hopper_ptx.cuh"

namespace flashscope::kernels::attn_fp8 {

using attn_sm90::Params;

template <int D>
struct Fp8Config {
  static_assert(D == 64 || D == 128 || D == 256, "head dims 64, 128 and 256");
  static constexpr int kBM = 128, kBN = 128;  // query rows (two warpgroups) x keys per tile
  static constexpr int kConsumerWGs = 2;
  static constexpr int kConsumerThreads = 128 * kConsumerWGs;
  static constexpr int kThreads = kConsumerThreads + 128;
  static constexpr int kProducerRegs = 24, kConsumerRegs = 240;
  // Q and K rows: D bytes, in column blocks of kSpan bytes (the swizzle span: 128, or 64 at D =
  // 64).
  static constexpr int kSpan = D >= 128 ? 128 : 64;
  static constexpr int kSub = D / kSpan;
  static constexpr uint32_t kSbo = 8 * kSpan;                 // 8 rows of a swizzle atom
  static constexpr uint64_t kSwizzleMode = D >= 128 ? 1 : 2;  // descriptor: 1 = 128 B, 2 = 64 B
  static constexpr uint32_t kQBytes = kBM * D;
  static constexpr uint32_t kKBytes = kBN * D;
  static constexpr uint32_t kVBytes = D * kBN;  // V^T: D rows of kBN = 128 keys (128 bytes)
  static constexpr int kStages = D == 256 ? 2 : 4;
  static constexpr uint32_t kOffK = kQBytes;
  static constexpr uint32_t kOffV = kOffK + kStages * kKBytes;
  static constexpr uint32_t kOffBar = kOffV + kStages * kVBytes;
  static constexpr uint32_t kNumBars = 1 + 4 * kStages;
  static constexpr size_t kSmemBytes = kOffBar + kNumBars * 8 + 1024;  // + 1 KiB alignment slack
  static_assert(kSmemBytes <= 227 * 1024, "shared memory per block on sm_90");
};

// A K-major wgmma shared-memory descriptor in the swizzle `mode` (1: 128 B, 2: 64 B); LBO unused
// (16: a k32 slice of 32 bytes never leaves its atom), SBO the step between 8-row atoms.
__device__ __forceinline__ uint64_t KMajorDescriptor(uint32_t smem, uint32_t sbo_bytes,
                                                     uint64_t mode) {
  return uint64_t((smem & 0x3FFFF) >> 4) | (uint64_t(1) << 16) |
         (uint64_t((sbo_bytes >> 4) & 0x3FFF) << 32) | (mode << 62);
}

template <int D>
struct Fp8Barriers {
  using C = Fp8Config<D>;
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
    hopper::FenceProxyAsyncShared();
  }
};

template <int D>
struct Fp8Producer {
  using C = Fp8Config<D>;
  const CUtensorMap* q;
  const CUtensorMap* k;
  const CUtensorMap* vt;
  uint32_t smem;
  Fp8Barriers<D> bars;
  int bh;

  __device__ void LoadQ(int m0) const {
    hopper::MbarArriveExpectTx(bars.QFull(), C::kQBytes);
#pragma unroll
    for (int sub = 0; sub < C::kSub; ++sub) {
      hopper::TmaLoad3D(smem + sub * C::kBM * C::kSpan, q, bars.QFull(), sub * C::kSpan, m0, bh);
    }
  }

  // Key tile kt0 + j into stage j % kStages once the consumers released its previous fill
  // (kt0: the first key tile of a29's split-KV share, 0 otherwise).
  __device__ void LoadKV(int j, int kt0 = 0) const {
    const int s = j % C::kStages;
    const uint32_t parity = ((j / C::kStages) - 1) & 1;
    const uint32_t k_dst = smem + C::kOffK + s * C::kKBytes;
    if (j >= C::kStages) hopper::MbarWait(bars.KEmpty(s), parity);
    hopper::MbarArriveExpectTx(bars.KFull(s), C::kKBytes);
#pragma unroll
    for (int sub = 0; sub < C::kSub; ++sub) {
      hopper::TmaLoad3D(k_dst + sub * C::kBN * C::kSpan, k, bars.KFull(s), sub * C::kSpan,
                        (kt0 + j) * C::kBN, bh);
    }
    if (j >= C::kStages) hopper::MbarWait(bars.VEmpty(s), parity);
    hopper::MbarArriveExpectTx(bars.VFull(s), C::kVBytes);
    // V^T [bh][D][keys]: one box of 128 keys x D rows.
    hopper::TmaLoad3D(smem + C::kOffV + s * C::kVBytes, vt, bars.VFull(s), (kt0 + j) * C::kBN, 0,
                      bh);
  }
};

// kOverlap (a28_fp8_overlap): FlashAttention-3's intra-warpgroup overlap, RunOverlap's schedule;
// false is a27's serial schedule (Run), whose code it leaves as it was.
// kSplit (a29_fp8_split_kv, attn_sm90_fp8_split.cuh): the CTA's key tiles are a split-KV share
// starting at key tile kt0 (set by the split kernel after construction; serial schedule only);
// false has kt0 = 0 at compile time.
template <int D, bool kOverlap = false, bool kSplit = false>
struct Fp8Consumer {
  static_assert(!(kOverlap && kSplit), "split-KV is written for the serial schedule");
  using C = Fp8Config<D>;
  static constexpr int BN = C::kBN;
  // No conditional rescaling (a11/a16's kCondRescale), unlike the bf16 rungs: with it P is
  // 2^(s - m) against a stale max, up to 256, so the row's largest P, exactly 1 against the
  // running max, becomes a number E4M3 rounds by up to 2^-4 — on the key that carries most of
  // the row. Session 13's first device run measured max|err| 1.66-1.92x the FP8 baseline's at
  // S = 1024 (a numpy model of the kernel's numerics: 1.5x with the threshold of 256, 0.95x with
  // none) and sampled-row failures on small problems; FP8 needs the max current on every tile.
  static constexpr unsigned kSoftmax = attn_mma::kDirectRescale;
  using Softmax = attn_mma::SoftmaxState<__nv_bfloat16, D, BN, kSoftmax>;

  const Params& p;
  Fp8Producer<D> prod;
  int m0, bh, n_tiles;
  int ctid, cw, warp, lane, g, t, row_lo;
  int kt0 = 0, split = 0;  // kSplit only: the share's first key tile and its index
  Softmax st;

  __device__ __forceinline__ int KeyTile0() const { return kSplit ? kt0 : 0; }

  __device__ Fp8Consumer(const Params& params, const Fp8Producer<D>& producer, int m0_, int bh_,
                         int n_tiles_, int consumer_tid)
      : p(params), prod(producer), m0(m0_), bh(bh_), n_tiles(n_tiles_) {
    ctid = consumer_tid;
    cw = ctid / 128;
    warp = (ctid / 32) % 4;
    lane = ctid % 32;
    g = lane / 4;
    t = lane % 4;
    row_lo = m0 + cw * 64 + warp * 16;
    st.Init();
  }

  // S = Q·Kᵀ for this warpgroup's 64 rows: D/32 wgmmas m64n128k32, a k32 slice 32 bytes further
  // along the rows of a column block.
  __device__ __forceinline__ void IssueQK(float (&s)[BN / 8][4], int stage) const {
    IssueQKFrom(s, prod.smem + C::kOffK + stage * C::kKBytes);
  }

  // a28: S = Q·Kᵀ against the key tile at shared address k (a K stage, or the Q tile itself).
  __device__ __forceinline__ void IssueQKFrom(float (&s)[BN / 8][4], uint32_t k) const {
    const uint32_t q = prod.smem + cw * 64 * C::kSpan;
#pragma unroll
    for (int kk = 0; kk < D / 32; ++kk) {
      const int col = kk * 32;
      const uint32_t blk = col / C::kSpan, in = col % C::kSpan;
      const uint64_t da =
          KMajorDescriptor(q + blk * C::kBM * C::kSpan + in, C::kSbo, C::kSwizzleMode);
      const uint64_t db = KMajorDescriptor(k + blk * BN * C::kSpan + in, C::kSbo, C::kSwizzleMode);
      hopper::WgmmaE4M3<BN>::SS(attn_sm90::Flat(s), da, db, kk > 0 ? 1u : 0u);
    }
  }

  // O += P·V: BN/32 wgmmas m64nDk32, P from registers, V^T K-major (128-byte rows of keys,
  // 128-byte swizzled): a k32 slice is 32 bytes along the rows.
  __device__ __forceinline__ void IssuePV(const uint32_t (&pa)[BN / 32][4], int stage) {
    const uint32_t v = prod.smem + C::kOffV + stage * C::kVBytes;
#pragma unroll
    for (int kc = 0; kc < BN / 32; ++kc) {
      const uint64_t db = KMajorDescriptor(v + kc * 32, 1024, 1);
      hopper::WgmmaE4M3<D>::RS(attn_sm90::Flat(st.o), pa[kc], db, 1u);
    }
  }

  // Two fp32 values as two E4M3 bytes (round to nearest, saturated to +-448), lo in the low byte.
  __device__ __forceinline__ static uint32_t Pack2(float lo, float hi) {
    return static_cast<uint32_t>(
        __nv_cvt_float2_to_fp8x2(make_float2(lo, hi), __NV_SATFINITE, __NV_E4M3));
  }

  // P (fp32, accumulator layout) to the E4M3 A fragments of P·V, in place per thread: per 32-key
  // slice kc (n8 blocks 4kc..4kc+3), register r byte b takes block PackBlock(r, b), element
  // PackElement(r, b) (attn_fp8_layout.h; V^T's keys are permuted to match).
  __device__ __forceinline__ static void PackP(const float (&s)[BN / 8][4],
                                               uint32_t (&pa)[BN / 32][4]) {
#pragma unroll
    for (int kc = 0; kc < BN / 32; ++kc) {
      const int j = 4 * kc;
      pa[kc][0] = Pack2(s[j][0], s[j][1]) | (Pack2(s[j + 1][0], s[j + 1][1]) << 16);
      pa[kc][1] = Pack2(s[j][2], s[j][3]) | (Pack2(s[j + 1][2], s[j + 1][3]) << 16);
      pa[kc][2] = Pack2(s[j + 2][0], s[j + 2][1]) | (Pack2(s[j + 3][0], s[j + 3][1]) << 16);
      pa[kc][3] = Pack2(s[j + 2][2], s[j + 2][3]) | (Pack2(s[j + 3][2], s[j + 3][3]) << 16);
    }
  }

  __device__ __forceinline__ void Release(uint32_t bar) const {
    if (lane == 0) hopper::MbarArrive(bar);
  }

  // Key tiles (a prefix of the CTA's) this warpgroup's rows see (a26's trim): none when its rows
  // all lie past seq_q, fewer on the causal diagonal.
  __device__ __forceinline__ int OwnKeyTiles() const {
    const int first_row = m0 + cw * 64;
    if (first_row >= p.seq_q) return 0;
    const int seen = attn_sm90::KeyTiles<BN>(p, min(first_row + 64, p.seq_q)) - KeyTile0();
    return max(0, min(n_tiles, seen));
  }

  // The CTA's key tiles from `first` on, which this warpgroup's rows do not see: wait for each
  // to land (so that this warp's one arrival counts towards that fill), then release it.
  __device__ __forceinline__ void PassOverFrom(int first) const {
    for (int it = first; it < n_tiles; ++it) {
      const int s = it % C::kStages;
      const uint32_t ph = (it / C::kStages) & 1;
      hopper::MbarWait(prod.bars.KFull(s), ph);
      Release(prod.bars.KEmpty(s));
      hopper::MbarWait(prod.bars.VFull(s), ph);
      Release(prod.bars.VEmpty(s));
    }
  }

  __device__ void Run() {
    if constexpr (kOverlap) {
      RunOverlap();
      return;
    }
    hopper::MbarWait(prod.bars.QFull(), 0);
    const int own_tiles = __shfl_sync(0xffffffffu, OwnKeyTiles(), 0);
    for (int it = 0; it < own_tiles; ++it) {
      const int s = it % C::kStages;
      const uint32_t ph = (it / C::kStages) & 1;
      float sc[BN / 8][4];
      hopper::MbarWait(prod.bars.KFull(s), ph);
      hopper::WgmmaFence();
      IssueQK(sc, s);
      hopper::WgmmaCommit();
      hopper::WgmmaWait<0>();
      hopper::FenceOperands(attn_sm90::Flat(sc));
      Release(prod.bars.KEmpty(s));
      attn_mma::MaskScores<BN>(sc, (KeyTile0() + it) * BN, row_lo, p.seq_k, p.causal,
                               p.seq_k - p.seq_q, g, t);
      st.SoftmaxInRegs(sc, p.scale);
      uint32_t pa[BN / 32][4];
      PackP(sc, pa);
      hopper::MbarWait(prod.bars.VFull(s), ph);
      hopper::FenceOperands(attn_sm90::Flat(st.o));
      hopper::WgmmaFence();
      IssuePV(pa, s);
      hopper::WgmmaCommit();
      hopper::WgmmaWait<0>();
      hopper::FenceOperands(attn_sm90::Flat(st.o));
      Release(prod.bars.VEmpty(s));
    }
    PassOverFrom(own_tiles);
  }

  // a28: two S accumulators. The step of key tile it (its S in `cur`, landed) first issues the
  // next Q·K into `nxt`, then runs tile it's mask, max and exponentials while that Q·K and
  // P(it-1)·V(it-1) are on the tensor cores; in the source only O's rescale waits for
  // P(it-1)·V(it-1) (wgmma.wait_group 1: the Q·K, committed later, may still run), though ptxas
  // hoists that wait above the exponentials (the SASS shows it), so P(it-1)·V(it-1) overlaps the
  // mask and max and the Q·K the exponentials. P(it) is packed into the A registers after that
  // wait (P(it-1)·V(it-1) read them), P(it)·V(it) is issued, and the step ends waiting for the Q·K
  // only, so P(it)·V(it) runs under the next step's softmax. The running max stays current on
  // every tile (O is rescaled every step, as in a27).
  // The last tile's step issues a Q·K too, Q·Qᵀ from the Q tile (the same shape and swizzle as a
  // K tile, never overwritten while the CTA runs), whose value nothing uses (at D = 64 it is kept
  // live, RunOverlap says why): every step is then the same code, which ptxas needs to keep the
  // wgmmas asynchronous and the registers in place (a peeled last step that issues none made it
  // serialise the wgmmas, move O or spill).
  __device__ __forceinline__ void OverlapStep(float (&cur)[BN / 8][4], float (&nxt)[BN / 8][4],
                                              uint32_t (&pa)[BN / 32][4], int it, int own_tiles) {
    const int s = it % C::kStages;
    const int sn = (it + 1) % C::kStages;
    const bool last = it + 1 == own_tiles;
    if (!last) hopper::MbarWait(prod.bars.KFull(sn), ((it + 1) / C::kStages) & 1);
    hopper::WgmmaFence();
    IssueQKFrom(nxt, last ? prod.smem : prod.smem + C::kOffK + sn * C::kKBytes);
    hopper::WgmmaCommit();
    attn_mma::MaskScores<BN>(cur, it * BN, row_lo, p.seq_k, p.causal, p.seq_k - p.seq_q, g, t);
    // The direct softmax of attn_mma::SoftmaxState (UpdateMax, ExpAndSum), alpha = 2^(m_old -
    // m_new) formed after the exponentials, when O can take it (holding it across them was one
    // more live pair at D = 64), and l = l·alpha + the tile's sum.
    float mx[2], m_old[2], sum[2] = {0.f, 0.f};
    Softmax::RowMax(cur, mx);
    const float sl2 = p.scale * attn_mma::kLog2e;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      m_old[r] = st.m[r];
      st.m[r] = fmaxf(st.m[r], mx[r] * sl2);
    }
    const float mu[2] = {attn_mma::Finite(st.m[0]), attn_mma::Finite(st.m[1])};
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        cur[j][e] = ptx::Exp2(fmaf(cur[j][e], sl2, -mu[e >> 1]));
        sum[e >> 1] += cur[j][e];
      }
    }
    hopper::WgmmaWait<1>();  // P(it-1)·V(it-1) has retired
    hopper::FenceOperands(attn_sm90::Flat(st.o));
    if (it > 0) Release(prod.bars.VEmpty((it + C::kStages - 1) % C::kStages));
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const float alpha = ptx::Exp2(m_old[r] - mu[r]);
      st.l[r] = st.l[r] * alpha + sum[r];
      st.RescaleO(r, alpha);
    }
    PackP(cur, pa);
    hopper::MbarWait(prod.bars.VFull(s), (it / C::kStages) & 1);
    hopper::FenceOperands(attn_sm90::Flat(st.o));
    hopper::WgmmaFence();
    IssuePV(pa, s);
    hopper::WgmmaCommit();
    hopper::WgmmaWait<1>();  // the Q·K has landed; P(it)·V(it) may still run
    hopper::FenceOperands(attn_sm90::Flat(nxt));
    if (!last) Release(prod.bars.KEmpty(sn));
  }

  __device__ void RunOverlap() {
    hopper::MbarWait(prod.bars.QFull(), 0);
    const int own_tiles = __shfl_sync(0xffffffffu, OwnKeyTiles(), 0);
    if (own_tiles > 0) {
      float sa[BN / 8][4], sb[BN / 8][4];
      uint32_t pa[BN / 32][4];
      hopper::MbarWait(prod.bars.KFull(0), 0);
      hopper::WgmmaFence();
      IssueQKFrom(sa, prod.smem + C::kOffK);
      hopper::WgmmaCommit();
      hopper::WgmmaWait<0>();
      hopper::FenceOperands(attn_sm90::Flat(sa));
      Release(prod.bars.KEmpty(0));
      // Unrolled by two so that the accumulators swap roles without register copies.
      int it = 0;
      for (; it + 2 < own_tiles; it += 2) {
        OverlapStep(sa, sb, pa, it, own_tiles);
        OverlapStep(sb, sa, pa, it + 1, own_tiles);
      }
      if (it + 2 == own_tiles) {
        OverlapStep(sa, sb, pa, it, own_tiles);
        OverlapStep(sb, sa, pa, it + 1, own_tiles);
      } else {
        OverlapStep(sa, sb, pa, it, own_tiles);
      }
      if constexpr (D == 64) {
        // Keeps the last step's Q·Qᵀ live (l is unchanged: Q·Qᵀ of E4M3 values is finite): left
        // dead, ptxas drops it and hands the freed accumulator registers to O on the tails of
        // the loop, moving O there, which spilled at D = 64. At D = 128 a live one does not fit
        // (ptxas serialises the wgmmas).
        st.l[0] += 0.f * (sa[0][0] + sb[0][0]);
      }
      hopper::WgmmaWait<0>();
      hopper::FenceOperands(attn_sm90::Flat(st.o));
      Release(prod.bars.VEmpty((own_tiles - 1) % C::kStages));
    }
    PassOverFrom(own_tiles);
  }

  // O / l as BF16 from the registers (a quad writes 16 contiguous bytes of a row per n8 block);
  // the log-sum-exp from the quad's first thread. Rows past seq_q are not written.
  __device__ void Epilogue() {
    float lse[2];
    st.Finalize(nullptr, lse);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row_lo + g + 8 * h;
      if (row >= p.seq_q) continue;
      __nv_bfloat16* const dst =
          static_cast<__nv_bfloat16*>(p.o) + (int64_t(bh) * p.seq_q + row) * D + 2 * t;
#pragma unroll
      for (int dt = 0; dt < D / 8; ++dt) {
        *reinterpret_cast<__nv_bfloat162*>(dst + dt * 8) =
            __floats2bfloat162_rn(st.o[dt][2 * h], st.o[dt][2 * h + 1]);
      }
      if (p.lse != nullptr && t == 0) p.lse[int64_t(bh) * p.seq_q + row] = lse[h];
    }
  }
};

// a29's epilogue of one share (attn_sm90_fp8_split.cuh): fp32 partial O and lse to the workspace.
template <int D>
__device__ __forceinline__ void Fp8EpiloguePartial(Fp8Consumer<D, false, true>& c);

// One query tile of 128 rows per CTA: blockIdx.x = bh · n_m_blocks + tile (B·H on x: no 65,535
// limit); causal CTAs of a head run heaviest first. With kSplit (a29) n_splits neighbouring CTAs
// share a tile, blockIdx.x = (bh · n_m_blocks + tile) · n_splits + split, each taking a
// contiguous, balanced share of its visible key tiles. The body of every FP8 kernel.
template <int D, bool kOverlap, bool kSplit = false>
__device__ __forceinline__ void Fp8KernelBody(const CUtensorMap& tm_q, const CUtensorMap& tm_k,
                                              const CUtensorMap& tm_vt, const Params& p) {
  using C = Fp8Config<D>;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  unsigned char* smem = smem_raw + ((1024 - (hopper::SmemAddr(smem_raw) & 1023)) & 1023);
  const Fp8Barriers<D> bars{hopper::SmemAddr(smem) + C::kOffBar};
  if (threadIdx.x == 0) bars.Init();
  __syncthreads();
  unsigned tile_id = blockIdx.x;
  int split = 0;
  if constexpr (kSplit) {
    split = static_cast<int>(tile_id % p.n_splits);
    tile_id /= p.n_splits;
  }
  const int mi = static_cast<int>(tile_id % p.n_m_blocks);
  const int bh = static_cast<int>(tile_id / p.n_m_blocks);
  const int m0 = (p.causal ? p.n_m_blocks - 1 - mi : mi) * C::kBM;
  const int n_all = attn_sm90::KeyTiles<C::kBN>(p, m0 + C::kBM);
  int kt0 = 0, n_tiles = n_all;
  if constexpr (kSplit) {
    kt0 = static_cast<int>(int64_t(split) * n_all / p.n_splits);
    n_tiles = static_cast<int>(int64_t(split + 1) * n_all / p.n_splits) - kt0;
  }
  const Fp8Producer<D> prod{&tm_q, &tm_k, &tm_vt, hopper::SmemAddr(smem), bars, bh};
  if (threadIdx.x < 128) {
    hopper::SetMaxNRegDec<C::kProducerRegs>();
    if (threadIdx.x == 0) {
      prod.LoadQ(m0);
      for (int j = 0; j < n_tiles; ++j) prod.LoadKV(j, kt0);
    }
  } else {
    hopper::SetMaxNRegInc<C::kConsumerRegs>();
    Fp8Consumer<D, kOverlap, kSplit> c(p, prod, m0, bh, n_tiles, threadIdx.x - 128);
    if constexpr (kSplit) {
      c.kt0 = kt0;
      c.split = split;
    }
    c.Run();
    if constexpr (kSplit) {
      if (p.n_splits > 1) {
        Fp8EpiloguePartial<D>(c);
        return;
      }
    }
    c.Epilogue();
  }
}

// a27_fp8: the serial schedule.
template <int D>
__global__ void __launch_bounds__(Fp8Config<D>::kThreads, 1)
    AttnSm90Fp8Kernel(const __grid_constant__ CUtensorMap tm_q,
                      const __grid_constant__ CUtensorMap tm_k,
                      const __grid_constant__ CUtensorMap tm_vt, const Params p) {
  Fp8KernelBody<D, false>(tm_q, tm_k, tm_vt, p);
}

// a28_fp8_overlap: the intra-warpgroup overlap (Fp8Consumer::RunOverlap).
template <int D>
__global__ void __launch_bounds__(Fp8Config<D>::kThreads, 1)
    AttnSm90Fp8OverlapKernel(const __grid_constant__ CUtensorMap tm_q,
                             const __grid_constant__ CUtensorMap tm_k,
                             const __grid_constant__ CUtensorMap tm_vt, const Params p) {
  Fp8KernelBody<D, true>(tm_q, tm_k, tm_vt, p);
}

}  // namespace flashscope::kernels::attn_fp8
