// a29_fp8_split_kv — intent: a27_fp8 launches one CTA per 128-row query tile, so a short query
// chunk against a long KV cache runs on a few CTAs: B=2, Sq=128, Sk=16384 is B·H = 64 (D = 64),
// 32 (D = 128) or 16 (D = 256) CTAs on 132 SMs, and each walks all 128 key tiles serially
// (measured on an H200, E4M3, non-causal: 152 / 137 / 109 TFLOP/s against a24 bf16's 353 / 426 /
// 432, which splits the keys).
// Changed vs a27 (one idea, a19's split-KV on a27's FP8 body): when the query tiles do not fill
// whole waves, each tile's visible key tiles are dealt to n_splits neighbouring CTAs in
// contiguous, balanced shares, n_splits from a19's SplitCount (the fewest shares whose wave
// efficiency is within 15 % of the best, >= 4 key tiles a share, <= 16). Each CTA runs a27's
// producer and serial consumers over its share (Fp8Consumer's compile-time kSplit: key tiles from
// the share's first, absolute key indices so that the bottom-right causal mask is a27's) and
// writes its normalised partial O and lse in fp32 to a19's SplitWorkspace; a19's combine kernel
// (SplitKvCombineKernel<__nv_bfloat16, D>) merges the shares into the BF16 O and the lse (a share
// that saw no key weighs 0; a row no share saw gets O = 0 and lse -inf). When SplitCount gives 1
// (every 16k-token problem: >= 1,024 query tiles) the launch is a27's, kernel for kernel (the
// V^T pre-pass, then AttnSm90Fp8Kernel<D>). The pre-pass still transposes all of V.
// Prediction (written before any measurement; H200, E4M3, B = 2, H·D = 2048, counting the
// pre-pass and the combine). At Sq = 128 the problem is memory-bound in FP8 (intensity 2·Sq = 256
// FLOP/byte against ~410 for the GPU), and the pre-pass makes it move as many bytes as bf16 (K,
// V, V^T written and read: 4 bytes per key and column, as bf16's K and V): Sk = 16384 moves ~270
// MB, the pre-pass (~45 us) and the main kernel (~50 us once 128 CTAs stream K / V^T) in series,
// so the split cannot reach a24 bf16 there:
//   Sq = 128, Sk = 16384: D = 128 (32 -> 128 CTAs, 4 shares) 300-380 TFLOP/s (2.2-2.8x a27,
//     0.7-0.9x a24); D = 256 (16 -> 112 CTAs, 7 shares) 290-380 (2.7-3.5x a27, 0.65-0.9x a24);
//     D = 64 (64 -> 128 CTAs, 2 shares: each CTA still walks 64 key tiles serially) 220-290
//     (1.45-1.9x a27, 0.6-0.8x a24);
//   Sq = 256, Sk = 16384, D = 128 (64 -> 128 CTAs): 400-480 (1.5-1.75x a27's 272, 0.7-0.85x a24);
//     D = 256 (32 -> 128 CTAs): 1.6-2.0x a27; D = 64 (128 tiles): no split, a27's rate;
//   Sq = 512, Sk = 16384: D = 64 and 128 (256 / 128 tiles) do not split: a27's rate within 2 %
//     (541 at D = 128); D = 256 (64 -> 128 CTAs): 1.3-1.6x a27;
//   Sk = 4096: the same CTA counts with a quarter of the key tiles (Sq = 128: 8 / 16 / 5 key tiles
//     a share at D = 128 / 64 / 256): 2-3x a27 at Sq = 128, the pre-pass (~12 us) and the launch
//     of a second kernel a larger share of a short run;
//   causal: at Sq <= 512 against Sk = 16384 the bottom-right mask hides almost nothing, so the
//     same ratios within 5 %;
//   16k-token shapes (S = 512..8192): one share, a27's time within 1 % (the host picks a27's
//     kernel; only SplitCount's arithmetic is added).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "kernels/attention/attention_common.cuh"
#include "kernels/device_scratch.h"
#include "kernels/hopper/attn_sm90_combine.cuh"
#include "kernels/hopper/attn_sm90_fp8.cuh"
#include "kernels/hopper/attn_sm90_fp8_split.cuh"
#include "kernels/hopper/attn_sm90_host.h"
#include "kernels/hopper/tensor_map.h"
#include "kernels/registry.h"

namespace flashscope::kernels {
namespace {

using attn_fp8::Fp8Config;

constexpr int kKeyTile = 128;  // Fp8Config<D>::kBN, the pre-pass's key padding

int64_t PaddedKeys(int64_t seq_k) { return (seq_k + kKeyTile - 1) / kKeyTile * kKeyTile; }

// a27's rules (the same body), the grid bound with SplitCount's most shares.
std::string SupportsFp8Split(const AttentionProblem& p) {
  if (p.dtype != DType::kE4M3) {
    return "attn.a29_fp8_split_kv takes e4m3 inputs only (its wgmmas are .e4m3), not " +
           std::string(DTypeName(p.dtype)) + " (the bf16/fp16 rungs are a12..a26)";
  }
  if (p.head_dim != 64 && p.head_dim != 128 && p.head_dim != 256) {
    return "head_dim " + std::to_string(p.head_dim) +
           " is not instantiated: attn.a29_fp8_split_kv is compiled for head_dim 64, 128 and 256";
  }
  if (p.batch < 1 || p.heads < 1 || p.seq_q < 1 || p.seq_k < 1) {
    return "empty problem: batch, heads, seq_q and seq_k must be >= 1";
  }
  if (p.seq_q > (int64_t{1} << 30) || p.seq_k > (int64_t{1} << 30)) {
    return "sequence lengths above 2^30 are not supported (32-bit row coordinates)";
  }
  const int64_t bh = p.batch * p.heads;
  const int64_t tiles = (p.seq_q + 127) / 128 * bh;
  const int64_t pre = PaddedKeys(p.seq_k) / kKeyTile * (p.head_dim / 64) * bh;
  // SplitCount splits only grids of fewer than ~2 waves, so tiles x shares stays small whenever
  // it splits; bounding tiles alone keeps the unsplit grid's rule (a27's).
  if (tiles > std::numeric_limits<int32_t>::max() || pre > std::numeric_limits<int32_t>::max()) {
    return "the grids (batch*heads*ceil(seq_q/128) = " + std::to_string(tiles) +
           ", the V transpose's " + std::to_string(pre) + ") exceed the grid's x limit (2^31 - 1)";
  }
  return "";
}

// V^T for the pre-pass: one block per device, grown on demand (the first, untimed launch of a
// larger shape grows it).
cudaError_t TransposedV(size_t bytes, void** out) {
  static DeviceScratch scratch("a29_fp8_split_kv's transposed V", size_t{64} << 20);
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

// A 3-D tensor of bytes [dim2][dim1][dim0] read in boxes of box0 x box1 x 1 (a27's maps).
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

template <int D>
struct Fp8SplitInstance {
  using C = Fp8Config<D>;
  static constexpr auto kKernel = &attn_fp8::AttnSm90Fp8Kernel<D>;  // a27's, one share
  static constexpr auto kSplitKernel = &attn_fp8::AttnSm90Fp8SplitKernel<D>;
  static constexpr auto kTranspose = &attn_fp8::TransposeVKernel<D>;
  static constexpr auto kCombine = &attn_sm90::SplitKvCombineKernel<__nv_bfloat16, D>;

  // How many CTAs share each query tile of `pr` on this device (1: a27's launch).
  static int Splits(const AttentionProblem& pr) {
    const int64_t tiles = (pr.seq_q + C::kBM - 1) / C::kBM * pr.batch * pr.heads;
    return attn_sm90::SplitCount(tiles, (pr.seq_k + C::kBN - 1) / C::kBN,
                                 attn_sm90::MultiprocessorCount());
  }

  // The kernels a launch of `pr` runs: the pre-pass, then a27's kernel, or the split kernel and
  // the combine.
  static std::vector<DeviceFunction> Describe(const AttentionProblem& pr) {
    std::vector<DeviceFunction> out{DeviceFunction{
        reinterpret_cast<const void*>(kTranspose),
        "TransposeVKernel<e4m3,D=" + std::to_string(D) + ">", attn_fp8::kTransposeThreads, 0}};
    const std::string shape =
        "<e4m3,D=" + std::to_string(D) + ",BM=128,BN=128,stages=" + std::to_string(C::kStages);
    if (Splits(pr) > 1) {
      out.push_back(DeviceFunction{reinterpret_cast<const void*>(kSplitKernel),
                                   "AttnSm90Fp8SplitKernel" + shape + ">", C::kThreads,
                                   C::kSmemBytes});
      out.push_back(DeviceFunction{reinterpret_cast<const void*>(kCombine),
                                   "SplitKvCombineKernel<bf16,D=" + std::to_string(D) + ">",
                                   attn_sm90::kCombineWarps * 32, 0});
    } else {
      out.push_back(DeviceFunction{reinterpret_cast<const void*>(kKernel),
                                   "AttnSm90Fp8Kernel" + shape + ">", C::kThreads, C::kSmemBytes});
    }
    return out;
  }

  static cudaError_t Launch(const AttentionProblem& pr, const AttentionArgs& a,
                            cudaStream_t stream) {
    static const cudaError_t attr = cudaFuncSetAttribute(
        kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(C::kSmemBytes));
    if (attr != cudaSuccess) return attr;
    static const cudaError_t attr_split = cudaFuncSetAttribute(
        kSplitKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(C::kSmemBytes));
    if (attr_split != cudaSuccess) return attr_split;
    const int n_splits = Splits(pr);
    // TMA reads Q and K (16-byte aligned bases), the pre-pass reads V in 16-byte chunks, the
    // epilogue writes O in 4-byte pairs; the combine writes D / 32 BF16 of a row per lane (up to
    // 16 bytes).
    const uintptr_t o_align = n_splits > 1 ? 16 : 4;
    if (reinterpret_cast<uintptr_t>(a.q) % 16 != 0 || reinterpret_cast<uintptr_t>(a.k) % 16 != 0 ||
        reinterpret_cast<uintptr_t>(a.v) % 16 != 0 ||
        reinterpret_cast<uintptr_t>(a.o) % o_align != 0) {
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
      std::fprintf(stderr, "attn.a29_fp8_split_kv<D=%d>: %s\n", D, why.c_str());
      return cudaErrorInvalidValue;
    }
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
    p.n_splits = n_splits;
    const int64_t rows = bh * pr.seq_q;
    if (n_splits > 1) {
      if (n_m * bh * n_splits > std::numeric_limits<int32_t>::max()) return cudaErrorInvalidValue;
      const size_t o_floats = static_cast<size_t>(n_splits) * static_cast<size_t>(rows) * D;
      void* ws = nullptr;
      err = attn_sm90::SplitWorkspace(
          (o_floats + static_cast<size_t>(n_splits) * static_cast<size_t>(rows)) * sizeof(float),
          &ws);
      if (err != cudaSuccess) return err;
      p.part_o = static_cast<float*>(ws);
      p.part_lse = p.part_o + o_floats;
    }
    const unsigned pre_blocks = static_cast<unsigned>(keys_pad / kKeyTile * (D / 64) * bh);
    kTranspose<<<pre_blocks, attn_fp8::kTransposeThreads, 0, stream>>>(
        static_cast<const uint8_t*>(a.v), static_cast<uint8_t*>(vt), static_cast<int>(pr.seq_k),
        static_cast<int>(keys_pad));
    err = cudaGetLastError();
    if (err != cudaSuccess) return err;
    if (n_splits == 1) {
      kKernel<<<static_cast<unsigned>(n_m * bh), C::kThreads, C::kSmemBytes, stream>>>(
          maps.q, maps.k, maps.vt, p);
      return cudaGetLastError();
    }
    kSplitKernel<<<static_cast<unsigned>(n_m * bh * n_splits), C::kThreads, C::kSmemBytes,
                   stream>>>(maps.q, maps.k, maps.vt, p);
    err = cudaGetLastError();
    if (err != cudaSuccess) return err;
    const unsigned blocks =
        static_cast<unsigned>((rows + attn_sm90::kCombineWarps - 1) / attn_sm90::kCombineWarps);
    kCombine<<<blocks, attn_sm90::kCombineWarps * 32, 0, stream>>>(
        p.part_o, p.part_lse, static_cast<__nv_bfloat16*>(a.o), p.lse, rows, n_splits);
    return cudaGetLastError();
  }
};

template <class Fn>
auto WithHeadDim(int64_t d, Fn&& fn) {
  if (d == 64) return fn(Fp8SplitInstance<64>{});
  if (d == 128) return fn(Fp8SplitInstance<128>{});
  return fn(Fp8SplitInstance<256>{});
}

}  // namespace

KernelEntry MakeA29Fp8SplitKv() {
  KernelInfo info;
  info.id = "attn.a29_fp8_split_kv";
  info.revision = 29;
  info.title =
      "FP8 (E4M3) split-KV: when the query tiles do not fill whole waves, each tile's keys are "
      "shared by several CTAs of a27's FP8 body and a19's combine merges the partial (O, lse) "
      "into BF16 O";
  info.changed =
      "a27 + a19's split of the key tiles (SplitCount's shares, fp32 partials in SplitWorkspace, "
      "SplitKvCombineKernel<bf16>); a27's launch when SplitCount gives one share";
  info.family = Family::kAttentionFwd;
  info.min_sm = 90;
  info.exact_sm = 90;  // sm_90a code: compute capability 9.0 only
  info.tile = TileShape{128, 128, 32, Fp8Config<128>::kThreads};
  info.accepts_fp8 = true;
  // a27's: QGMMA (the FP8 wgmmas), UTMALDG (TMA loads), SYNCS (mbarrier waits), USETMAXREG (the
  // producer's setmaxnreg).
  info.required_sass = {"QGMMA", "UTMALDG", "SYNCS", "USETMAXREG"};
  KernelEntry e;
  e.info = std::move(info);
  e.attention_supports = [](const AttentionProblem& p) { return SupportsFp8Split(p); };
  e.attention_launch = [](const AttentionProblem& p, const AttentionArgs& a, cudaStream_t s) {
    const std::string why = SupportsFp8Split(p);
    if (!why.empty()) return cudaErrorInvalidValue;
    return WithHeadDim(p.head_dim, [&](auto inst) { return inst.Launch(p, a, s); });
  };
  e.device_functions = [](const Problem& pr) {
    std::vector<DeviceFunction> out;
    if (const auto* p = std::get_if<AttentionProblem>(&pr);
        p != nullptr && SupportsFp8Split(*p).empty()) {
      out = WithHeadDim(p->head_dim, [&](auto inst) { return inst.Describe(*p); });
    }
    return out;
  };
  return e;
}

}  // namespace flashscope::kernels
