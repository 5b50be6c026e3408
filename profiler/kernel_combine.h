// How the per-kernel values of one metric become the value of a case that launches several
// kernels (the unfused cuBLAS peer, cuDNN's graphs). The range profiler measures one auto range
// per kernel, as Nsight Compute does, so that idle time between kernels and the launch overhead
// never dilute a "% of peak over elapsed cycles"; the case's value is then combined here.
#pragma once

#include <string>
#include <vector>

namespace flashscope::profiler {

enum class KernelCombine {
  kSum,           // counts and totals: "<counter>.sum" (bytes, instructions, ns of GPU time)
  kMax,           // "<counter>.max"
  kMin,           // "<counter>.min"
  kTimeWeighted,  // ratios, averages, rates and % of peak: weighted by each kernel's GPU time
};

// The rule for a hardware metric name, from its rollup and submetric (the parts after the first
// '.'): "dram__bytes.sum" -> kSum; "sm__throughput.avg.pct_of_peak_sustained_elapsed",
// "lts__t_sector_hit_rate.pct", "smsp__cycles_elapsed.avg.per_second" -> kTimeWeighted.
KernelCombine CombineRuleFor(const std::string& hw_name);

const char* CombineRuleName(KernelCombine rule);

// Combines `values[k]` (kernel k) under `rule`; `gpu_time_ns[k]` are the weights of
// kTimeWeighted (a plain mean when they sum to zero). One kernel returns its value unchanged.
// Empty input returns 0. The weighting is exact for "% of peak over elapsed cycles" (the elapsed
// cycles of a kernel are its time at the SM clock) and a GPU-time approximation for metrics
// normalised by active cycles or by request counts.
double CombineKernelValues(KernelCombine rule, const std::vector<double>& values,
                           const std::vector<double>& gpu_time_ns);

}  // namespace flashscope::profiler
