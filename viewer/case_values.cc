#include "viewer/case_values.h"

#include <cstdio>

namespace flashscope::viewer {
namespace {

bool Contains(const std::string& s, const char* needle) {
  return s.find(needle) != std::string::npos;
}

bool Matches(const reports::MetricRecord& m, MetricKind kind) {
  switch (kind) {
    case MetricKind::kTensorPipe:
      return Contains(m.name, "tensor") || Contains(m.hw_name, "pipe_tensor");
    case MetricKind::kShared:
      return (Contains(m.name, "shared") && !Contains(m.name, "conflict")) ||
             Contains(m.hw_name, "mem_shared.sum.pct");
    case MetricKind::kDram:
      return Contains(m.name, "dram") || Contains(m.hw_name, "dram__throughput");
    case MetricKind::kOccupancy:
      return Contains(m.name, "occupancy") || Contains(m.hw_name, "warps_active.avg.pct");
  }
  return false;
}

}  // namespace

std::optional<double> FindMetric(const reports::CaseResult& c, MetricKind kind) {
  if (!c.profile || !c.profile->available) return std::nullopt;
  for (const auto& m : c.profile->metrics) {
    if (!Matches(m, kind)) continue;
    // An occupancy given as a fraction is shown in percent like the other columns.
    if (kind == MetricKind::kOccupancy && m.unit != "%" && m.value <= 1.0) return m.value * 100;
    return m.value;
  }
  return std::nullopt;
}

std::optional<double> MedianMs(const reports::CaseResult& c) {
  if (!c.timing) return std::nullopt;
  return c.timing->median_ms;
}

std::optional<double> Tflops(const reports::CaseResult& c) {
  if (!c.throughput) return std::nullopt;
  return c.throughput->tflops;
}

std::optional<double> PctPeak(const reports::CaseResult& c) {
  if (!c.throughput) return std::nullopt;
  return c.throughput->pct_peak_flops;
}

std::optional<double> MaxAbsError(const reports::CaseResult& c) {
  if (!c.verification || !c.verification->ran) return std::nullopt;
  return c.verification->stats.max_abs;
}

std::string VerdictText(const reports::CaseResult& c) {
  if (!c.verification || !c.verification->ran) return "not verified";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s %.2fx", c.verification->passed ? "pass" : "FAIL",
                c.verification->ratio_to_baseline);
  return buf;
}

bool IsPeer(const std::string& kernel_id) { return kernel_id.rfind("peer.", 0) == 0; }

std::string DtypeOf(const reports::CaseResult& c) {
  auto it = c.params.find("dtype");
  if (it != c.params.end()) return it->second;
  for (const char* d : {"bf16", "fp16", "fp32"}) {
    if (Contains(c.problem_key, d)) return d;
  }
  return "";
}

double PeakTflopsFor(const reports::Environment& env, const std::string& dtype) {
  if (dtype == "bf16") return env.peaks.matmul_bf16_tflops;
  if (dtype == "fp16") return env.peaks.matmul_fp16_tflops;
  return 0;  // no fp32 peak is measured; the roofline then shows no compute ceiling for it
}

}  // namespace flashscope::viewer
