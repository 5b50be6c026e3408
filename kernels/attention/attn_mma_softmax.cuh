// Online-softmax state of one warp's 16 query rows for the mma.sync attention core
// (attn_mma_impl.cuh): the fp32 O accumulators, the running max m and the running sum l, and the
// softmax variants the rungs switch between at compile time.
//   two-step (a05, a06): p = exp(s·scale - tile_max), then corrected by exp(tile_max - new_max)
//                        (the post-multiplication the seeds' v9 removed);
//   direct (a07+):       new_max first, p = 2^(s·scale·log2e - new_max) in one FMA + one EX2;
//   conditional (a11):   the max (and O) are updated only when a row's max grows by more than
//                        log2(256); the stale max keeps p <= 256, exact after the final 1/l;
//   polynomial (a11):    every fourth n8 column block takes its exponentials on the FMA pipe.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "kernels/ptx.cuh"

namespace flashscope::kernels::attn_mma {

// Feature bits; a rung is the set of bits it turns on.
enum : unsigned {
  kSInRegs = 1u << 0,        // a06: S and P stay in registers (else S and P go through smem)
  kDirectRescale = 1u << 1,  // a07: new max before the exponential, exp2 with log2e folded in
  kCpAsync = 1u << 2,        // a08: cp.async K/V pipeline, double buffered
  kSwizzle = 1u << 3,        // a09: XOR-swizzled 16-byte chunks instead of row padding
  kCausalSkip = 1u << 4,     // a10: key tiles past the causal diagonal skipped, heavy blocks first
  kCondRescale = 1u << 5,    // a11: rescale only when the max grows by more than log2(256)
  kPolyExp = 1u << 6,        // a11: a quarter of the exponentials by polynomial on the FMA pipe
  // Test only: the cheats of kernels/testing/cheat_kernels.cu that flashscope's trust checks must
  // catch (docs/trust.md). No rung sets them; with them off they compile out entirely.
  kTestSkipUnlessPoisoned = 1u << 20,  // a block whose first output element is not the poison
                                       // pattern returns at once (does work only when checked)
  kTestF16AccumS = 1u << 21,           // S = Q·Kᵀ accumulated in fp16 registers (fp16 inputs)
};

// Planted mistakes (kernels/demo/bug_kernels.cu, the demo suite), never set by a rung: each
// plants one bug kernel authors make into this real code path, so that a bug kernel's error
// heatmaps are the mistake's own, not those of an output corrupted afterwards. Off, each compiles
// out like any feature bit (the rungs' SASS does not change).
enum : unsigned {
  kBugGridFloor = 1u << 24,     // grid of floor(Sq/BM) blocks: the last partial query tile has none
  kBugKeyTileFloor = 1u << 25,  // floor(n_end/BN) key tiles: the last partial key tile is skipped
  kBugDiagonal = 1u << 26,      // causal offset Sk - Sq - 1: every query loses its diagonal key
  kBugStaleRescale = 1u << 27,  // warp 1 never rescales O when its running max grows
  kBugVLaneMap = 1u << 28,      // V's ldmatrix.trans takes K's lane map in D's second quarter
  kBugF16Accumulate = 1u << 29,  // O += P·V in mma.sync's fp16 accumulator
};

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;
constexpr float kRescaleTau = 8.0f;  // log2(256), FlashAttention-4's threshold

__device__ __forceinline__ float QuadMax(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ __forceinline__ float QuadSum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}
// A row max that may still be -inf (the row has seen no key yet) is used as 0 in exponents, so
// -inf - (-inf) never makes a NaN; every exponent of such a row is exp(-inf) = 0.
__device__ __forceinline__ float Finite(float m) { return m == -INFINITY ? 0.f : m; }

// Sets to -inf the scores of one warp's 16 query rows (first row `row_lo`, C layout: this thread
// holds rows g and g+8, columns 2t, 2t+1 of each n8 block) x BN keys (first key `n0`) that lie
// past seq_k or, when causal, past the bottom-right aligned diagonal (query i sees keys
// j <= i + diag, diag = seq_k - seq_q). Only tiles that cross either edge pay for the test.
template <int BN>
__device__ __forceinline__ void MaskScores(float (&s)[BN / 8][4], int n0, int row_lo, int seq_k,
                                           int causal, int diag, int g, int t) {
  if (n0 + BN > seq_k || (causal && n0 + BN - 1 > row_lo + diag)) {
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int col = n0 + j * 8 + 2 * t + (e & 1);
        const int row = row_lo + g + (e >= 2 ? 8 : 0);
        if (col >= seq_k || (causal && col > row + diag)) s[j][e] = -INFINITY;
      }
    }
  }
}

template <typename T, int D, int BN, unsigned F>
struct SoftmaxState {
  static constexpr bool kDirect = (F & kDirectRescale) != 0;
  static constexpr bool kCond = (F & kCondRescale) != 0;
  static constexpr bool kPoly = (F & kPolyExp) != 0;
  static_assert(!kCond || kDirect, "conditional rescaling builds on the direct (log2) softmax");
  static_assert(!kPoly || kDirect, "the polynomial exp2 builds on the direct (log2) softmax");

  float o[D / 8][4];
  // In-register path: index r = rows g and g+8 of the warp tile. Smem path: m[0], l[0] belong
  // to row lane/2. m is in log2 units (scaled by scale·log2e) when kDirect, else natural·scale.
  float m[2];
  float l[2];  // in-register path: this thread's partial sum (quad-reduced in Finalize)

  __device__ __forceinline__ void Init() {
#pragma unroll
    for (int d = 0; d < D / 8; ++d) o[d][0] = o[d][1] = o[d][2] = o[d][3] = 0.f;
    m[0] = m[1] = -INFINITY;
    l[0] = l[1] = 0.f;
  }

  __device__ __forceinline__ void RescaleO(int r, float alpha) {
#pragma unroll
    for (int d = 0; d < D / 8; ++d) {
      o[d][2 * r] *= alpha;
      o[d][2 * r + 1] *= alpha;
    }
  }

  __device__ __forceinline__ uint32_t PackP(float lo, float hi) const {
    return ptx::PackFloat2<T>(lo, hi);
  }

  // Row maxima of the raw scores s (C layout), reduced over the quad: rows g and g+8.
  __device__ __forceinline__ static void RowMax(const float (&s)[BN / 8][4], float (&mx)[2]) {
    mx[0] = mx[1] = -INFINITY;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      mx[0] = fmaxf(mx[0], fmaxf(s[j][0], s[j][1]));
      mx[1] = fmaxf(mx[1], fmaxf(s[j][2], s[j][3]));
    }
    mx[0] = QuadMax(mx[0]);
    mx[1] = QuadMax(mx[1]);
  }

  // Direct softmax, step 1: takes the tile's row maxima `mx` (raw scores) into the running max
  // and rescales l. Returns whether O must be rescaled by alpha[r] for row r; false when
  // conditional rescaling kept the stale max (then alpha is not set). O is left alone, so a
  // caller whose O is still being written by an asynchronous MMA can rescale it later.
  __device__ __forceinline__ bool UpdateMax(const float (&mx)[2], float scale, float (&alpha)[2]) {
    static_assert(kDirect, "UpdateMax is the direct (log2) softmax");
    const float sl2 = scale * kLog2e;
    bool update = true;
    if constexpr (kCond) {
      // Warp-uniform decision (no divergence): rescale when any row of the warp grew > tau.
      const bool need = mx[0] * sl2 > m[0] + kRescaleTau || mx[1] * sl2 > m[1] + kRescaleTau;
      update = __any_sync(0xffffffffu, need);
    }
    if (update) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const float m_new = fmaxf(m[r], mx[r] * sl2);
        alpha[r] = ptx::Exp2(m[r] - Finite(m_new));
        m[r] = m_new;
        l[r] *= alpha[r];
      }
    }
    return update;
  }

  // Direct softmax, step 2: s becomes P = 2^(s·scale·log2e - m) in place, summed into l.
  __device__ __forceinline__ void ExpAndSum(float (&s)[BN / 8][4], float scale) {
    const float sl2 = scale * kLog2e;
    const float mu[2] = {Finite(m[0]), Finite(m[1])};
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float x = fmaf(s[j][e], sl2, -mu[e >> 1]);
        const float pe = (kPoly && j % 4 == 3) ? ptx::Exp2Poly(x) : ptx::Exp2(x);
        s[j][e] = pe;
        l[e >> 1] += pe;
      }
    }
  }

  // Turns the masked raw scores s (C layout) into P in place and updates m, l, O.
  __device__ __forceinline__ void SoftmaxInRegs(float (&s)[BN / 8][4], float scale) {
    float mx[2];
    RowMax(s, mx);
    if constexpr (kDirect) {
      float alpha[2];
      // kBugStaleRescale: warp 1 leaves O scaled to the max it had (l moves on), so its rows
      // overweight every key tile seen before their max last grew.
      const bool stale = (F & kBugStaleRescale) != 0 && threadIdx.x / 32 == 1;
      if (UpdateMax(mx, scale, alpha) && !stale) {
        RescaleO(0, alpha[0]);
        RescaleO(1, alpha[1]);
      }
      ExpAndSum(s, scale);
    } else {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const float mt = mx[r] * scale;
        const float mtu = Finite(mt);
        const float m_new = fmaxf(m[r], mt);
        const float alpha = __expf(m[r] - Finite(m_new));
        const float beta = __expf(mt - Finite(m_new));
        float rowsum = 0.f;
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) {
#pragma unroll
          for (int e = 2 * r; e < 2 * r + 2; ++e) {
            const float pe = __expf(fmaf(s[j][e], scale, -mtu));
            rowsum += pe;
            s[j][e] = pe * beta;  // the post-multiplication a07 removes
          }
        }
        l[r] = l[r] * alpha + rowsum * beta;
        m[r] = m_new;
        RescaleO(r, alpha);
      }
    }
  }

  // a05: S goes to shared memory; two lanes per row compute the softmax there and write P (16-bit)
  // for ldmatrix; the per-row O correction comes back through sStat.
  __device__ __forceinline__ void SoftmaxViaSmem(const float (&s)[BN / 8][4], float scale,
                                                 float* sS, T* sP, float* sStat) {
    static_assert(!kDirect, "the shared-memory softmax is the two-step a05 variant only");
    constexpr int SS = BN + 4, PS = BN + 8;
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      *reinterpret_cast<float2*>(sS + g * SS + j * 8 + 2 * t) = make_float2(s[j][0], s[j][1]);
      *reinterpret_cast<float2*>(sS + (g + 8) * SS + j * 8 + 2 * t) = make_float2(s[j][2], s[j][3]);
    }
    __syncwarp();
    const int r = lane / 2, h = lane % 2;
    const float* row = sS + r * SS + h * (BN / 2);
    float mx = -INFINITY;
#pragma unroll
    for (int c = 0; c < BN / 2; ++c) mx = fmaxf(mx, row[c]);
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
    const float mt = mx * scale;
    const float mtu = Finite(mt);
    const float m_new = fmaxf(m[0], mt);
    const float alpha = __expf(m[0] - Finite(m_new));
    const float beta = __expf(mt - Finite(m_new));
    T* prow = sP + r * PS + h * (BN / 2);
    float sum = 0.f;
#pragma unroll
    for (int c = 0; c < BN / 2; c += 2) {
      const float p0 = __expf(fmaf(row[c], scale, -mtu));
      const float p1 = __expf(fmaf(row[c + 1], scale, -mtu));
      sum += p0 + p1;
      *reinterpret_cast<uint32_t*>(prow + c) = ptx::PackFloat2<T>(p0 * beta, p1 * beta);
    }
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    l[0] = l[0] * alpha + sum * beta;
    m[0] = m_new;
    if (h == 0) sStat[r] = alpha;
    __syncwarp();  // P and the alphas are visible to the whole warp
    RescaleO(0, sStat[g]);
    RescaleO(1, sStat[g + 8]);
  }

  // O /= l (once, at the end); lse[r] for rows g, g+8 in natural log (-inf for an empty row).
  __device__ __forceinline__ void Finalize(float* sStat, float (&lse)[2]) {
    if (sStat == nullptr) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const float lt = QuadSum(l[r]);
        RescaleO(r, lt > 0.f ? 1.f / lt : 0.f);
        if constexpr (kDirect) {
          lse[r] = lt > 0.f ? (m[r] + log2f(lt)) * kLn2 : -INFINITY;
        } else {
          lse[r] = lt > 0.f ? m[r] + logf(lt) : -INFINITY;
        }
      }
    } else {
      const int lane = threadIdx.x % 32, g = lane / 4;
      __syncwarp();  // the last tile's reads of sStat are done
      if (lane % 2 == 0) {
        sStat[lane / 2] = l[0] > 0.f ? 1.f / l[0] : 0.f;
        sStat[16 + lane / 2] = l[0] > 0.f ? m[0] + logf(l[0]) : -INFINITY;
      }
      __syncwarp();
      RescaleO(0, sStat[g]);
      RescaleO(1, sStat[g + 8]);
      lse[0] = sStat[16 + g];
      lse[1] = sStat[16 + g + 8];
    }
  }
};

}  // namespace flashscope::kernels::attn_mma
