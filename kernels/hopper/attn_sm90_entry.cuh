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

  static DeviceFunction Describe() {
    return DeviceFunction{reinterpret_cast<const void*>(kKernel), Name(), C::kThreads,
                          C::kSmemBytes};
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
    const int64_t n_m = (pr.seq_q + C::kBM - 1) / C::kBM;
    Params p;
    p.o = a.o;
    p.lse = pr.want_lse ? a.lse : nullptr;
    p.seq_q = static_cast<int>(pr.seq_q);
    p.seq_k = static_cast<int>(pr.seq_k);
    p.scale = EffectiveSoftmaxScale(pr, a);
    p.causal = pr.causal ? 1 : 0;
    p.n_m_blocks = static_cast<int>(n_m);
    p.bh_count = pr.batch * pr.heads;
    int64_t ctas = n_m * p.bh_count;
    if constexpr (C::kPersist) {
      // One CTA per SM (shared memory and registers allow no second), each walking its share of
      // TileSchedule's units; fewer CTAs when there are fewer units.
      const int64_t units = (pr.causal ? (n_m + 1) / 2 : n_m) * p.bh_count;
      const int sms = MultiprocessorCount();
      if (sms <= 0) return cudaErrorInvalidDevice;
      ctas = units < sms ? units : sms;
    }
    const dim3 grid(static_cast<unsigned>(ctas));
    kKernel<<<grid, C::kThreads, C::kSmemBytes, stream>>>(maps.q, maps.k, maps.v, p);
    return cudaGetLastError();
  }
};

// Calls fn(Instance<...>{}) for the problem's dtype and head dim (checked by Supports first);
// head dim 64 takes the feature set F64 (a rung may schedule it differently).
template <unsigned F, unsigned F64, class Fn>
auto WithInstance(const AttentionProblem& p, Fn&& fn) {
  const bool bf16 = p.dtype == DType::kBF16;
  if (p.head_dim == 64) {
    return bf16 ? fn(Instance<__nv_bfloat16, 64, F64>{}) : fn(Instance<__half, 64, F64>{});
  }
  if (p.head_dim == 128) {
    return bf16 ? fn(Instance<__nv_bfloat16, 128, F>{}) : fn(Instance<__half, 128, F>{});
  }
  return bf16 ? fn(Instance<__nv_bfloat16, 256, F>{}) : fn(Instance<__half, 256, F>{});
}

// The registry entry of a rung (feature set F; F64 at head dim 64). `required_sass`: the SASS
// opcodes its technique must compile to (the static audit fails the rung when one is missing).
template <unsigned F, unsigned F64 = F>
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
    return WithInstance<F, F64>(p, [&](auto inst) { return inst.Launch(p, a, s); });
  };
  e.device_functions = [](const Problem& pr) {
    std::vector<DeviceFunction> out;
    if (const auto* p = std::get_if<AttentionProblem>(&pr);
        p != nullptr && Supports(*p, C::kBM).empty()) {
      out.push_back(WithInstance<F, F64>(*p, [](auto inst) { return inst.Describe(); }));
    }
    return out;
  };
  return e;
}

}  // namespace flashscope::kernels::attn_sm90
