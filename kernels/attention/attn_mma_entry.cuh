// Host side of the mma.sync attention core: launch of one instantiation (dtype × head dim) and the
// registry entry a rung builds from its feature bits and per-head-dim tiles.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/attention/attn_mma_impl.cuh"
#include "kernels/registry.h"

namespace flashscope::kernels::attn_mma {

template <typename T, int D, class TL, unsigned F>
struct Instance {
  using S = Smem<T, D, TL, F>;
  static constexpr auto kKernel = &AttnMmaKernel<T, D, TL, F>;

  static std::string Name() {
    return std::string("AttnMmaKernel<") + (std::is_same_v<T, __half> ? "fp16" : "bf16") +
           ",D=" + std::to_string(D) + ",BM=" + std::to_string(TL::BM) +
           ",BN=" + std::to_string(TL::BN) + ",features=0x" + ToHex(F) + ">";
  }
  static std::string ToHex(unsigned v) {
    const char* digits = "0123456789abcdef";
    std::string s;
    do {
      s.insert(s.begin(), digits[v % 16]);
      v /= 16;
    } while (v != 0);
    return s;
  }

  static DeviceFunction Describe() {
    return DeviceFunction{reinterpret_cast<const void*>(kKernel), Name(), TL::THREADS, S::kBytes};
  }

  static cudaError_t Launch(const AttentionProblem& pr, const AttentionArgs& a,
                            cudaStream_t stream) {
    // Raising the dynamic shared-memory limit is a per-function attribute: set it once.
    static const cudaError_t attr = cudaFuncSetAttribute(
        kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(S::kBytes));
    if (attr != cudaSuccess) return attr;
    for (const void* ptr : {a.q, a.k, a.v, static_cast<const void*>(a.o)}) {
      // 16-byte vector loads/stores and cp.async need 16-byte aligned rows.
      if (reinterpret_cast<uintptr_t>(ptr) % 16 != 0) return cudaErrorMisalignedAddress;
    }
    Params p;
    p.q = a.q;
    p.k = a.k;
    p.v = a.v;
    p.o = a.o;
    p.lse = pr.want_lse ? a.lse : nullptr;
    p.seq_q = static_cast<int>(pr.seq_q);
    p.seq_k = static_cast<int>(pr.seq_k);
    p.scale = a.softmax_scale;
    p.causal = pr.causal ? 1 : 0;
    // kBugGridFloor: rounded down, the last partial query tile gets no block.
    const int64_t m_blocks =
        (F & kBugGridFloor) ? pr.seq_q / TL::BM : (pr.seq_q + TL::BM - 1) / TL::BM;
    const dim3 grid(static_cast<unsigned>(m_blocks), static_cast<unsigned>(pr.batch * pr.heads));
    kKernel<<<grid, TL::THREADS, S::kBytes, stream>>>(p);
    return cudaGetLastError();
  }
};

// Calls fn(Instance<...>{}) for the problem's dtype, head dim and masking (checked by Supports
// first). A rung may give head dim 128 a different tile when not causal (TL128NC): without the
// diagonal's partial tiles a taller query tile pays off there, while causal work prefers the
// shorter one (measured: docs/perf-notes.md).
template <unsigned F, class TL64, class TL128, class TL128NC, class Fn>
auto WithInstance(const AttentionProblem& p, Fn&& fn) {
  const bool tall = !p.causal && !std::is_same_v<TL128, TL128NC>;
  if (p.dtype == DType::kBF16) {
    if (p.head_dim == 64) return fn(Instance<__nv_bfloat16, 64, TL64, F>{});
    if (tall) return fn(Instance<__nv_bfloat16, 128, TL128NC, F>{});
    return fn(Instance<__nv_bfloat16, 128, TL128, F>{});
  }
  if (p.head_dim == 64) return fn(Instance<__half, 64, TL64, F>{});
  if (tall) return fn(Instance<__half, 128, TL128NC, F>{});
  return fn(Instance<__half, 128, TL128, F>{});
}

inline std::string Supports(const AttentionProblem& p) {
  if (p.dtype == DType::kF32) {
    return "fp32 inputs are not supported: mma.sync m16n8k16 takes fp16 or bf16 operands "
           "(use attn.a01_scalar or attn.a02_smem_tiled for fp32)";
  }
  if (p.head_dim != 64 && p.head_dim != 128) {
    return "head_dim " + std::to_string(p.head_dim) +
           " is not instantiated: the tensor-core rungs are compiled for head_dim 64 and 128";
  }
  if (p.batch < 1 || p.heads < 1 || p.seq_q < 1 || p.seq_k < 1) {
    return "empty problem: batch, heads, seq_q and seq_k must be >= 1";
  }
  if (p.batch * p.heads > 65535) {
    return "batch*heads = " + std::to_string(p.batch * p.heads) +
           " exceeds 65535, the grid's y limit (one block row per head)";
  }
  if (p.seq_q > (int64_t{1} << 30) || p.seq_k > (int64_t{1} << 30)) {
    return "sequence lengths above 2^30 are not supported (32-bit row indices)";
  }
  return "";
}

template <unsigned F, class TL64, class TL128, class TL128NC = TL128>
KernelEntry MakeEntry(KernelInfo info) {
  KernelEntry e;
  info.family = Family::kAttentionFwd;
  info.min_sm = 80;
  info.tile = TileShape{TL64::BM, TL64::BN, 16, TL64::THREADS};
  e.info = std::move(info);
  e.attention_supports = [](const AttentionProblem& p) { return Supports(p); };
  e.attention_launch = [](const AttentionProblem& p, const AttentionArgs& a, cudaStream_t s) {
    return WithInstance<F, TL64, TL128, TL128NC>(p,
                                                 [&](auto inst) { return inst.Launch(p, a, s); });
  };
  e.device_functions = [](const Problem& pr) {
    std::vector<DeviceFunction> out;
    if (const auto* p = std::get_if<AttentionProblem>(&pr); p != nullptr && Supports(*p).empty()) {
      out.push_back(
          WithInstance<F, TL64, TL128, TL128NC>(*p, [](auto inst) { return inst.Describe(); }));
    }
    return out;
  };
  return e;
}

}  // namespace flashscope::kernels::attn_mma
