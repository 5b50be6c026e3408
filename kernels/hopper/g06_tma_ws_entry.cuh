// What the entries of the TMA + warp-specialised GEMM rungs (g06, g07) share: the plan a problem
// runs (its path, tile width and cluster size), its dispatch to one instantiation, the device
// function it reports, the supports rule and the entry's hooks. Each rung keeps its own rule for
// the TMA tile width and its facts; kSplitTail selects g07's kernel.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "kernels/gemm/gemm_common.cuh"
#include "kernels/hopper/g06_tma_ws_host.cuh"
#include "kernels/hopper/tensor_map.h"
#include "kernels/registry.h"

namespace flashscope::kernels::g06 {

// Which kernel a problem runs: the TMA path (tile width bn, clusters of `cluster` CTAs sharing B,
// or A where share_a: g08; `wg` consumer warpgroups of 64 rows each, 3 for g09's 192-row tiles)
// or the element-copying producer with 128x128 tiles.
struct Plan {
  bool tma = false;
  int bn = 128;
  int cluster = 1;
  bool share_a = false;
  int wg = 2;
};

using ShapePlanFn = Plan (*)(const GemmProblem&);

// Which kernel a problem's shape runs, given the rung's rule for the width of its TMA tiles: the
// TMA path when K and N make 16-byte rows (tiles kTmaWidth(p) wide; clusters of two CTAs sharing B
// for large problems); otherwise the element-copying producer with 128x128 tiles. Misaligned
// operands also take the element-copy producer (ForOperands, at launch).
template <int (*kTmaWidth)(const GemmProblem&)>
Plan ShapePlan(const GemmProblem& p) {
  Plan plan;
  plan.tma = p.k % 8 == 0 && p.n % 8 == 0;
  plan.bn = plan.tma ? kTmaWidth(p) : 128;
  plan.cluster = plan.tma ? ClusterSize(p, plan.bn) : 1;
  return plan;
}

// The shape's plan unless an operand is not TMA-addressable (misaligned): then the element-copy
// producer. The shape rule alone assumes the runner's cudaMalloc'd, 256-byte-aligned buffers.
inline Plan ForOperands(const Plan& shape_plan, const GemmProblem& p, const void* a,
                        const void* b) {
  if (!hopper::TmaAddressable(a, p.k * 2).empty() || !hopper::TmaAddressable(b, p.n * 2).empty()) {
    return Plan{};
  }
  return shape_plan;
}

// kStagedC (g12): the plan's tiles with C staged through shared memory (G12StagedCKernel) in parts
// of kStagedPartCols columns; only a rung that stages instantiates those kernels.
template <typename T, bool kSplitTail, int kBN, bool kTall, bool kStagedC = false>
cudaError_t LaunchTmaPlan(const GemmProblem& p, const GemmArgs& a, const Plan& plan,
                          const Maps& maps, cudaStream_t stream) {
  if constexpr (kStagedC) {
    static_assert(!kSplitTail && !kTall, "g12 stages g06's tiles");
    return plan.cluster == 2
               ? LaunchTyped<T, kBN, true, 2, false, false, 2, kStagedPartCols>(p, a, maps, stream)
               : LaunchTyped<T, kBN, true, 1, false, false, 2, kStagedPartCols>(p, a, maps, stream);
  }
  if constexpr (!kSplitTail) {
    if (plan.share_a) return LaunchTyped<T, kBN, true, 2, false, true>(p, a, maps, stream);
    if constexpr (kTall && kBN == 192) {  // g09's tiles: 192 x 192 only
      if (plan.wg == 3) {
        return plan.cluster == 2
                   ? LaunchTyped<T, kBN, true, 2, false, false, 3>(p, a, maps, stream)
                   : LaunchTyped<T, kBN, true, 1, false, false, 3>(p, a, maps, stream);
      }
    }
  }
  return plan.cluster == 2 ? LaunchTyped<T, kBN, true, 2, kSplitTail>(p, a, maps, stream)
                           : LaunchTyped<T, kBN, true, 1, kSplitTail>(p, a, maps, stream);
}

// The instantiation `plan` names. The element-copy path is g06's kernel, unsplit, for both rungs;
// g07 has no 128x192 or 128x64 tiles.
template <typename T, bool kSplitTail, bool kTall = false, bool kStagedC = false>
cudaError_t LaunchPlanTyped(const GemmProblem& p, const GemmArgs& a, const Plan& plan,
                            const Maps& maps, cudaStream_t stream) {
  if (!plan.tma) return LaunchTyped<T, 128, false, 1>(p, a, maps, stream);
  if (plan.bn == 256) {
    return LaunchTmaPlan<T, kSplitTail, 256, kTall, kStagedC>(p, a, plan, maps, stream);
  }
  if constexpr (kSplitTail) {
    return LaunchTmaPlan<T, kSplitTail, 128, kTall>(p, a, plan, maps, stream);
  } else {
    if (plan.bn == 192) {
      return LaunchTmaPlan<T, kSplitTail, 192, kTall, kStagedC>(p, a, plan, maps, stream);
    }
    if (plan.bn == 128) {
      return LaunchTmaPlan<T, kSplitTail, 128, kTall, kStagedC>(p, a, plan, maps, stream);
    }
    return LaunchTmaPlan<T, kSplitTail, 64, kTall, kStagedC>(p, a, plan, maps, stream);
  }
}

// Launches `plan`, encoding the tensor maps first on the TMA path; `id` (the kernel's) starts the
// message of maps that cannot be encoded.
template <bool kSplitTail, bool kTall = false, bool kStagedC = false>
cudaError_t LaunchPlan(const GemmProblem& p, const GemmArgs& a, const Plan& plan,
                       cudaStream_t stream, const char* id) {
  Maps maps;
  if (plan.tma) {
    if (const std::string why = MapsFor(p, a, plan.bn, &maps, plan.share_a, 64 * plan.wg);
        !why.empty()) {
      std::fprintf(stderr, "%s: %s\n", id, why.c_str());
      return cudaErrorInvalidValue;
    }
  }
  return p.dtype == DType::kBF16
             ? LaunchPlanTyped<__nv_bfloat16, kSplitTail, kTall, kStagedC>(p, a, plan, maps, stream)
             : LaunchPlanTyped<__half, kSplitTail, kTall, kStagedC>(p, a, plan, maps, stream);
}

// The profiler's name of one instantiation: "G06TmaWsKernel<bf16, 256, tma, cluster 2>",
// "G07SplitTailKernel<fp16, 128, cluster 1>", "G08SharedAKernel<bf16, 192, cluster 2>" or
// "G09TallTileKernel<bf16, 192x192, cluster 2>".
template <typename T, int kBN, bool kTma, int kCluster, bool kSplitTail, bool kShareA = false,
          int kWG = 2, int kCPart = 0>
DeviceFunction DescribeKernel() {
  const std::string type = std::is_same_v<T, __half> ? "fp16" : "bf16";
  const std::string width =
      kWG == 3 ? std::to_string(Roles<kWG>::kBM) + "x" + std::to_string(kBN) : std::to_string(kBN);
  const std::string shape =
      width + ", " +
      (kSplitTail || kShareA || kWG == 3 || kCPart ? "" : (kTma ? "tma, " : "copy, ")) +
      "cluster " + std::to_string(kCluster);
  const char* const kernel = kCPart       ? "G12StagedCKernel<"
                             : kWG == 3   ? "G09TallTileKernel<"
                             : kShareA    ? "G08SharedAKernel<"
                             : kSplitTail ? "G07SplitTailKernel<"
                                          : "G06TmaWsKernel<";
  return {reinterpret_cast<const void*>(
              KernelOf<T, kBN, kTma, kCluster, kSplitTail, kShareA, kWG, kCPart>()),
          std::string(kernel) + type + ", " + shape + ">", Roles<kWG>::kThreads,
          Layout<kBN, kWG, kCPart>::kSmemBytes};
}

template <typename T, bool kSplitTail, int kBN, bool kTall, bool kStagedC = false>
DeviceFunction DescribeTmaPlan(const Plan& plan) {
  if constexpr (kStagedC) {
    return plan.cluster == 2 ? DescribeKernel<T, kBN, true, 2, false, false, 2, kStagedPartCols>()
                             : DescribeKernel<T, kBN, true, 1, false, false, 2, kStagedPartCols>();
  }
  if constexpr (!kSplitTail) {
    if (plan.share_a) return DescribeKernel<T, kBN, true, 2, false, true>();
    if constexpr (kTall && kBN == 192) {
      if (plan.wg == 3) {
        return plan.cluster == 2 ? DescribeKernel<T, kBN, true, 2, false, false, 3>()
                                 : DescribeKernel<T, kBN, true, 1, false, false, 3>();
      }
    }
  }
  return plan.cluster == 2 ? DescribeKernel<T, kBN, true, 2, kSplitTail>()
                           : DescribeKernel<T, kBN, true, 1, kSplitTail>();
}

// The device function LaunchPlanTyped launches for `plan`.
template <typename T, bool kSplitTail, bool kTall = false, bool kStagedC = false>
DeviceFunction DescribePlan(const Plan& plan) {
  if (!plan.tma) return DescribeKernel<T, 128, false, 1, false>();
  if (plan.bn == 256) return DescribeTmaPlan<T, kSplitTail, 256, kTall, kStagedC>(plan);
  if constexpr (kSplitTail) {
    return DescribeTmaPlan<T, kSplitTail, 128, kTall>(plan);
  } else {
    if (plan.bn == 192) return DescribeTmaPlan<T, kSplitTail, 192, kTall, kStagedC>(plan);
    if (plan.bn == 128) return DescribeTmaPlan<T, kSplitTail, 128, kTall, kStagedC>(plan);
    return DescribeTmaPlan<T, kSplitTail, 64, kTall, kStagedC>(plan);
  }
}

// Empty when the rung (`rung`: "g06") runs the problem: fp16 or bf16 operands, sizes the
// tensor-core GEMMs take (the 1-D persistent grid has no y limit).
inline std::string WgmmaGemmSupports(const GemmProblem& p, const char* rung) {
  if (p.dtype != DType::kF16 && p.dtype != DType::kBF16) {
    return std::string(DTypeName(p.dtype)) + " inputs are not supported: " + rung +
           " issues wgmma with fp16 or bf16 operands (use gemm.g01..g03 for fp32)";
  }
  return TensorCoreGemmSizes(p);
}

// The entry of a rung, from `e` with its facts (e.info; family, architecture, the widest tile and
// required SASS filled in here): WgmmaGemmSupports naming the rung (`rung`: "g06"), the launch of
// ForOperands(kShapePlan(problem)) and the device function of kShapePlan's plan (the runner's
// buffers are TMA-addressable). kTall (g09): the plan may name 192 x 192 tiles on three consumer
// warpgroups (Plan::wg 3), whose kernels only such a rung instantiates.
template <bool kSplitTail, ShapePlanFn kShapePlan, bool kTall = false>
KernelEntry TmaWsEntry(KernelEntry e, const char* rung) {
  const auto supports = [rung](const GemmProblem& p) { return WgmmaGemmSupports(p, rung); };
  e.info.family = Family::kGemm;
  e.info.min_sm = 90;
  e.info.exact_sm = 90;  // sm_90a code: compute capability 9.0 only
  e.info.tile = TileShape{kBM, 256, kBK, kThreads};
  e.info.required_sass = {"HGMMA", "UTMALDG", "SYNCS", "USETMAXREG"};
  e.gemm_supports = supports;
  e.gemm_launch = [id = e.info.id](const GemmProblem& p, const GemmArgs& a, cudaStream_t stream) {
    return LaunchPlan<kSplitTail, kTall>(p, a, ForOperands(kShapePlan(p), p, a.a, a.b), stream,
                                         id.c_str());
  };
  e.device_functions = [supports](const Problem& pr) {
    std::vector<DeviceFunction> out;
    if (const auto* p = std::get_if<GemmProblem>(&pr); p != nullptr && supports(*p).empty()) {
      const Plan plan = kShapePlan(*p);
      out.push_back(p->dtype == DType::kBF16 ? DescribePlan<__nv_bfloat16, kSplitTail, kTall>(plan)
                                             : DescribePlan<__half, kSplitTail, kTall>(plan));
    }
    return out;
  };
  return e;
}

}  // namespace flashscope::kernels::g06
