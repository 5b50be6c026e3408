// Small helpers shared by the attention_fwd rungs: the checks every rung's supports() starts from,
// grid limits, the softmax scale and warp reductions (element conversions: common/
// element_convert.cuh; launch checks: kernels/launch_util.h). Kept free of Abseil (nvcc compiles
// it) and of any kernel body, so that each rung file still reads as one complete kernel.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "common/element_convert.cuh"
#include "common/problem.h"
#include "kernels/launch_util.h"
#include "kernels/registry.h"

namespace flashscope::kernels {

// ---- problem checks ----

// Grid limits of the attention rungs: blockIdx.x runs over query tiles, y over heads, z over the
// batch; CUDA caps y and z at 65535.
inline constexpr int64_t kMaxGridYZ = 65535;

// The checks every rung of this ladder shares: fp16/bf16 inputs, head_dim 64 or 128, positive
// shapes within the grid limits. Returns "" when fine, else the reason naming the fix.
inline std::string AttentionBasicSupport(const AttentionProblem& p) {
  if (p.dtype != DType::kF16 && p.dtype != DType::kBF16) {
    return "attention rungs take fp16 or bf16 inputs, not " + std::string(DTypeName(p.dtype));
  }
  if (p.head_dim != 64 && p.head_dim != 128) {
    return "head_dim " + std::to_string(p.head_dim) +
           " is not supported: this kernel is compiled for head_dim 64 and 128";
  }
  if (p.batch < 1 || p.heads < 1 || p.seq_q < 1 || p.seq_k < 1) {
    return "batch, heads, seq_q and seq_k must all be >= 1";
  }
  if (p.heads > kMaxGridYZ || p.batch > kMaxGridYZ) {
    return "batch and heads must each be <= 65535 (grid y/z limit); got B=" +
           std::to_string(p.batch) + ", H=" + std::to_string(p.heads);
  }
  if (p.seq_q > INT32_MAX || p.seq_k > INT32_MAX) {
    return "seq_q and seq_k must fit in 32 bits";
  }
  return "";
}

// The scale the rungs apply to Q·Kᵀ: the caller's, or 1/sqrt(head_dim) when left at 0 (the
// AttentionArgs default), which is what every problem of this toolkit asks for.
inline float EffectiveSoftmaxScale(const AttentionProblem& p, const AttentionArgs& a) {
  return a.softmax_scale != 0.f ? a.softmax_scale
                                : 1.0f / std::sqrt(static_cast<float>(p.head_dim));
}

// Device-side form of AttentionProblem::CausalKeyEnd: the exclusive end of the keys query row `i`
// may see (bottom-right aligned), clamped to [0, seq_k].
__device__ __forceinline__ int CausalKeyEndDev(int i, int seq_q, int seq_k, bool causal) {
  if (!causal) return seq_k;
  const long long end = static_cast<long long>(i) + seq_k - seq_q + 1;
  return end < 0 ? 0 : (end > seq_k ? seq_k : static_cast<int>(end));
}

// ---- the host side of the basic rungs (a01-a04) ----

// The instance of a rung that a problem selects: its element type and head dimension carried by
// a value, so that one generic lambda can launch or describe any of a rung's four instances
// (a rung's LaunchTyped and Describe take it and deduce T and D from it).
template <typename T, int D>
struct ElementAndHeadDim {};

// Calls fn(ElementAndHeadDim<T, D>{}) for the problem's element type (fp16 or bf16) and head_dim
// (64 or 128); AttentionBasicSupport has accepted the problem first.
template <class Fn>
auto WithElementAndHeadDim(const AttentionProblem& p, Fn&& fn) {
  const bool f16 = p.dtype == DType::kF16;
  if (p.head_dim == 64) {
    return f16 ? fn(ElementAndHeadDim<__half, 64>{}) : fn(ElementAndHeadDim<__nv_bfloat16, 64>{});
  }
  return f16 ? fn(ElementAndHeadDim<__half, 128>{}) : fn(ElementAndHeadDim<__nv_bfloat16, 128>{});
}

// The kernel signature of the tiled basic rungs (a02-a04): Q, K, V, O, lse (or null), heads,
// seq_q, seq_k, causal, scale; blockIdx.x runs over query tiles, y over heads, z over the batch.
template <typename T>
using TiledRungKernel = void (*)(const T*, const T*, const T*, T*, float*, int, int, int, bool,
                                 float);

// Launches a tiled rung's kernel over ceil(seq_q / block_m) × heads × batch blocks of `threads`
// with `smem_bytes` of dynamic shared memory (opted into when above the default cap).
template <typename T>
cudaError_t LaunchTiledRung(TiledRungKernel<T> kernel, int block_m, int threads, size_t smem_bytes,
                            const AttentionProblem& p, const AttentionArgs& a,
                            cudaStream_t stream) {
  const void* func = reinterpret_cast<const void*>(kernel);
  if (cudaError_t err = AllowDynamicSmem(func, smem_bytes); err != cudaSuccess) return err;
  const dim3 grid(static_cast<unsigned>((p.seq_q + block_m - 1) / block_m),
                  static_cast<unsigned>(p.heads), static_cast<unsigned>(p.batch));
  kernel<<<grid, threads, smem_bytes, stream>>>(
      static_cast<const T*>(a.q), static_cast<const T*>(a.k), static_cast<const T*>(a.v),
      static_cast<T*>(a.o), p.want_lse ? a.lse : nullptr, static_cast<int>(p.heads),
      static_cast<int>(p.seq_q), static_cast<int>(p.seq_k), p.causal, EffectiveSoftmaxScale(p, a));
  return LaunchResult();
}

// The device function of one instance of a basic rung: its kernel, named "<rung><fp16,64>" (the
// element type and head dimension), launched with `threads` and `smem_bytes` of dynamic smem.
template <typename T, int D, class KernelFn>
DeviceFunction RungFunction(KernelFn* kernel, const char* rung, int threads, size_t smem_bytes) {
  return {reinterpret_cast<const void*>(kernel),
          std::string(rung) + "<" + ElementName<T>() + "," + std::to_string(D) + ">", threads,
          smem_bytes};
}

// The entry of a rung that takes what AttentionBasicSupport accepts, on any sm_80+ GPU: `info`'s
// facts (family and architecture filled in here) and the rung's hooks for the one instance a
// problem selects, static members of `Rung` each given an ElementAndHeadDim<T, D>:
// Rung::Launch(instance, problem, args, stream) and Rung::Describe(instance).
template <class Rung>
KernelEntry BasicRungEntry(KernelInfo info) {
  KernelEntry e;
  e.info = std::move(info);
  e.info.family = Family::kAttentionFwd;
  e.info.min_sm = 80;
  e.attention_supports = [](const AttentionProblem& p) { return AttentionBasicSupport(p); };
  e.attention_launch = [](const AttentionProblem& p, const AttentionArgs& a, cudaStream_t s) {
    return WithElementAndHeadDim(p, [&](auto instance) { return Rung::Launch(instance, p, a, s); });
  };
  e.device_functions = [](const Problem& prob) -> std::vector<DeviceFunction> {
    const auto* p = std::get_if<AttentionProblem>(&prob);
    if (p == nullptr || !AttentionBasicSupport(*p).empty()) return {};
    return {WithElementAndHeadDim(*p, [](auto instance) { return Rung::Describe(instance); })};
  };
  return e;
}

// The a01 scalar kernel over only the first `rows` of the B·H·Sq flattened query rows (all rows
// when rows >= B·H·Sq); defined in a01_scalar.cu. The test-only "half output" kernel uses it to
// write a correct first half of O and leave the rest untouched.
cudaError_t LaunchScalarAttentionRows(const AttentionProblem& p, const AttentionArgs& a,
                                      int64_t rows, cudaStream_t stream);

// Warp-wide reductions over all 32 lanes.
__device__ __forceinline__ float WarpMax(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ float WarpSum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

}  // namespace flashscope::kernels
