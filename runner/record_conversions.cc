#include "runner/record_conversions.h"

#include "absl/strings/str_cat.h"
#include "verify/problem_costs.h"

namespace flashscope::runner {

reports::Environment ToEnvironment(const profiler::DeviceInfo& d) {
  reports::Environment e;
  e.gpu_name = d.name;
  e.sm_count = d.sm_count;
  e.compute_capability = d.cc;
  e.l2_bytes = d.l2_bytes;
  e.memory_bytes = d.memory_bytes;
  e.sm_clock_mhz = d.sm_clock_mhz;
  e.memory_clock_mhz = d.memory_clock_mhz;
  e.memory_bus_bits = d.memory_bus_bits;
  e.driver_version = d.driver_version;
  e.cuda_runtime_version = d.runtime_version;
  return e;
}

reports::DeviceRecord ToDevice(const profiler::DeviceInfo& d, int index) {
  reports::DeviceRecord r;
  r.index = index;
  r.uuid = d.uuid;
  r.pci_bus_id = d.pci_bus_id;
  r.name = d.name;
  r.compute_capability = d.cc;
  r.sm_count = d.sm_count;
  r.memory_bytes = d.memory_bytes;
  r.sm_clock_mhz = d.sm_clock_mhz;
  r.driver_version = d.driver_version;
  return r;
}

reports::VerificationRecord ToVerificationRecord(const verify::VerificationResult& v) {
  reports::VerificationRecord r;
  r.ran = true;
  r.passed = v.verdict.passed;
  r.rule = v.verdict.rule;
  r.reference = v.reference_name;
  r.atol = v.policy.atol;
  r.rtol = v.policy.rtol;
  r.stats = v.stats;
  if (v.has_baseline) {
    r.baseline_max_abs = v.baseline.max_abs;
    r.ratio_to_baseline = v.baseline.max_abs > 0 ? v.stats.max_abs / v.baseline.max_abs : 0;
  }
  r.heatmaps = v.heatmaps;
  return r;
}

reports::TimingRecord ToTimingRecord(const profiler::TimingResult& t) {
  reports::TimingRecord r;
  r.mode = t.mode;
  r.warmup_runs = t.warmup_runs;
  r.samples_rejected_throttled = t.rejected_throttled;
  r.median_ms = t.summary.median;
  r.mean_ms = t.summary.mean;
  r.min_ms = t.summary.min;
  r.max_ms = t.summary.max;
  r.stdev_ms = t.summary.stdev;
  r.p10_ms = t.summary.p10;
  r.p90_ms = t.summary.p90;
  r.noise = t.summary.noise;
  r.converged = t.converged;
  r.stop_reason = t.stop_reason;
  r.median_sm_clock_mhz = t.median_sm_clock_mhz;
  r.samples_ms = t.samples_ms;
  return r;
}

reports::ThroughputRecord ToThroughput(const Problem& p, double median_ms,
                                       const reports::MeasuredPeaks& peaks) {
  reports::ThroughputRecord t;
  t.flops = verify::Flops(p);
  t.bytes = verify::MinimalBytes(p);
  if (median_ms <= 0) return t;
  t.tflops = t.flops / (median_ms * 1e-3) / 1e12;
  t.gbps = t.bytes / (median_ms * 1e-3) / 1e9;
  DType dtype = std::visit([](const auto& x) { return x.dtype; }, p);
  double peak = dtype == DType::kF16    ? peaks.matmul_fp16_tflops
                : dtype == DType::kBF16 ? peaks.matmul_bf16_tflops
                                        : 0.0;
  if (peak > 0) t.pct_peak_flops = 100.0 * t.tflops / peak;
  if (peaks.copy_gbps > 0) t.pct_peak_bandwidth = 100.0 * t.gbps / peaks.copy_gbps;
  return t;
}

reports::ProfileRecord ToProfileRecord(const profiler::ProfileResult& p) {
  reports::ProfileRecord r;
  r.available = true;
  r.passes = p.passes;
  r.replay = profiler::ReplayName(p.replay);
  r.kernels = p.kernels;
  r.ranges = p.ranges;
  r.wall_s = p.wall_s;
  for (const auto& [def, value] : p.values) {
    r.metrics.push_back({def.name, def.hw_name, def.unit, value, def.description});
  }
  return r;
}

std::string CaseDirName(int index, const std::string& key) {
  std::string name = absl::StrCat(index, "_", key);
  for (char& ch : name) {
    if (!(isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' || ch == '-')) ch = '_';
  }
  return name;
}

}  // namespace flashscope::runner
