// The registry entry of the FP8 attention rungs, as a template each rung's file instantiates (so
// that each rung's device functions are compiled in, and audited from, its own source):
//   a27_fp8           <kOverlap = false, kSplit = false>: the serial schedule;
//   a28_fp8_overlap   <true, false>: the intra-warpgroup overlap at D = 64 and 128 (a27's kernel
//                     at 256: two S accumulators and O's 128 registers do not fit);
//   a29_fp8_split_kv  <false, true>: a19's split-KV where SplitCount shares a query tile's keys
//                     between CTAs, then SplitKvCombineKernel<bf16>; a27's launch otherwise.
// Every launch runs the V pre-pass first (TransposeVKernel, same stream, inside the timing).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "kernels/attention/attention_common.cuh"
#include "kernels/hopper/attn_fp8_host.h"
#include "kernels/hopper/attn_fp8_transpose.cuh"
#include "kernels/hopper/attn_sm90_combine.cuh"
#include "kernels/hopper/attn_sm90_fp8.cuh"
#include "kernels/hopper/attn_sm90_fp8_split.cuh"
#include "kernels/hopper/attn_sm90_host.h"
#include "kernels/registry.h"

namespace flashscope::kernels::attn_fp8 {

template <int D, bool kOverlap, bool kSplit>
struct Fp8Instance {
  using C = Fp8Config<D>;
  static constexpr auto kKernel = [] {
    if constexpr (kOverlap) {
      return &AttnSm90Fp8OverlapKernel<D>;
    } else {
      return &AttnSm90Fp8Kernel<D>;
    }
  }();
  static constexpr auto kTranspose = &TransposeVKernel<D>;
  // The split kernel and the combine are named only under `if constexpr (kSplit)`, so that a27's
  // and a28's files do not compile them (the audit reads each rung's functions from its file).
  static constexpr auto SplitKernel() { return &AttnSm90Fp8SplitKernel<D>; }
  static constexpr auto Combine() { return &attn_sm90::SplitKvCombineKernel<__nv_bfloat16, D>; }

  // How many CTAs share each query tile of `pr` on this device (always 1 without kSplit).
  static int Splits(const AttentionProblem& pr) {
    if constexpr (!kSplit) {
      return 1;
    } else {
      const int64_t tiles = (pr.seq_q + C::kBM - 1) / C::kBM * pr.batch * pr.heads;
      return attn_sm90::SplitCount(tiles, (pr.seq_k + C::kBN - 1) / C::kBN,
                                   attn_sm90::MultiprocessorCount());
    }
  }

  // The kernels a launch of `pr` runs: the pre-pass, then the main kernel, or the split kernel
  // and the combine.
  static std::vector<DeviceFunction> Describe(const AttentionProblem& pr) {
    std::vector<DeviceFunction> out{
        DeviceFunction{reinterpret_cast<const void*>(kTranspose),
                       "TransposeVKernel<e4m3,D=" + std::to_string(D) + ">", kTransposeThreads, 0}};
    const std::string shape = "<e4m3,D=" + std::to_string(D) +
                              ",BM=128,BN=128,stages=" + std::to_string(C::kStages) + ">";
    if constexpr (kSplit) {
      if (Splits(pr) > 1) {
        out.push_back(DeviceFunction{reinterpret_cast<const void*>(SplitKernel()),
                                     "AttnSm90Fp8SplitKernel" + shape, C::kThreads, C::kSmemBytes});
        out.push_back(DeviceFunction{reinterpret_cast<const void*>(Combine()),
                                     "SplitKvCombineKernel<bf16,D=" + std::to_string(D) + ">",
                                     attn_sm90::kCombineWarps * 32, 0});
        return out;
      }
    }
    out.push_back(DeviceFunction{
        reinterpret_cast<const void*>(kKernel),
        std::string(kOverlap ? "AttnSm90Fp8OverlapKernel" : "AttnSm90Fp8Kernel") + shape,
        C::kThreads, C::kSmemBytes});
    return out;
  }

  static cudaError_t AllowSharedMemory() {
    static const cudaError_t attr = cudaFuncSetAttribute(
        kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(C::kSmemBytes));
    if constexpr (!kSplit) {
      return attr;
    } else {
      if (attr != cudaSuccess) return attr;
      static const cudaError_t attr_split =
          cudaFuncSetAttribute(SplitKernel(), cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(C::kSmemBytes));
      return attr_split;
    }
  }

  // Split-KV's fp32 partial O and lse in a19's workspace; cudaSuccess and p untouched unsplit.
  static cudaError_t PartialResults(int64_t rows, attn_sm90::Params* p) {
    if (p->n_splits <= 1) return cudaSuccess;
    const size_t o_floats = static_cast<size_t>(p->n_splits) * static_cast<size_t>(rows) * D;
    void* ws = nullptr;
    const cudaError_t err = attn_sm90::SplitWorkspace(
        (o_floats + static_cast<size_t>(p->n_splits) * static_cast<size_t>(rows)) * sizeof(float),
        &ws);
    if (err != cudaSuccess) return err;
    p->part_o = static_cast<float*>(ws);
    p->part_lse = p->part_o + o_floats;
    return cudaSuccess;
  }

  // The split kernel over n_m · B·H · n_splits CTAs, then the combine of their partials into O.
  static cudaError_t LaunchSplit(const Maps& maps, const attn_sm90::Params& p, int64_t rows,
                                 __nv_bfloat16* o, cudaStream_t stream) {
    const unsigned ctas = static_cast<unsigned>(int64_t{p.n_m_blocks} * p.bh_count * p.n_splits);
    const auto split_kernel = SplitKernel();
    split_kernel<<<ctas, C::kThreads, C::kSmemBytes, stream>>>(maps.q, maps.k, maps.vt, p);
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return err;
    const unsigned blocks =
        static_cast<unsigned>((rows + attn_sm90::kCombineWarps - 1) / attn_sm90::kCombineWarps);
    const auto combine = Combine();
    combine<<<blocks, attn_sm90::kCombineWarps * 32, 0, stream>>>(p.part_o, p.part_lse, o, p.lse,
                                                                  rows, p.n_splits);
    return cudaGetLastError();
  }

  static cudaError_t Launch(const AttentionProblem& pr, const AttentionArgs& a, cudaStream_t stream,
                            const char* id) {
    cudaError_t err = AllowSharedMemory();
    if (err != cudaSuccess) return err;
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
    err = TransposedV(static_cast<size_t>(bh * D * keys_pad), &vt);
    if (err != cudaSuccess) return err;
    Maps maps;
    const std::string why = MapsFor(pr, a, vt, &maps);
    if (!why.empty()) {
      std::fprintf(stderr, "%s<D=%d>: %s\n", id, D, why.c_str());
      return cudaErrorInvalidValue;
    }
    attn_sm90::Params p =
        attn_sm90::TileParams(pr, a.o, a.lse, EffectiveSoftmaxScale(pr, a), C::kBM);
    const int64_t n_m = p.n_m_blocks;
    p.n_splits = n_splits;
    const int64_t rows = bh * pr.seq_q;
    if (n_m * bh * n_splits > std::numeric_limits<int32_t>::max()) return cudaErrorInvalidValue;
    err = PartialResults(rows, &p);
    if (err != cudaSuccess) return err;
    const unsigned pre_blocks = static_cast<unsigned>(keys_pad / kKeyTile * (D / 64) * bh);
    kTranspose<<<pre_blocks, kTransposeThreads, 0, stream>>>(
        static_cast<const uint8_t*>(a.v), static_cast<uint8_t*>(vt), static_cast<int>(pr.seq_k),
        static_cast<int>(keys_pad));
    err = cudaGetLastError();
    if (err != cudaSuccess) return err;
    if constexpr (kSplit) {
      if (n_splits > 1) return LaunchSplit(maps, p, rows, static_cast<__nv_bfloat16*>(a.o), stream);
    }
    kKernel<<<static_cast<unsigned>(n_m * bh), C::kThreads, C::kSmemBytes, stream>>>(maps.q, maps.k,
                                                                                     maps.vt, p);
    return cudaGetLastError();
  }
};

// a28's overlap at D = 64 and 128; D = 256 runs the serial kernel (ptxas spills a second S
// accumulator beside O's 128 registers and serialises the wgmmas).
template <bool kOverlap, bool kSplit, class Fn>
auto WithHeadDim(int64_t d, Fn&& fn) {
  if (d == 64) return fn(Fp8Instance<64, kOverlap, kSplit>{});
  if (d == 128) return fn(Fp8Instance<128, kOverlap, kSplit>{});
  return fn(Fp8Instance<256, false, kSplit>{});
}

// `info` brings the id, revision, title and changed; the rest is the FP8 body's.
template <bool kOverlap, bool kSplit>
KernelEntry MakeEntry(KernelInfo info) {
  static_assert(!(kOverlap && kSplit), "one idea a rung: the split runs the serial schedule");
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
  e.attention_supports = [id](const AttentionProblem& p) { return Supports(p, id); };
  e.attention_launch = [id](const AttentionProblem& p, const AttentionArgs& a, cudaStream_t s) {
    if (!Supports(p, id).empty()) return cudaErrorInvalidValue;
    return WithHeadDim<kOverlap, kSplit>(
        p.head_dim, [&](auto inst) { return inst.Launch(p, a, s, id.c_str()); });
  };
  e.device_functions = [id](const Problem& pr) {
    std::vector<DeviceFunction> out;
    if (const auto* p = std::get_if<AttentionProblem>(&pr);
        p != nullptr && Supports(*p, id).empty()) {
      out =
          WithHeadDim<kOverlap, kSplit>(p->head_dim, [&](auto inst) { return inst.Describe(*p); });
    }
    return out;
  };
  return e;
}

}  // namespace flashscope::kernels::attn_fp8
