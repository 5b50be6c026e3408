// Host side of the Hopper attention core (attn_sm90_kernel.cuh): launch of one instantiation
// (dtype x head dim) and the registry entry a rung builds from its feature bits.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/attention/attention_common.cuh"
#include "kernels/hopper/attn_sm90_combine.cuh"
#include "kernels/hopper/attn_sm90_host.h"
#include "kernels/hopper/attn_sm90_kernel.cuh"
#include "kernels/registry.h"

namespace flashscope::kernels::attn_sm90 {

template <typename T, int D, unsigned F>
struct Instance {
  using C = Config<D, F>;
  static constexpr auto kKernel = &AttnSm90Kernel<T, D, F>;

  static std::string Name() {
    char features[16];
    std::snprintf(features, sizeof features, "%x", F);
    return std::string("AttnSm90Kernel<") + ElementName<T>() + ",D=" + std::to_string(D) +
           ",BM=" + std::to_string(C::kBM) + ",BN=" + std::to_string(C::kBN) + ",features=0x" +
           features + ">";
  }

  // The kernels a launch of `pr` runs: this one, and split-KV's combine when it splits.
  static std::vector<DeviceFunction> Describe(const AttentionProblem& pr) {
    std::vector<DeviceFunction> out{
        DeviceFunction{reinterpret_cast<const void*>(kKernel), Name(), C::kThreads, C::kSmemBytes}};
    if constexpr (C::kSplit) {
      if (Splits(pr) > 1) {
        out.push_back(DeviceFunction{reinterpret_cast<const void*>(&SplitKvCombineKernel<T, D>),
                                     std::string("SplitKvCombineKernel<") + ElementName<T>() +
                                         ",D=" + std::to_string(D) + ">",
                                     kCombineWarps * 32, 0});
      }
    }
    return out;
  }

  static cudaError_t Launch(const AttentionProblem& pr, const AttentionArgs& a,
                            cudaStream_t stream) {
    // Raising the dynamic shared-memory limit is a per-function attribute: set it once.
    static const cudaError_t attr = cudaFuncSetAttribute(
        kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(C::kSmemBytes));
    if (attr != cudaSuccess) return attr;
    if (reinterpret_cast<uintptr_t>(a.o) % 16 != 0) return cudaErrorMisalignedAddress;
    TensorMaps maps;
    const std::string err = MapsFor(pr, a, C::kBM, C::kBN, &maps);
    if (!err.empty()) {
      std::fprintf(stderr, "%s: %s\n", Name().c_str(), err.c_str());
      return reinterpret_cast<uintptr_t>(a.q) % 16 != 0 ? cudaErrorMisalignedAddress
                                                        : cudaErrorInvalidValue;
    }
    Params p = TileParams(pr, a.o, a.lse, EffectiveSoftmaxScale(pr, a), C::kBM);
    const int64_t n_m = p.n_m_blocks;
    int64_t ctas = n_m * p.bh_count;
    if constexpr (C::kPersist) {
      // One CTA per SM (shared memory and registers allow no second), each walking its share of
      // the schedule's units; fewer CTAs when there are fewer units. The dynamic schedule's
      // units are single query tiles, TileSchedule's causal units pairs of them.
      const int64_t units = (pr.causal && !C::kDyn ? (n_m + 1) / 2 : n_m) * p.bh_count;
      const int sms = MultiprocessorCount();
      if (sms <= 0) return cudaErrorInvalidDevice;
      ctas = units < sms ? units : sms;
      if constexpr (C::kDyn) {
        const cudaError_t err = UnitCounters(&p.unit_counter);
        if (err != cudaSuccess) return err;
        p.sched_group = SchedGroup(n_m, sms);
      }
    }
    if constexpr (C::kSplit) {
      const cudaError_t err = PrepareSplits(pr, &p);
      if (err != cudaSuccess) return err;
      ctas *= p.n_splits;
    }
    const dim3 grid(static_cast<unsigned>(ctas));
    kKernel<<<grid, C::kThreads, C::kSmemBytes, stream>>>(maps.q, maps.k, maps.v, p);
    if constexpr (C::kSplit) {
      if (p.n_splits > 1) {
        const cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess) return err;
        const int64_t rows = p.bh_count * pr.seq_q;
        const unsigned blocks = static_cast<unsigned>((rows + kCombineWarps - 1) / kCombineWarps);
        SplitKvCombineKernel<T, D><<<blocks, kCombineWarps * 32, 0, stream>>>(
            p.part_o, p.part_lse, static_cast<T*>(a.o), p.lse, rows, p.n_splits);
      }
    }
    return cudaGetLastError();
  }

  // Split-KV: how many CTAs share each query tile of `pr` on this device (1: no split).
  static int Splits(const AttentionProblem& pr) {
    const int64_t tiles = (pr.seq_q + C::kBM - 1) / C::kBM * pr.batch * pr.heads;
    return SplitCount(tiles, (pr.seq_k + C::kBN - 1) / C::kBN, MultiprocessorCount());
  }

  // Split-KV: the share count and, when it is above 1, the workspace of the partial results.
  static cudaError_t PrepareSplits(const AttentionProblem& pr, Params* p) {
    p->n_splits = Splits(pr);
    if (p->n_splits == 1) return cudaSuccess;
    const size_t rows = static_cast<size_t>(p->bh_count * pr.seq_q);
    const size_t o_floats = static_cast<size_t>(p->n_splits) * rows * D;
    void* ws = nullptr;
    const cudaError_t err =
        SplitWorkspace((o_floats + static_cast<size_t>(p->n_splits) * rows) * sizeof(float), &ws);
    if (err != cudaSuccess) return err;
    p->part_o = static_cast<float*>(ws);
    p->part_lse = p->part_o + o_floats;
    return cudaSuccess;
  }
};

// The feature sets later rungs build on, each named once. a15's schedule: a13's producer
// warpgroup, a14's ping-pong turns, a15's intra-warpgroup overlap (a16 and a17 add to it).
inline constexpr unsigned kA15Schedule = kDirectRescale | kWarpSpec | kPingPong | kIntraOverlap;
// a17's per-head-dim sets, which a18-a21 extend: D >= 128 on a15's schedule, D = 64 on three
// free-running consumer warpgroups (no turns); conditional rescaling on both.
inline constexpr unsigned kA17Wide = kA15Schedule | kCondRescale;
inline constexpr unsigned kA17Narrow = kDirectRescale | kWarpSpec | kCondRescale | kThreeWarpgroups;

// The SASS every warp-specialised rung (a13 on) must compile to: wgmma, TMA loads, mbarrier
// waits and the producer's setmaxnreg.
inline const std::vector<std::string> kWarpSpecializedSass = {"HGMMA", "UTMALDG", "SYNCS",
                                                              "USETMAXREG"};

// Calls fn(Instance<...>{}) for the problem's dtype and head dim (checked by Supports first);
// head dim 64 takes the feature set F64 (a rung may schedule it differently), or F64Split where
// that (a split-KV set) would split the problem's key tiles (a20: the persistent grid for
// problems with enough query tiles, split-KV for the others), or F64Short (a two-warpgroup set,
// 128-row query tiles; 0: none) where PreferShortTiles says so (a21). Head dim 128 takes F128
// where F would not split the problem's key tiles and PreferPrefetchGrid says a persistent set
// pays (a24; F128 == F: F always).
template <unsigned F, unsigned F64, unsigned F64Split, unsigned F64Short, unsigned F128, class Fn>
auto WithInstance(const AttentionProblem& p, Fn&& fn) {
  const bool bf16 = p.dtype == DType::kBF16;
  if (p.head_dim == 64) {
    if constexpr (F64Short != 0) {
      static_assert(Config<64, F64Short>::kBM == 128, "F64Short: 128-row query tiles");
      if (PreferShortTiles(p.seq_q)) {
        return bf16 ? fn(Instance<__nv_bfloat16, 64, F64Short>{})
                    : fn(Instance<__half, 64, F64Short>{});
      }
    }
    if constexpr (F64Split != F64) {
      if (Instance<__half, 64, F64Split>::Splits(p) > 1) {
        return bf16 ? fn(Instance<__nv_bfloat16, 64, F64Split>{})
                    : fn(Instance<__half, 64, F64Split>{});
      }
    }
    return bf16 ? fn(Instance<__nv_bfloat16, 64, F64>{}) : fn(Instance<__half, 64, F64>{});
  }
  if (p.head_dim == 128) {
    if constexpr (F128 != F) {
      if ((!Config<128, F>::kSplit || Instance<__half, 128, F>::Splits(p) <= 1) &&
          PreferPrefetchGrid(p.seq_q, p.seq_k, p.causal)) {
        return bf16 ? fn(Instance<__nv_bfloat16, 128, F128>{}) : fn(Instance<__half, 128, F128>{});
      }
    }
    return bf16 ? fn(Instance<__nv_bfloat16, 128, F>{}) : fn(Instance<__half, 128, F>{});
  }
  return bf16 ? fn(Instance<__nv_bfloat16, 256, F>{}) : fn(Instance<__half, 256, F>{});
}

// The registry entry of a rung (feature set F; F64 at head dim 64). `required_sass`: the SASS
// opcodes its technique must compile to (the static audit fails the rung when one is missing).
template <unsigned F, unsigned F64 = F, unsigned F64Split = F64, unsigned F64Short = 0,
          unsigned F128 = F>
KernelEntry MakeEntry(KernelInfo info, std::vector<std::string> required_sass) {
  using C = Config<128, F>;
  KernelEntry e;
  info.family = Family::kAttentionFwd;
  info.min_sm = 90;
  info.exact_sm = 90;  // sm_90a code: compute capability 9.0 only
  info.tile = TileShape{C::kBM, C::kBN, 16, C::kThreads};
  info.required_sass = std::move(required_sass);
  e.info = std::move(info);
  e.attention_supports = [](const AttentionProblem& p) { return Supports(p, C::kBM); };
  e.attention_launch = [](const AttentionProblem& p, const AttentionArgs& a, cudaStream_t s) {
    return WithInstance<F, F64, F64Split, F64Short, F128>(
        p, [&](auto inst) { return inst.Launch(p, a, s); });
  };
  e.device_functions = [](const Problem& pr) {
    std::vector<DeviceFunction> out;
    if (const auto* p = std::get_if<AttentionProblem>(&pr);
        p != nullptr && Supports(*p, C::kBM).empty()) {
      out = WithInstance<F, F64, F64Split, F64Short, F128>(
          *p, [&](auto inst) { return inst.Describe(*p); });
    }
    return out;
  };
  return e;
}

}  // namespace flashscope::kernels::attn_sm90
