// g10's row bands (g10_row_bands.cu has the rung, its intent and measurements): the plan that
// splits C into two row bands, each launched with its own tile width where g06's wave-time model
// prices that lower than one launch, the launch of a plan and its device functions. g11 runs its
// padded problems through them.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "kernels/hopper/g06_tma_ws_entry.cuh"
#include "kernels/hopper/g06_tma_ws_host.cuh"

namespace flashscope::kernels::g10 {

using g06::Plan;

// The least predicted gain, net of the second launch's cost, for which two bands are taken: the
// model's error (it prices whole rounds and operand bytes only).
constexpr double kBandGain = 0.03;

// A second launch's cost in the model's units (one 128-row column's time over K): ~5 us (the gap
// between the launches, the second grid's prologue and the first one's uneven last round)
// against a column's 2·128·K FLOPs at the model's 128 x 256 rate, 782 TFLOPS over 132 SMs (g06
// at 8192^3 bf16, H200). 23 units at 5000^3 (of 1,792), 113 at K = 1024: small problems keep
// one launch. (3 us split 2200 x 1840 x 2048 and measured -8 %: session 11, device call 4.)
inline double SecondLaunchCost(const GemmProblem& p) {
  constexpr double kSecondLaunchUs = 5.0, kSmFlopsPerUs = 782e6 / 132;
  return kSecondLaunchUs * kSmFlopsPerUs / (2.0 * g06::kBM * static_cast<double>(p.k));
}

// Two row bands: rows [0, top_rows) with top's plan, the rest with bottom's; top_rows == m: one.
struct Bands {
  int64_t top_rows = 0;
  Plan top, bottom;
};

inline GemmProblem RowsOf(const GemmProblem& p, int64_t rows) {
  GemmProblem band = p;
  band.m = rows;
  return band;
}

inline Plan TmaPlan(const GemmProblem& band, int bn) {
  Plan plan;
  plan.tma = true;
  plan.bn = bn;
  plan.cluster = g06::ClusterSize(band, bn);
  return plan;
}

// A band's tile widths: not 128 x 64, which the model prices per operand byte only; a band of few
// such tiles runs at one CTA's load latency (2200 x 1840 x 2048 split as 128 rows of 128 x 64 over
// the rest in 128 x 256 measured -8 % against g06 where the model said +3.6 %, session 11 call 4).
constexpr int kBandWidths[] = {256, 192, 128};

// g06's plan, or the two bands the wave-time model prices (with the second launch's cost) at least
// kBandGain below it.
inline Bands PlanBands(const GemmProblem& p) {
  const Plan single = g06::ShapePlan<g06::PredictedBestWidth>(p);
  Bands best{p.m, single, single};
  if (!single.tma) return best;
  const double single_time = g06::PredictedTime(p, single.bn);
  double best_time = (1.0 - kBandGain) * single_time;
  const double second_launch = SecondLaunchCost(p);
  for (int64_t m1 = g06::kBM; m1 < p.m; m1 += g06::kBM) {
    const GemmProblem top = RowsOf(p, m1), bottom = RowsOf(p, p.m - m1);
    for (int bn_top : kBandWidths) {
      const double top_time = g06::PredictedTime(top, bn_top);
      for (int bn_bottom : kBandWidths) {
        const double t = top_time + g06::PredictedTime(bottom, bn_bottom) + second_launch;
        if (t < best_time) {
          best_time = t;
          best = Bands{m1, TmaPlan(top, bn_top), TmaPlan(bottom, bn_bottom)};
        }
      }
    }
  }
  return best;
}

// PlanBands remembered per shape (it depends on M, N, K and the process's SM count only): the
// launch and device_functions ask for the same plan on every launch, and pricing it takes
// M/128 x 9 model evaluations. A sweep of very many shapes starts the memory over at 4,096.
inline Bands CachedPlanBands(const GemmProblem& p) {
  static std::mutex mu;
  static std::map<std::tuple<int64_t, int64_t, int64_t>, Bands> plans;
  const auto key = std::make_tuple(p.m, p.n, p.k);
  std::lock_guard<std::mutex> lock(mu);
  auto it = plans.find(key);
  if (it == plans.end()) {
    if (plans.size() >= 4096) plans.clear();
    it = plans.emplace(key, PlanBands(p)).first;
  }
  return it->second;
}

// The bottom band's operands: A and C from row `rows` on (B whole).
inline GemmArgs FromRow(const GemmProblem& p, const GemmArgs& a, int64_t rows) {
  GemmArgs band = a;
  band.a = static_cast<const char*>(a.a) + rows * p.k * 2;
  band.c = a.c + rows * p.n;
  return band;
}

// kStagedC (g12): the bands' kernels stage C through shared memory for TMA stores.
template <bool kStagedC = false>
cudaError_t LaunchBands(const GemmProblem& p, const GemmArgs& a, cudaStream_t stream,
                        const char* id) {
  const Bands bands = CachedPlanBands(p);
  const Plan single = g06::ForOperands(bands.top, p, a.a, a.b);
  if (bands.top_rows == p.m || !single.tma) {
    return g06::LaunchPlan</*kSplitTail=*/false, false, kStagedC>(p, a, single, stream, id);
  }
  const cudaError_t top =
      g06::LaunchPlan<false, false, kStagedC>(RowsOf(p, bands.top_rows), a, bands.top, stream, id);
  if (top != cudaSuccess) return top;
  return g06::LaunchPlan<false, false, kStagedC>(
      RowsOf(p, p.m - bands.top_rows), FromRow(p, a, bands.top_rows), bands.bottom, stream, id);
}

template <bool kStagedC = false>
DeviceFunction Describe(const GemmProblem& p, const Plan& plan) {
  return p.dtype == DType::kBF16 ? g06::DescribePlan<__nv_bfloat16, false, false, kStagedC>(plan)
                                 : g06::DescribePlan<__half, false, false, kStagedC>(plan);
}

// The device functions LaunchBands runs for `p` (TMA path: one or two, in launch order).
template <bool kStagedC = false>
std::vector<DeviceFunction> DescribeBands(const GemmProblem& p) {
  const Bands bands = CachedPlanBands(p);
  std::vector<DeviceFunction> out{Describe<kStagedC>(p, bands.top)};
  if (bands.top_rows == p.m) return out;
  const DeviceFunction bottom = Describe<kStagedC>(p, bands.bottom);
  if (bottom.func != out[0].func) out.push_back(bottom);
  return out;
}

}  // namespace flashscope::kernels::g10
