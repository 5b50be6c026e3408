// a27_fp8 — intent: issue 27's FP8 rung. Q, K, V in E4M3 (OCP FP8 E4M3FN, unscaled), fp32
// accumulation of both GEMMs and of the softmax, O written in BF16 and the log-sum-exp in fp32, at
// head dims 64, 128 and 256. wgmma on E4M3 operands (m64nNk32) issues twice the bf16 rate (about
// 1,980 dense TFLOP/s against 990 on an H100/H200), and FlashAttention-3's FP8 forward reaches
// ~1,000 TFLOP/s at D = 128 on an H100.
// Changed vs a26 (its bf16/fp16 D = 128 path: two free-running consumer warpgroups with
// conditional rescaling and trimmed warpgroups, a producer warpgroup issuing TMA): a dedicated FP8
// body (attn_sm90_fp8.cuh) rather than an element-type template of attn_sm90's Config/Consumer,
// because every byte count there assumes 2-byte elements (64-element swizzle blocks, the O staging
// in the Q buffer, MN-major V) and re-templating them would move every existing rung's SASS; the
// new body reuses attn_sm90's Params, KeyTiles, mbarrier/TMA wrappers and attn_mma's softmax and
// mask, and takes a13's simplest fast schedule (one CTA per 128-row query tile, a K/V ring of
// four stages, two stages at D = 256) without a20/a24's persistent grid. What FP8 forces:
//   - FP8 wgmma reads both operands K-major only, so P·V needs V with keys contiguous: a pre-pass
//     kernel on the same stream (part of every launch, timed with it) writes V^T [B·H, D, Sk
//     rounded up to 128] into per-device scratch (DeviceScratch), keys past Sk zero;
//   - the pre-pass also permutes the keys within each 32-key group (attn_fp8_layout.h has the
//     derivation from the PTX fragment layouts) so that P's fp32 accumulators convert pairwise
//     (cvt.rn.satfinite.e4m3x2.f32) straight into P·V's A fragment, with no shuffle;
//   - Q and K rows are D bytes: 128-byte swizzle at D >= 128, 64-byte swizzle at D = 64;
//   - P is rounded to E4M3 (unit roundoff 2^-4) against the running max, P <= 1 (no conditional
//     rescaling: a stale max leaves the row's largest P inexact, attn_sm90_fp8.cuh says why); the
//     row sums l add the unrounded fp32 P (as FlashAttention-3 does).
// Prediction (written before its first device run): D = 128, S = 4096, B·H = 64, non-causal, on
// one H200, counting the pre-pass: 750-900 TFLOP/s, i.e. 1.2-1.4x a24/a26 bf16 (~600-640 there)
// and 1.1-1.35x cuDNN bf16 (645-694); well under FA3's ~1,000 on an H100 because this schedule
// serialises each warpgroup's softmax with its own GEMMs (no intra-warpgroup overlap, no
// persistent grid) and the softmax's exponentials do not get faster with FP8 while the GEMMs
// halve; the pre-pass costs ~2-3 % at S = 4096 (it moves V twice at ~3 TB/s). D = 64: 1.0-1.2x
// a26 bf16; D = 256: 1.2-1.4x. Causal: 0.9-1.1x the non-causal rate (no heaviest-first persistent
// schedule).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "kernels/attention/attention_common.cuh"
#include "kernels/device_scratch.h"
#include "kernels/hopper/attn_fp8_entry.h"
#include "kernels/hopper/attn_sm90_fp8.cuh"
#include "kernels/hopper/attn_sm90_host.h"
#include "kernels/hopper/tensor_map.h"
#include "kernels/registry.h"

namespace flashscope::kernels {
namespace {

using attn_fp8::Fp8Config;

constexpr int kKeyTile = 128;  // Fp8Config<D>::kBN, the pre-pass's key padding

int64_t PaddedKeys(int64_t seq_k) { return (seq_k + kKeyTile - 1) / kKeyTile * kKeyTile; }

std::string SupportsFp8(const AttentionProblem& p, const std::string& id) {
  if (p.dtype != DType::kE4M3) {
    return id + " takes e4m3 inputs only (its wgmmas are .e4m3), not " +
           std::string(DTypeName(p.dtype)) + " (the bf16/fp16 rungs are a12..a26)";
  }
  if (p.head_dim != 64 && p.head_dim != 128 && p.head_dim != 256) {
    return "head_dim " + std::to_string(p.head_dim) + " is not instantiated: " + id +
           " is compiled for head_dim 64, 128 and 256";
  }
  if (p.batch < 1 || p.heads < 1 || p.seq_q < 1 || p.seq_k < 1) {
    return "empty problem: batch, heads, seq_q and seq_k must be >= 1";
  }
  if (p.seq_q > (int64_t{1} << 30) || p.seq_k > (int64_t{1} << 30)) {
    return "sequence lengths above 2^30 are not supported (32-bit row coordinates)";
  }
  const int64_t bh = p.batch * p.heads;
  const int64_t ctas = (p.seq_q + 127) / 128 * bh;
  const int64_t pre = PaddedKeys(p.seq_k) / kKeyTile * (p.head_dim / 64) * bh;
  if (ctas > std::numeric_limits<int32_t>::max() || pre > std::numeric_limits<int32_t>::max()) {
    return "the grids (batch*heads*ceil(seq_q/128) = " + std::to_string(ctas) +
           ", the V transpose's " + std::to_string(pre) + ") exceed the grid's x limit (2^31 - 1)";
  }
  return "";
}

// V^T for the pre-pass: one block per device, grown on demand (the first, untimed launch of a
// larger shape grows it); a27 and a28 share it.
cudaError_t TransposedV(size_t bytes, void** out) {
  static DeviceScratch scratch("a27_fp8/a28_fp8_overlap's transposed V", size_t{64} << 20);
  return scratch.Get(bytes, out);
}

struct Fp8Maps {
  CUtensorMap q, k, vt;
};

struct Fp8MapKey {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* vt = nullptr;
  int64_t bh = 0, seq_q = 0, seq_k = 0, head_dim = 0;
  bool operator==(const Fp8MapKey& o) const {
    return q == o.q && k == o.k && vt == o.vt && bh == o.bh && seq_q == o.seq_q &&
           seq_k == o.seq_k && head_dim == o.head_dim;
  }
};

// A 3-D tensor of bytes [dim2][dim1][dim0] read in boxes of box0 x box1 x 1.
std::string EncodeBytes(const void* base, uint64_t dim0, uint64_t dim1, uint64_t dim2,
                        uint32_t box0, uint32_t box1, CUtensorMapSwizzle swizzle,
                        CUtensorMap* out) {
  hopper::TmaTensor t;
  t.base = base;
  t.rank = 3;
  t.type = CU_TENSOR_MAP_DATA_TYPE_UINT8;
  t.dims[0] = dim0;
  t.dims[1] = dim1;
  t.dims[2] = dim2;
  t.strides_bytes[0] = dim0;
  t.strides_bytes[1] = dim0 * dim1;
  t.box[0] = box0;
  t.box[1] = box1;
  t.box[2] = 1;
  t.swizzle = swizzle;
  return hopper::EncodeTensorMap(t, out);
}

std::string MapsFor(const AttentionProblem& p, const AttentionArgs& a, const void* vt,
                    Fp8Maps* out) {
  thread_local hopper::RecentMaps<Fp8MapKey, Fp8Maps> kept;
  const int64_t bh = p.batch * p.heads;
  const Fp8MapKey key{a.q, a.k, vt, bh, p.seq_q, p.seq_k, p.head_dim};
  if (const Fp8Maps* found = kept.Find(key)) {
    *out = *found;
    return "";
  }
  const uint64_t d = static_cast<uint64_t>(p.head_dim);
  const uint32_t span = p.head_dim >= 128 ? 128 : 64;
  const CUtensorMapSwizzle sw =
      p.head_dim >= 128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B;
  Fp8Maps maps;
  std::string err = EncodeBytes(a.q, d, p.seq_q, bh, span, 128, sw, &maps.q);
  if (err.empty()) err = EncodeBytes(a.k, d, p.seq_k, bh, span, kKeyTile, sw, &maps.k);
  if (err.empty()) {
    err = EncodeBytes(vt, PaddedKeys(p.seq_k), d, bh, kKeyTile, static_cast<uint32_t>(d),
                      CU_TENSOR_MAP_SWIZZLE_128B, &maps.vt);
  }
  if (!err.empty()) return err;
  kept.Keep(key, maps);
  *out = maps;
  return "";
}

// kOverlap: a28's kernel (attn_sm90_fp8.cuh's intra-warpgroup overlap), else a27's.
template <int D, bool kOverlap>
struct Fp8Instance {
  using C = Fp8Config<D>;
  static constexpr auto kKernel = [] {
    if constexpr (kOverlap) {
      return &attn_fp8::AttnSm90Fp8OverlapKernel<D>;
    } else {
      return &attn_fp8::AttnSm90Fp8Kernel<D>;
    }
  }();
  static constexpr auto kTranspose = &attn_fp8::TransposeVKernel<D>;

  static std::vector<DeviceFunction> Describe() {
    return {
        DeviceFunction{reinterpret_cast<const void*>(kTranspose),
                       "TransposeVKernel<e4m3,D=" + std::to_string(D) + ">",
                       attn_fp8::kTransposeThreads, 0},
        DeviceFunction{reinterpret_cast<const void*>(kKernel),
                       std::string(kOverlap ? "AttnSm90Fp8OverlapKernel" : "AttnSm90Fp8Kernel") +
                           "<e4m3,D=" + std::to_string(D) +
                           ",BM=128,BN=128,stages=" + std::to_string(C::kStages) + ">",
                       C::kThreads, C::kSmemBytes}};
  }

  static cudaError_t Launch(const AttentionProblem& pr, const AttentionArgs& a,
                            cudaStream_t stream) {
    static const cudaError_t attr = cudaFuncSetAttribute(
        kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(C::kSmemBytes));
    if (attr != cudaSuccess) return attr;
    // TMA reads Q and K (16-byte aligned bases), the pre-pass reads V in 16-byte chunks, the
    // epilogue writes O in 4-byte pairs.
    if (reinterpret_cast<uintptr_t>(a.q) % 16 != 0 || reinterpret_cast<uintptr_t>(a.k) % 16 != 0 ||
        reinterpret_cast<uintptr_t>(a.v) % 16 != 0 || reinterpret_cast<uintptr_t>(a.o) % 4 != 0) {
      return cudaErrorMisalignedAddress;
    }
    const int64_t bh = pr.batch * pr.heads;
    const int64_t keys_pad = PaddedKeys(pr.seq_k);
    void* vt = nullptr;
    cudaError_t err = TransposedV(static_cast<size_t>(bh * D * keys_pad), &vt);
    if (err != cudaSuccess) return err;
    Fp8Maps maps;
    const std::string why = MapsFor(pr, a, vt, &maps);
    if (!why.empty()) {
      std::fprintf(stderr, "attn.%s<D=%d>: %s\n", kOverlap ? "a28_fp8_overlap" : "a27_fp8", D,
                   why.c_str());
      return cudaErrorInvalidValue;
    }
    const unsigned pre_blocks = static_cast<unsigned>(keys_pad / kKeyTile * (D / 64) * bh);
    kTranspose<<<pre_blocks, attn_fp8::kTransposeThreads, 0, stream>>>(
        static_cast<const uint8_t*>(a.v), static_cast<uint8_t*>(vt), static_cast<int>(pr.seq_k),
        static_cast<int>(keys_pad));
    err = cudaGetLastError();
    if (err != cudaSuccess) return err;
    const int64_t n_m = (pr.seq_q + C::kBM - 1) / C::kBM;
    attn_sm90::Params p;
    p.o = a.o;
    p.lse = pr.want_lse ? a.lse : nullptr;
    p.seq_q = static_cast<int>(pr.seq_q);
    p.seq_k = static_cast<int>(pr.seq_k);
    p.scale = EffectiveSoftmaxScale(pr, a);
    p.causal = pr.causal ? 1 : 0;
    p.n_m_blocks = static_cast<int>(n_m);
    p.bh_count = bh;
    kKernel<<<static_cast<unsigned>(n_m * bh), C::kThreads, C::kSmemBytes, stream>>>(maps.q, maps.k,
                                                                                     maps.vt, p);
    return cudaGetLastError();
  }
};

// a28's overlap at D = 64 and 128; D = 256 runs a27's kernel in both (two S accumulators and
// O's 128 registers do not fit: ptxas spills and serialises the wgmmas).
template <class Fn>
auto WithHeadDim(int64_t d, bool overlap, Fn&& fn) {
  if (d == 64) return overlap ? fn(Fp8Instance<64, true>{}) : fn(Fp8Instance<64, false>{});
  if (d == 128) return overlap ? fn(Fp8Instance<128, true>{}) : fn(Fp8Instance<128, false>{});
  return fn(Fp8Instance<256, false>{});
}

}  // namespace

KernelEntry MakeFp8AttentionEntry(KernelInfo info, bool overlap) {
  const std::string id = info.id;
  info.family = Family::kAttentionFwd;
  info.min_sm = 90;
  info.exact_sm = 90;  // sm_90a code: compute capability 9.0 only
  info.tile = TileShape{128, 128, 32, Fp8Config<128>::kThreads};
  info.accepts_fp8 = true;
  // QGMMA: the FP8 wgmmas; UTMALDG: TMA loads; SYNCS: mbarrier waits; USETMAXREG: the producer's
  // setmaxnreg.
  info.required_sass = {"QGMMA", "UTMALDG", "SYNCS", "USETMAXREG"};
  KernelEntry e;
  e.info = std::move(info);
  e.attention_supports = [id](const AttentionProblem& p) { return SupportsFp8(p, id); };
  e.attention_launch = [id, overlap](const AttentionProblem& p, const AttentionArgs& a,
                                     cudaStream_t s) {
    const std::string why = SupportsFp8(p, id);
    if (!why.empty()) return cudaErrorInvalidValue;
    return WithHeadDim(p.head_dim, overlap, [&](auto inst) { return inst.Launch(p, a, s); });
  };
  e.device_functions = [id, overlap](const Problem& pr) {
    std::vector<DeviceFunction> out;
    if (const auto* p = std::get_if<AttentionProblem>(&pr);
        p != nullptr && SupportsFp8(*p, id).empty()) {
      out = WithHeadDim(p->head_dim, overlap, [&](auto inst) { return inst.Describe(); });
    }
    return out;
  };
  return e;
}

KernelEntry MakeA27Fp8() {
  KernelInfo info;
  info.id = "attn.a27_fp8";
  info.revision = 27;
  info.title =
      "FP8 (E4M3) attention: wgmma k32 .e4m3 for Q·Kᵀ and P·V, fp32 accumulation, BF16 O; V "
      "transposed (and its keys permuted to P's register layout) by a pre-pass";
  info.changed =
      "E4M3 inputs: a13/a26's warp-specialised free-running schedule on a dedicated FP8 body; V^T "
      "from a same-stream pre-pass (FP8 wgmma is K-major only) with keys permuted within 32-key "
      "groups so that P converts in place into the A fragment; O in BF16";
  return MakeFp8AttentionEntry(std::move(info), /*overlap=*/false);
}

}  // namespace flashscope::kernels
