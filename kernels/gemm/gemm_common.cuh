// Small helpers shared by the gemm rungs: the supports() checks they all start from and the
// registry entry of the plain rungs with its dtype dispatch. No kernel bodies here, so each rung
// file still reads as one complete kernel.
#pragma once

#include <cuda_fp16.h>

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

// fp32 or fp16 inputs, positive sizes that fit the kernels' 32-bit indices per dimension, and a
// grid whose y dimension (row tiles of `block_m` rows) stays within CUDA's 65535.
inline std::string GemmBasicSupport(const GemmProblem& g, int block_m) {
  if (g.dtype != DType::kF32 && g.dtype != DType::kF16) {
    return "gemm rungs take fp32 or fp16 inputs, not " + std::string(DTypeName(g.dtype));
  }
  if (g.m < 1 || g.n < 1 || g.k < 1) return "M, N and K must all be >= 1";
  if (g.m > INT32_MAX || g.n > INT32_MAX || g.k > INT32_MAX) {
    return "M, N and K must each fit in 32 bits";
  }
  if ((g.m + block_m - 1) / block_m > 65535) {
    return "M = " + std::to_string(g.m) + " needs more than 65535 row tiles of " +
           std::to_string(block_m) + " (grid y limit)";
  }
  return "";
}

// The hooks of a plain gemm rung (g01-g03: fp32 or fp16 inputs, GemmBasicSupport over row tiles
// of Rung::kBlockM) added to the entry `e` whose facts the rung filled in: each launch and
// description dispatched on the element type to static members of `Rung`,
// Rung::Launch<T>(problem, args, stream) and Rung::Describe<T>(problem).
template <class Rung>
KernelEntry BasicGemmEntry(KernelEntry e) {
  e.gemm_supports = [](const GemmProblem& g) { return GemmBasicSupport(g, Rung::kBlockM); };
  e.gemm_launch = [](const GemmProblem& g, const GemmArgs& a, cudaStream_t s) {
    return g.dtype == DType::kF16 ? Rung::template Launch<__half>(g, a, s)
                                  : Rung::template Launch<float>(g, a, s);
  };
  e.device_functions = [](const Problem& prob) -> std::vector<DeviceFunction> {
    const auto* g = std::get_if<GemmProblem>(&prob);
    if (g == nullptr || !GemmBasicSupport(*g, Rung::kBlockM).empty()) return {};
    return {g->dtype == DType::kF16 ? Rung::template Describe<__half>(*g)
                                    : Rung::template Describe<float>(*g)};
  };
  return e;
}

// The sizes every tensor-core rung takes: positive, up to 2^30 (their int index arithmetic adds
// tile sizes to coordinates).
inline std::string TensorCoreGemmSizes(const GemmProblem& p) {
  if (p.m < 1 || p.n < 1 || p.k < 1) return "empty problem: m, n and k must be >= 1";
  if (p.m > (int64_t{1} << 30) || p.n > (int64_t{1} << 30) || p.k > (int64_t{1} << 30)) {
    return "dimensions above 2^30 are not supported (32-bit indices)";
  }
  return "";
}

// The tensor-core rungs with one CTA per tile (g04, g05): fp16 inputs only (`why_fp16` ends the
// message for other types), TensorCoreGemmSizes, and row tiles of `block_m` within the grid's y
// limit.
inline std::string TensorCoreGemmSupport(const GemmProblem& p, int block_m,
                                         const std::string& why_fp16) {
  if (p.dtype != DType::kF16) {
    return std::string(DTypeName(p.dtype)) + " inputs are not supported: " + why_fp16;
  }
  if (std::string why = TensorCoreGemmSizes(p); !why.empty()) return why;
  if ((p.m + block_m - 1) / block_m > 65535) {
    return "m too large: more than 65535 row tiles of " + std::to_string(block_m);
  }
  return "";
}

}  // namespace flashscope::kernels
