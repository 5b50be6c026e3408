#include "verify/input_generators.h"

#include <cuda_runtime.h>

#include <cmath>

#include "common/element_convert.cuh"
#include "common/split_mix.h"
#include "verify/element_dispatch.cuh"

namespace flashscope::verify {
namespace {

// Streams of the hash: one per tensor and one per shared pattern parameter, so that e.g. the
// frequencies of a head do not correlate with its Q noise.
enum Stream : uint64_t {
  kQ = 1,
  kK = 2,
  kV = 3,
  kA = 4,
  kB = 5,
  kFrequency = 20,
  kDirection = 30,
  kBlockDirection = 40,
  kHeadOffset = 50,
};

constexpr float kLogitGap = 10.f;
constexpr float kPi = 3.14159265358979f;

__device__ __forceinline__ uint64_t Hash(uint64_t seed, uint64_t stream, uint64_t index) {
  return SplitMix64(SplitMix64(seed ^ SplitMix64(stream)) + index * 0x9E3779B97F4A7C15ull);
}

// In (0, 1): 24 random bits, centred in their interval so that log() never sees 0.
__device__ __forceinline__ float Uniform01(uint64_t h) {
  return (static_cast<float>(h >> 40) + 0.5f) * (1.0f / 16777216.0f);
}

__device__ __forceinline__ float Normal(uint64_t seed, uint64_t stream, uint64_t index) {
  const uint64_t h = Hash(seed, stream, index);
  const float u1 = Uniform01(h);
  const float u2 = Uniform01(h << 24);  // the next 24 bits
  return sqrtf(-2.f * logf(u1)) * cospif(2.f * u2);
}

__device__ __forceinline__ float Uniform(uint64_t seed, uint64_t stream, uint64_t index) {
  return 2.f * Uniform01(Hash(seed, stream, index)) - 1.f;
}

struct AttnGen {
  int64_t heads_total, seq, d;  // seq: rows of this tensor
  int64_t pos_offset;           // Sk - Sq for Q, 0 for K and V
  int64_t seq_k;
  InputKind kind;
  uint64_t seed, stream;
};

// One element of Q (stream kQ) or K (kK). V uses plain normals.
__device__ float AttentionElement(const AttnGen& g, int64_t idx) {
  const int64_t dd = idx % g.d;
  const int64_t s = (idx / g.d) % g.seq;
  const int64_t bh = idx / (g.d * g.seq);
  const int64_t pos = s + g.pos_offset;
  const bool is_q = g.stream == kQ;
  const float dim = static_cast<float>(g.d);
  switch (g.kind) {
    case InputKind::kNormal:
      return Normal(g.seed, g.stream, idx);
    case InputKind::kUniform:
      return Uniform(g.seed, g.stream, idx);
    case InputKind::kLocalBand:
    case InputKind::kStrided: {
      // Pairs of dims (cos, sin) of the position at frequency w_f: Q·K = A²·Σ cos(w_f·Δpos).
      const int64_t pairs = g.d / 2, f = dd / 2;
      const float noise = 0.1f * Normal(g.seed, g.stream, idx);
      if (f >= pairs) return noise;  // odd head_dim: the last dim is noise only
      float w, peak_gap;
      if (g.kind == InputKind::kLocalBand) {
        // Stratified jitter keeps the sum aperiodic; the main lobe spans |Δpos| < band.
        const float u = Uniform01(Hash(g.seed, kFrequency, bh * pairs + f));
        w = (kPi / kLocalBandWidth) * (static_cast<float>(f) + u) / static_cast<float>(pairs);
        peak_gap = static_cast<float>(pairs);
      } else {
        const int64_t h = 1 + f % (kStride - 1);  // harmonics 1..s-1: Σ = s-1 on the comb, -1 off
        w = 2.f * kPi * static_cast<float>(h) / kStride;
        peak_gap = static_cast<float>(pairs) * kStride / (kStride - 1);
      }
      const float amp = sqrtf(kLogitGap * sqrtf(dim) / peak_gap);
      // Reduce the phase in double: positions reach 1e5 and fp32 would lose the fraction.
      const double phase =
          fmod(static_cast<double>(w) * static_cast<double>(pos), 6.283185307179586);
      const float x = static_cast<float>(phase);
      return amp * (dd % 2 == 0 ? cosf(x) : sinf(x)) + noise;
    }
    case InputKind::kGlobalAnchor: {
      const float sign = (Hash(g.seed, kDirection, bh * g.d + dd) & 1) ? 1.f : -1.f;
      const float amp = sqrtf(kLogitGap * sqrtf(dim)) * sign / sqrtf(dim);
      if (is_q) return amp + 0.5f * Normal(g.seed, g.stream, idx);
      if (s < kGlobalAnchors) return amp + 0.5f * Normal(g.seed, g.stream, idx);
      return Normal(g.seed, g.stream, idx);
    }
    case InputKind::kBlock: {
      const int64_t blocks = (g.seq_k + kBlockSize - 1) / kBlockSize + 1;
      const int64_t blk = pos < 0 ? 0 : pos / kBlockSize;
      const float r = Normal(g.seed, kBlockDirection, (bh * blocks + blk) * g.d + dd) / sqrtf(dim);
      const float amp = sqrtf(kLogitGap * sqrtf(dim));
      return amp * r + 0.3f * Normal(g.seed, g.stream, idx);
    }
    case InputKind::kLargeLogits: {
      const float u = Uniform01(Hash(g.seed, kHeadOffset, bh));
      const float offset = static_cast<float>(kLargeLogitMin) *
                           powf(static_cast<float>(kLargeLogitMax / kLargeLogitMin), u);
      const float c = sqrtf(offset * sqrtf(dim));  // (c·u)·(c·u)/sqrt(D) = offset
      const float sign = (Hash(g.seed, kDirection, bh * g.d + dd) & 1) ? 1.f : -1.f;
      const float noise = (is_q ? 1.f : 0.3f) * Normal(g.seed, g.stream, idx);
      return c * sign / sqrtf(dim) + noise;
    }
  }
  return 0.f;
}

template <typename T>
__global__ void AttentionGenKernel(AttnGen g, int64_t n, T* out) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float x = g.stream == kV ? Normal(g.seed, kV, i) : AttentionElement(g, i);
    out[i] = FromFloat<T>(x);
  }
}

struct GemmGen {
  int64_t rows, cols;  // of this matrix
  int64_t m, k;        // of the problem, for A's patterns
  InputKind kind;
  uint64_t seed, stream;
};

__device__ float GemmElement(const GemmGen& g, int64_t idx) {
  const float z = Normal(g.seed, g.stream, idx);
  if (g.kind == InputKind::kUniform) return Uniform(g.seed, g.stream, idx);
  if (g.kind == InputKind::kLargeLogits) return 30.f * z;
  if (g.stream == kB || g.kind == InputKind::kNormal) return z;
  const int64_t r = idx / g.cols, c = idx % g.cols;
  // Column c of A mapped onto the row axis, so that the band/blocks follow the diagonal of M×K.
  const int64_t diag = g.k > 0 ? c * g.m / g.k : 0;
  switch (g.kind) {
    case InputKind::kLocalBand:
      return (r - diag <= kLocalBandWidth && diag - r <= kLocalBandWidth) ? z : 0.f;
    case InputKind::kStrided:
      return c % kStride == 0 ? z : 0.f;
    case InputKind::kGlobalAnchor:
      return c < kGlobalAnchors ? 10.f * z : z;
    case InputKind::kBlock:
      return r / kBlockSize == diag / kBlockSize ? z : 0.f;
    default:
      return z;
  }
}

template <typename T>
__global__ void GemmGenKernel(GemmGen g, int64_t n, T* out) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    out[i] = FromFloat<T>(GemmElement(g, i));
  }
}

unsigned GridFor(int64_t n) {
  const int64_t blocks = (n + 255) / 256;
  return static_cast<unsigned>(blocks < (1 << 20) ? blocks : (1 << 20));
}

template <typename T>
cudaError_t LaunchAttention(const AttentionProblem& p, InputKind kind, uint64_t seed, void* q,
                            void* k, void* v, cudaStream_t stream) {
  const int64_t heads = p.batch * p.heads;
  AttnGen g{heads, p.seq_q, p.head_dim, p.seq_k - p.seq_q, p.seq_k, kind, seed, kQ};
  AttentionGenKernel<T>
      <<<GridFor(p.QElements()), 256, 0, stream>>>(g, p.QElements(), static_cast<T*>(q));
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  g.seq = p.seq_k;
  g.pos_offset = 0;
  g.stream = kK;
  AttentionGenKernel<T>
      <<<GridFor(p.KElements()), 256, 0, stream>>>(g, p.KElements(), static_cast<T*>(k));
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  g.stream = kV;
  AttentionGenKernel<T>
      <<<GridFor(p.KElements()), 256, 0, stream>>>(g, p.KElements(), static_cast<T*>(v));
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchGemm(const GemmProblem& p, InputKind kind, uint64_t seed, void* a, void* b,
                       cudaStream_t stream) {
  GemmGen ga{p.m, p.k, p.m, p.k, kind, seed, kA};
  GemmGenKernel<T><<<GridFor(p.m * p.k), 256, 0, stream>>>(ga, p.m * p.k, static_cast<T*>(a));
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  GemmGen gb{p.k, p.n, p.m, p.k, kind, seed, kB};
  GemmGenKernel<T><<<GridFor(p.k * p.n), 256, 0, stream>>>(gb, p.k * p.n, static_cast<T*>(b));
  return cudaGetLastError();
}

}  // namespace

cudaError_t GenerateAttentionInputs(const AttentionProblem& p, InputKind kind, uint64_t seed,
                                    void* q, void* k, void* v, cudaStream_t stream) {
  if (p.batch <= 0 || p.heads <= 0 || p.seq_q <= 0 || p.seq_k <= 0 || p.head_dim <= 0) {
    return cudaErrorInvalidValue;
  }
  return WithElementType(p.dtype, [&](auto element) {
    return LaunchAttention<decltype(element)>(p, kind, seed, q, k, v, stream);
  });
}

cudaError_t GenerateGemmInputs(const GemmProblem& p, InputKind kind, uint64_t seed, void* a,
                               void* b, cudaStream_t stream) {
  if (p.m <= 0 || p.n <= 0 || p.k <= 0) return cudaErrorInvalidValue;
  return WithElementType(p.dtype, [&](auto element) {
    return LaunchGemm<decltype(element)>(p, kind, seed, a, b, stream);
  });
}

}  // namespace flashscope::verify
