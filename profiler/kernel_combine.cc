#include "profiler/kernel_combine.h"

#include <algorithm>

namespace flashscope::profiler {

KernelCombine CombineRuleFor(const std::string& hw_name) {
  const size_t dot = hw_name.find('.');
  if (dot == std::string::npos) return KernelCombine::kTimeWeighted;
  const std::string rest = hw_name.substr(dot + 1);  // rollup[.submetric]
  if (rest == "sum") return KernelCombine::kSum;
  if (rest == "max") return KernelCombine::kMax;
  if (rest == "min") return KernelCombine::kMin;
  return KernelCombine::kTimeWeighted;
}

const char* CombineRuleName(KernelCombine rule) {
  switch (rule) {
    case KernelCombine::kSum:
      return "sum";
    case KernelCombine::kMax:
      return "max";
    case KernelCombine::kMin:
      return "min";
    case KernelCombine::kTimeWeighted:
      return "gpu-time-weighted mean";
  }
  return "unknown";
}

double CombineKernelValues(KernelCombine rule, const std::vector<double>& values,
                           const std::vector<double>& gpu_time_ns) {
  if (values.empty()) return 0;
  if (values.size() == 1) return values[0];
  switch (rule) {
    case KernelCombine::kSum: {
      double s = 0;
      for (double v : values) s += v;
      return s;
    }
    case KernelCombine::kMax:
      return *std::max_element(values.begin(), values.end());
    case KernelCombine::kMin:
      return *std::min_element(values.begin(), values.end());
    case KernelCombine::kTimeWeighted:
      break;
  }
  double weighted = 0, total = 0, plain = 0;
  for (size_t k = 0; k < values.size(); ++k) {
    const double w = k < gpu_time_ns.size() ? gpu_time_ns[k] : 0;
    weighted += w * values[k];
    total += w;
    plain += values[k];
  }
  return total > 0 ? weighted / total : plain / static_cast<double>(values.size());
}

}  // namespace flashscope::profiler
