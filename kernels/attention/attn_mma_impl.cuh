// The one templated flash-attention forward body behind rungs a05..a11. Every rung instantiates it
// with its own compile-time feature set (kFeature bits below); a feature that is off compiles out
// completely, so each rung's binary is exactly the code path its file describes.
//
// Work split: a block owns BM = 16·WARPS query rows of one (batch, head); each warp owns 16 rows
// (one m16 tile of mma.sync) and walks all key tiles of BN keys:
//   S = Q·Kᵀ (Q fragments kept in registers for the whole block, K by ldmatrix),
//   mask (only on tiles that cross Sk or the causal diagonal), online softmax, O += P·V (V by
//   ldmatrix.trans), then O / l staged through shared memory and written with 16-byte stores.
// Row statistics: each thread holds rows g and g+8 of its warp's tile (mma C layout, ptx.cuh);
// the row max is reduced over the 4 threads of a quad by shuffles; the row sum stays a per-thread
// partial until the end (rescaling is linear, so one quad reduction at the end suffices).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/attention/attn_mma_softmax.cuh"
#include "kernels/ptx.cuh"
#include "kernels/registry.h"

namespace flashscope::kernels::attn_mma {

// Tile shape of one instantiation. MinBlocks feeds __launch_bounds__ (register budget). MT is
// the number of m16 tiles a warp owns: with MT = 2 (FlashAttention-2's split) every K/V fragment
// loaded by ldmatrix feeds two MMAs, halving shared-memory reads per FLOP. kQSmemFrags re-reads
// the Q fragments from shared memory at each k16 step instead of holding them in registers
// (needed when MT·D is too large for the register file, e.g. MT = 2 at D = 128).
template <int kBM, int kBN, int kMinBlocks, int kMT = 1, bool kQSmemFrags = false>
struct Tile {
  static constexpr int BM = kBM;
  static constexpr int BN = kBN;
  static constexpr int MT = kMT;
  static constexpr bool Q_SMEM = kQSmemFrags;
  static constexpr int WARPS = kBM / (16 * kMT);
  static constexpr int THREADS = WARPS * 32;
  static constexpr int MIN_BLOCKS = kMinBlocks;
  static_assert(kBM % (16 * kMT) == 0 && kBN % 16 == 0, "tiles are whole m16 / k16 steps");
};

struct Params {
  const void* q;
  const void* k;
  const void* v;
  void* o;
  float* lse;  // may be null
  int seq_q;
  int seq_k;
  float scale;  // 1/sqrt(D), natural-log domain
  int causal;
};

// Shared-memory tile of rows × D 16-bit elements addressed by 16-byte chunks. Padded: each row is
// D+8 elements, so 8 ldmatrix row addresses fall in 8 different 16-byte bank groups. Swizzled:
// rows are exactly D elements and chunk c of row r lives at chunk c ^ (r % 8), which gives the
// same conflict freedom without the wasted 1/9 of shared memory.
template <int D, bool kSwz>
struct SmemTile {
  static constexpr int kChunks = D / 8;
  static constexpr int kStride = kSwz ? D : D + 8;
  __device__ __forceinline__ static int Offset(int row, int chunk) {
    return row * kStride + (kSwz ? (chunk ^ (row & 7)) : chunk) * 8;
  }
  // ldmatrix addressing without per-load index math: a lane's byte offset for (row, chunk c0 + 2k)
  // is Step(Offset(row, c0) * 2, k). Swizzled, chunk ^ (row & 7) = (2k) ^ (c0 ^ (row & 7)) and
  // row·D·2 has no bits below D·2 bytes, so the step is one XOR with an immediate; padded, an add.
  // Rows further on by a multiple of 8 keep row & 7, so they are a plain (immediate) byte offset.
  // This keeps one address register per operand and lane instead of one per k step (the k loops
  // are unrolled), which is what lets two m16 tiles per warp fit at D = 128 (docs/perf-notes.md).
  __device__ __forceinline__ static uint32_t Step(uint32_t lane_bytes, int k) {
    return kSwz ? lane_bytes ^ uint32_t(k * 32) : lane_bytes + uint32_t(k * 32);
  }
  static constexpr uint32_t kRowBytes = kStride * 2;  // 16-bit elements
};

template <typename T, int D, class TL, unsigned F>
struct Smem {
  static constexpr bool kRegS = (F & kSInRegs) != 0;
  static constexpr int kStages = (F & kCpAsync) ? 2 : 1;
  static constexpr int kStride = SmemTile<D, (F & kSwizzle) != 0>::kStride;
  static constexpr int kSStride = TL::BN + 4;  // fp32 S rows of the smem-softmax path
  static constexpr int kPStride = TL::BN + 8;  // 16-bit P rows of the smem-softmax path
  static constexpr size_t kQ = size_t(TL::BM) * kStride * sizeof(T);
  static constexpr size_t kKV = size_t(kStages) * TL::BN * kStride * sizeof(T);
  static constexpr size_t kS = kRegS ? 0 : size_t(TL::WARPS) * 16 * kSStride * sizeof(float);
  static constexpr size_t kP = kRegS ? 0 : size_t(TL::WARPS) * 16 * kPStride * sizeof(T);
  static constexpr size_t kStat = kRegS ? 0 : size_t(TL::WARPS) * 32 * sizeof(float);
  static constexpr size_t kBytes = kQ + 2 * kKV + kS + kP + kStat;
};

// Copies `rows` rows of D elements starting at global row `row0` into a shared tile; rows at or
// past `nvalid` become zeros (cp.async zero-fill or explicit zero stores).
template <typename T, int D, bool kSwz, bool kAsync, int kRows, int kThreads>
__device__ __forceinline__ void LoadTile(T* smem, const T* gmem, int row0, int nvalid, int tid) {
  using L = SmemTile<D, kSwz>;
  constexpr int kTotal = kRows * L::kChunks;
  static_assert(kTotal % kThreads == 0, "each thread copies the same number of chunks");
  constexpr int kPer = kTotal / kThreads;
  if constexpr (kAsync) {
#pragma unroll
    for (int i = 0; i < kPer; ++i) {
      const int c = tid + i * kThreads;
      const int r = c / L::kChunks, ch = c % L::kChunks;
      const bool ok = row0 + r < nvalid;
      const T* src = gmem + int64_t(ok ? row0 + r : 0) * D + ch * 8;
      ptx::CpAsync16(ptx::SmemAddr(smem + L::Offset(r, ch)), src, ok);
    }
  } else {
    uint4 v[kPer];  // all loads issued before the first store
#pragma unroll
    for (int i = 0; i < kPer; ++i) {
      const int c = tid + i * kThreads;
      const int r = c / L::kChunks, ch = c % L::kChunks;
      v[i] = row0 + r < nvalid
                 ? *reinterpret_cast<const uint4*>(gmem + int64_t(row0 + r) * D + ch * 8)
                 : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int i = 0; i < kPer; ++i) {
      const int c = tid + i * kThreads;
      *reinterpret_cast<uint4*>(smem + L::Offset(c / L::kChunks, c % L::kChunks)) = v[i];
    }
  }
}

// O += P·V for one n8 block of the head dim: fp32 accumulation (every rung), or mma.sync's fp16
// accumulator (kBugF16Accumulate). bf16 has no fp16 accumulator: the bf16 instances the dtype
// dispatch compiles for that bug keep fp32, and the bug kernel refuses bf16 problems.
template <typename T, unsigned F>
__device__ __forceinline__ void MmaPV(float (&o)[4], const uint32_t (&a)[4], uint32_t b0,
                                      uint32_t b1) {
  if constexpr ((F & kBugF16Accumulate) != 0 && std::is_same_v<T, __half>) {
    ptx::MmaM16N8K16F16Acc(o, a, b0, b1);
  } else {
    ptx::MmaM16N8K16<T>(o, a, b0, b1);
  }
}

// The A fragments of this warp's Q rows for every k16 step, kept in registers for the block.
template <int D, int MT, bool kSwz>
__device__ __forceinline__ void LoadQFragments(uint32_t (&qf)[MT][D / 16][4], uint32_t sq_base,
                                               uint32_t q_lane) {
  using L = SmemTile<D, kSwz>;
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
      ptx::LdMatrixX4(qf[mt][kk], sq_base + L::Step(q_lane, kk) + mt * 16 * L::kRowBytes);
    }
  }
}

// a05's tile step after S = Q·Kᵀ: softmax through this warp's shared-memory rows (S in fp32, P in
// 16 bits, row statistics), then O += P·V with P read back by ldmatrix.
template <typename T, int D, class TL, unsigned F>
__device__ __forceinline__ void SoftmaxPVViaSmem(SoftmaxState<T, D, TL::BN, F>& st,
                                                 const float (&s)[TL::BN / 8][4], float scale,
                                                 unsigned char* smem_raw, int warp, int lane,
                                                 uint32_t v_lane, const T* sVb) {
  constexpr int BN = TL::BN;
  using L = SmemTile<D, (F & kSwizzle) != 0>;
  using S = Smem<T, D, TL, F>;
  float* sS = reinterpret_cast<float*>(smem_raw + S::kQ + 2 * S::kKV) + warp * 16 * S::kSStride;
  T* sP = reinterpret_cast<T*>(smem_raw + S::kQ + 2 * S::kKV + S::kS) + warp * 16 * S::kPStride;
  float* sStat =
      reinterpret_cast<float*>(smem_raw + S::kQ + 2 * S::kKV + S::kS + S::kP) + warp * 32;
  st.SoftmaxViaSmem(s, scale, sS, sP, sStat);
#pragma unroll
  for (int kc = 0; kc < BN / 16; ++kc) {
    uint32_t a[4];
    ptx::LdMatrixX4(a, ptx::SmemAddr(sP + (lane % 16) * S::kPStride + (kc * 2 + lane / 16) * 8));
#pragma unroll
    for (int dp = 0; dp < D / 16; ++dp) {
      uint32_t b[4];
      ptx::LdMatrixX4Trans(b, ptx::SmemAddr(sVb) + L::Step(v_lane, dp) + kc * 16 * L::kRowBytes);
      ptx::MmaM16N8K16<T>(st.o[2 * dp], a, b[0], b[1]);
      ptx::MmaM16N8K16<T>(st.o[2 * dp + 1], a, b[2], b[3]);
    }
  }
}

// The kernel is split only where the split leaves the PTX of every instantiation byte-identical:
// ptxas allocates differently even for PTX that differs only in virtual register numbering, and
// extracting the Q·Kᵀ step, the in-register softmax with P·V, the key-tile staging, the key-tile
// count or the epilogue into functions did change the PTX of some rungs (MT = 2, cp.async).
template <typename T, int D, class TL, unsigned F>
__global__ void __launch_bounds__(TL::THREADS, TL::MIN_BLOCKS) AttnMmaKernel(Params p) {
  constexpr int BM = TL::BM, BN = TL::BN, THREADS = TL::THREADS, MT = TL::MT;
  constexpr bool kRegS = (F & kSInRegs) != 0;
  constexpr bool kAsync = (F & kCpAsync) != 0;
  constexpr bool kSwz = (F & kSwizzle) != 0;
  constexpr bool kQSmem = TL::Q_SMEM;
  // fp16 accumulation exists for fp16 inputs only; the bf16 instance of such a variant is plain
  // a10 (its entry refuses bf16 problems, so it never runs).
  constexpr bool kF16S = (F & kTestF16AccumS) != 0 && std::is_same_v<T, __half>;
  using L = SmemTile<D, kSwz>;
  using S = Smem<T, D, TL, F>;
  static_assert(D % 16 == 0, "head dim must be a multiple of 16");
  static_assert(kRegS || MT == 1, "the shared-memory softmax (a05) handles one m16 tile per warp");

  extern __shared__ __align__(128) unsigned char smem_raw[];
  T* sQ = reinterpret_cast<T*>(smem_raw);
  T* sK = reinterpret_cast<T*>(smem_raw + S::kQ);
  T* sV = reinterpret_cast<T*>(smem_raw + S::kQ + S::kKV);

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int g = lane / 4, t = lane % 4;
  const int wrow = warp * 16 * MT;  // first of this warp's 16·MT rows within the block
  const int m_block = ((F & kCausalSkip) && p.causal) ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
  const int m0 = m_block * BM;
  const int64_t bh = blockIdx.y;
  const T* gQ = static_cast<const T*>(p.q) + bh * p.seq_q * D;
  const T* gK = static_cast<const T*>(p.k) + bh * p.seq_k * D;
  const T* gV = static_cast<const T*>(p.v) + bh * p.seq_k * D;
  // Query i sees keys j <= i + diag (kBugDiagonal: the offset one short, the diagonal masked).
  const int diag = p.seq_k - p.seq_q - ((F & kBugDiagonal) ? 1 : 0);

  if constexpr ((F & kTestSkipUnlessPoisoned) != 0) {
    // Every thread reads the same element before any thread writes: the block leaves as one.
    if (m0 < p.seq_q) {
      const auto* first = reinterpret_cast<const volatile uint16_t*>(static_cast<const T*>(p.o) +
                                                                     (bh * p.seq_q + m0) * D);
      if (*first != 0xFFFFu) return;
    }
  }

  int n_end = p.seq_k;
  if ((F & kCausalSkip) && p.causal) n_end = min(p.seq_k, m0 + BM + diag);
  // kBugKeyTileFloor: rounded down, the last partial key tile is never visited.
  const int n_tiles = n_end > 0 ? ((F & kBugKeyTileFloor) ? n_end / BN : (n_end + BN - 1) / BN) : 0;

  SoftmaxState<T, D, BN, F> st[MT];
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) st[mt].Init();
  uint32_t qf[kQSmem ? 1 : MT][kQSmem ? 1 : D / 16][4];

  LoadTile<T, D, kSwz, kAsync, BM, THREADS>(sQ, gQ, m0, p.seq_q, tid);
  if constexpr (kAsync) {
    ptx::CpAsyncCommit();
    if (n_tiles > 0) {
      LoadTile<T, D, kSwz, true, BN, THREADS>(sK, gK, 0, p.seq_k, tid);
      LoadTile<T, D, kSwz, true, BN, THREADS>(sV, gV, 0, p.seq_k, tid);
    }
    ptx::CpAsyncCommit();
    ptx::CpAsyncWait<1>();  // Q has landed; tile 0 may still be in flight
  }
  __syncthreads();
  // Per-lane ldmatrix byte offsets relative to their tile (see SmemTile::Step: the XOR needs the
  // tile-relative offset, the tile base is added after): Q rows of this warp, K rows (B operand of
  // Q·Kᵀ: keys n0 + 8·(lane/16) + lane%8, chunk parity (lane/8)%2), V rows (ldmatrix.trans of P·V:
  // keys 8·((lane/8)%2) + lane%8, chunk parity lane/16).
  const uint32_t sq_base = ptx::SmemAddr(sQ);
  const uint32_t q_lane = uint32_t(L::Offset(wrow + lane % 16, lane / 16)) * 2;
  const uint32_t k_lane = uint32_t(L::Offset((lane / 16) * 8 + lane % 8, (lane / 8) % 2)) * 2;
  const uint32_t v_lane = uint32_t(L::Offset(((lane / 8) % 2) * 8 + lane % 8, lane / 16)) * 2;
  if constexpr (!kQSmem) LoadQFragments<D, MT, kSwz>(qf, sq_base, q_lane);

  for (int it = 0; it < n_tiles; ++it) {
    const int n0 = it * BN;
    T* sKb = sK;
    T* sVb = sV;
    if constexpr (kAsync) {
      ptx::CpAsyncWait<0>();
      __syncthreads();  // tile `it` visible to all; everyone is done with the other buffer
      if (it + 1 < n_tiles) {
        const int nb = (it + 1) & 1;
        LoadTile<T, D, kSwz, true, BN, THREADS>(sK + nb * BN * L::kStride, gK, n0 + BN, p.seq_k,
                                                tid);
        LoadTile<T, D, kSwz, true, BN, THREADS>(sV + nb * BN * L::kStride, gV, n0 + BN, p.seq_k,
                                                tid);
        ptx::CpAsyncCommit();
      }
      sKb = sK + (it & 1) * BN * L::kStride;
      sVb = sV + (it & 1) * BN * L::kStride;
    } else {
      __syncthreads();  // previous tile fully consumed
      LoadTile<T, D, kSwz, false, BN, THREADS>(sK, gK, n0, p.seq_k, tid);
      LoadTile<T, D, kSwz, false, BN, THREADS>(sV, gV, n0, p.seq_k, tid);
      __syncthreads();
    }

    // S = Q·Kᵀ for this warp's 16·MT rows × BN keys; each K fragment feeds MT MMAs.
    float s[MT][BN / 8][4];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int j = 0; j < BN / 8; ++j) s[mt][j][0] = s[mt][j][1] = s[mt][j][2] = s[mt][j][3] = 0.f;
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
      uint32_t qs[MT][4];
      if constexpr (kQSmem) {
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          ptx::LdMatrixX4(qs[mt], sq_base + L::Step(q_lane, kk) + mt * 16 * L::kRowBytes);
        }
      }
      const uint32_t k_addr = ptx::SmemAddr(sKb) + L::Step(k_lane, kk);
#pragma unroll
      for (int np = 0; np < BN / 16; ++np) {
        uint32_t b[4];
        ptx::LdMatrixX4(b, k_addr + np * 16 * L::kRowBytes);
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          const uint32_t(&a)[4] = kQSmem ? qs[mt] : qf[kQSmem ? 0 : mt][kQSmem ? 0 : kk];
          if constexpr (kF16S) {  // kTestF16AccumS: the same products summed in fp16
            ptx::MmaM16N8K16F16Acc(s[mt][2 * np], a, b[0], b[1]);
            ptx::MmaM16N8K16F16Acc(s[mt][2 * np + 1], a, b[2], b[3]);
          } else {
            ptx::MmaM16N8K16<T>(s[mt][2 * np], a, b[0], b[1]);
            ptx::MmaM16N8K16<T>(s[mt][2 * np + 1], a, b[2], b[3]);
          }
        }
      }
    }

    // Mask keys past Sk and past the causal diagonal; only tiles that cross either pay for it.
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
      MaskScores<BN>(s[mt], n0, m0 + wrow + mt * 16, p.seq_k, p.causal, diag, g, t);
    }

    if constexpr (kRegS) {
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) st[mt].SoftmaxInRegs(s[mt], p.scale);
        // O += P·V, P re-packed from the S accumulators as the A operand (no shared memory).
#pragma unroll
      for (int kc = 0; kc < BN / 16; ++kc) {
        uint32_t a[MT][4];
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          a[mt][0] = st[mt].PackP(s[mt][2 * kc][0], s[mt][2 * kc][1]);
          a[mt][1] = st[mt].PackP(s[mt][2 * kc][2], s[mt][2 * kc][3]);
          a[mt][2] = st[mt].PackP(s[mt][2 * kc + 1][0], s[mt][2 * kc + 1][1]);
          a[mt][3] = st[mt].PackP(s[mt][2 * kc + 1][2], s[mt][2 * kc + 1][3]);
        }
#pragma unroll
        for (int dp = 0; dp < D / 16; ++dp) {
          // kBugVLaneMap: the second quarter of the head dim reads V through K's lane map (keys
          // (lane/16)·8 + lane%8, chunk parity (lane/8)%2), as if copied from the Q·Kᵀ loads.
          const bool k_lanes = (F & kBugVLaneMap) != 0 && dp * 4 / (D / 16) == 1;
          uint32_t b[4];
          ptx::LdMatrixX4Trans(b, ptx::SmemAddr(sVb) + L::Step(k_lanes ? k_lane : v_lane, dp) +
                                      kc * 16 * L::kRowBytes);
#pragma unroll
          for (int mt = 0; mt < MT; ++mt) {
            MmaPV<T, F>(st[mt].o[2 * dp], a[mt], b[0], b[1]);
            MmaPV<T, F>(st[mt].o[2 * dp + 1], a[mt], b[2], b[3]);
          }
        }
      }
    } else {
      SoftmaxPVViaSmem<T, D, TL, F>(st[0], s[0], p.scale, smem_raw, warp, lane, v_lane, sVb);
    }
  }
  if constexpr (kAsync) ptx::CpAsyncWait<0>();  // nothing may land in sQ after the epilogue
  // With Q fragments read from smem, other warps may still be reading their Q rows only if this
  // warp's rows overlap theirs: they do not (each warp stages O into its own rows), so a warp
  // barrier suffices below.

  // Epilogue: O / l once, staged in this warp's own rows of sQ, then 16-byte coalesced stores.
  float* sStat =
      kRegS ? nullptr
            : reinterpret_cast<float*>(smem_raw + S::kQ + 2 * S::kKV + S::kS + S::kP) + warp * 32;
  T* gO = static_cast<T*>(p.o) + bh * p.seq_q * D;
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
    float lse[2];
    st[mt].Finalize(sStat, lse);
    const int trow = wrow + mt * 16;  // tile's first row within the block
    __syncwarp();
#pragma unroll
    for (int dt = 0; dt < D / 8; ++dt) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        *reinterpret_cast<uint32_t*>(sQ + L::Offset(trow + g + 8 * r, dt) + 2 * t) =
            ptx::PackFloat2<T>(st[mt].o[dt][2 * r], st[mt].o[dt][2 * r + 1]);
      }
    }
    __syncwarp();
#pragma unroll
    for (int i = lane; i < 16 * L::kChunks; i += 32) {
      const int r = i / L::kChunks, ch = i % L::kChunks;
      const int grow = m0 + trow + r;
      if (grow < p.seq_q) {
        *reinterpret_cast<uint4*>(gO + int64_t(grow) * D + ch * 8) =
            *reinterpret_cast<const uint4*>(sQ + L::Offset(trow + r, ch));
      }
    }
    if (p.lse != nullptr && t == 0) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int grow = m0 + trow + g + 8 * r;
        if (grow < p.seq_q) p.lse[bh * p.seq_q + grow] = lse[r];
      }
    }
  }
}

}  // namespace flashscope::kernels::attn_mma
