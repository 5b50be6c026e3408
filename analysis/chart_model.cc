#include "analysis/chart_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/heatmap_overlay.h"

namespace flashscope::reports {
namespace {

constexpr double kChartMinBandwidthGbps = 1e-3;

// "" when v is finite and in [lo, hi], else what is wrong with it, for the note.
std::string OutOfRange(const char* name, double v, double lo, double hi) {
  if (std::isnan(v)) return absl::StrCat(name, " is NaN");
  if (std::isinf(v)) return absl::StrCat(name, v > 0 ? " is inf" : " is -inf");
  if (v < lo || v > hi) return absl::StrCat(name, " ", v, " is outside [", lo, ", ", hi, "]");
  return "";
}

bool Usable(double v, double lo, double hi) { return OutOfRange("", v, lo, hi).empty(); }

// Why a case's throughput cannot be drawn as a bar ("" when it can).
std::string BarProblem(const ThroughputRecord& t) {
  return OutOfRange("tflops", t.tflops, 0, kChartMaxTflops);
}

// Why a case's throughput cannot be drawn on the roofline ("" when it can); the intensity is set.
std::string PointProblem(const ThroughputRecord& t, double* intensity) {
  std::string why = OutOfRange("tflops", t.tflops, kChartMinTflops, kChartMaxTflops);
  if (why.empty() && !(t.flops > 0 && std::isfinite(t.flops))) {
    why = t.flops == 0 ? "flops missing (0)" : OutOfRange("flops", t.flops, 1, HUGE_VAL);
  }
  if (why.empty() && !(t.bytes > 0 && std::isfinite(t.bytes))) {
    why = t.bytes == 0 ? "bytes missing (0)" : OutOfRange("bytes", t.bytes, 1, HUGE_VAL);
  }
  if (!why.empty()) return why;
  *intensity = t.flops / t.bytes;
  return OutOfRange("intensity (FLOP/byte)", *intensity, kChartMinIntensity, kChartMaxIntensity);
}

}  // namespace

void ChartNote::LeaveOut(const std::string& what, const std::string& why) {
  ++left_out;
  if (examples.size() < kMaxExamples) examples.push_back(absl::StrCat(what, ": ", why));
}

std::string ChartNote::Text() const {
  if (left_out == 0) return "";
  return absl::StrCat(left_out, left_out == 1 ? " case" : " cases",
                      " left out of this chart (a number missing, not finite or out of range): ",
                      absl::StrJoin(examples, "; "),
                      size_t(left_out) > examples.size() ? "; ..." : "");
}

bool IsPeerKernel(const std::string& kernel_id) { return kernel_id.rfind("peer.", 0) == 0; }

std::vector<std::string> LadderProblems(const Report& report) {
  std::vector<std::string> keys;
  for (const auto& c : report.cases) {
    if (!c.throughput) continue;
    if (std::find(keys.begin(), keys.end(), c.problem_key) == keys.end()) {
      keys.push_back(c.problem_key);
    }
  }
  return keys;
}

Ladder BuildLadder(const Report& report, const std::string& problem_key) {
  Ladder l;
  l.problem_key = problem_key;
  for (size_t i = 0; i < report.cases.size(); ++i) {
    const auto& c = report.cases[i];
    if (c.problem_key != problem_key) continue;
    LadderBar b;
    b.case_index = int(i);
    b.kernel_id = c.kernel_id;
    b.revision = c.kernel_revision;
    b.title = c.kernel_title;
    b.changed = c.kernel_changed;
    b.status = c.status;
    if (c.throughput) {
      const std::string why = BarProblem(*c.throughput);
      if (why.empty()) {
        b.timed = true;
        b.tflops = c.throughput->tflops;
        const double pct = c.throughput->pct_peak_flops;
        b.pct_peak = Usable(pct, 0, kChartMaxTflops) ? pct : 0;
      } else {
        l.note.LeaveOut(c.kernel_id, why);
      }
    }
    l.max_tflops = std::max(l.max_tflops, b.tflops);
    (IsPeerKernel(c.kernel_id) ? l.peers : l.rungs).push_back(b);
  }
  auto order = [](const LadderBar& a, const LadderBar& b) {
    if (a.revision != b.revision && a.revision > 0 && b.revision > 0) {
      return a.revision < b.revision;
    }
    return a.kernel_id < b.kernel_id;
  };
  std::stable_sort(l.rungs.begin(), l.rungs.end(), order);
  std::stable_sort(l.peers.begin(), l.peers.end(), order);
  return l;
}

LogAxis MakeLogAxis(double lo, double hi, double floor, double ceiling) {
  // Anything not finite or outside the bounds is pulled in first: the loop below then runs over
  // at most log10(ceiling / floor) + 2 decades, whatever the input.
  if (!(lo >= floor)) lo = floor;  // also NaN
  if (!(hi <= ceiling)) hi = ceiling;
  lo = std::min(lo, ceiling);
  hi = std::max(hi, lo);
  const int e0 = int(std::floor(std::log10(lo)));
  int e1 = int(std::ceil(std::log10(hi * 1.0001)));
  if (e1 <= e0) e1 = e0 + 1;
  const int decades = e1 - e0;
  const int step = (decades + kChartMaxTicks - 2) / (kChartMaxTicks - 1);  // ceil, >= 1
  e1 = e0 + (decades + step - 1) / step * step;  // the last tick is the axis' end
  LogAxis a;
  a.min = std::pow(10.0, e0);
  a.max = std::pow(10.0, e1);
  for (int e = e0; e <= e1; e += step) a.ticks.push_back(std::pow(10.0, e));
  return a;
}

double AttainableTflops(double intensity, double peak_tflops, double bandwidth_gbps) {
  double memory_bound = intensity * bandwidth_gbps / 1000.0;  // GB/s * FLOP/B = GFLOP/s
  if (bandwidth_gbps <= 0) return peak_tflops;
  if (peak_tflops <= 0) return memory_bound;
  return std::min(peak_tflops, memory_bound);
}

Roofline BuildRoofline(const Report& report) {
  Roofline r;
  const auto& peaks = report.environment.peaks;
  double ai_lo = HUGE_VAL, ai_hi = 0, tf_lo = HUGE_VAL, tf_hi = 0;
  for (size_t i = 0; i < report.cases.size(); ++i) {
    const auto& c = report.cases[i];
    if (!c.throughput) continue;
    RooflinePoint p;
    const std::string why = PointProblem(*c.throughput, &p.intensity);
    if (!why.empty()) {
      r.note.LeaveOut(c.Key(), why);
      continue;
    }
    p.case_index = int(i);
    p.tflops = c.throughput->tflops;
    p.peer = IsPeerKernel(c.kernel_id);
    p.status = c.status;
    ai_lo = std::min(ai_lo, p.intensity), ai_hi = std::max(ai_hi, p.intensity);
    tf_lo = std::min(tf_lo, p.tflops), tf_hi = std::max(tf_hi, p.tflops);
    r.points.push_back(p);
  }
  if (Usable(peaks.copy_gbps, kChartMinBandwidthGbps, kChartMaxBandwidthGbps)) {
    r.bandwidth_gbps = peaks.copy_gbps;
  }
  for (auto [dtype, peak, field] :
       {std::make_tuple("fp16", peaks.matmul_fp16_tflops, &r.peak_fp16_tflops),
        std::make_tuple("bf16", peaks.matmul_bf16_tflops, &r.peak_bf16_tflops)}) {
    if (!Usable(peak, kChartMinTflops, kChartMaxTflops)) continue;
    *field = peak;
    tf_hi = std::max(tf_hi, peak);
    if (r.bandwidth_gbps <= 0) continue;
    Ceiling c{dtype, peak, peak * 1000.0 / r.bandwidth_gbps, {}};
    ai_lo = std::min(ai_lo, c.ridge / 4), ai_hi = std::max(ai_hi, c.ridge * 4);
    r.ceilings.push_back(c);
  }
  // No point: three decades under the peak (or a default span when nothing was measured).
  if (ai_hi <= 0) ai_lo = 1, ai_hi = 1000;
  if (tf_hi <= 0) tf_hi = 1000;
  if (tf_lo > tf_hi) tf_lo = tf_hi / 1000;
  r.intensity = MakeLogAxis(ai_lo, ai_hi, kChartMinIntensity, kChartMaxIntensity);
  r.tflops = MakeLogAxis(tf_lo, tf_hi, kChartMinTflops, kChartMaxTflops);
  for (Ceiling& c : r.ceilings) {
    auto at = [&](double ai) {
      c.polyline.emplace_back(ai, AttainableTflops(ai, c.peak_tflops, r.bandwidth_gbps));
    };
    at(r.intensity.min);
    if (c.ridge > r.intensity.min && c.ridge < r.intensity.max) at(c.ridge);
    at(r.intensity.max);
  }
  return r;
}

double ScalePosition(double v, double lo, double hi, bool log_scale) {
  if (std::isnan(v)) return v;
  if (log_scale) {
    if (v <= 0) return 0;
    double a = std::log10(lo), b = std::log10(hi);
    if (b <= a) return 1;
    return std::clamp((std::log10(v) - a) / (b - a), 0.0, 1.0);
  }
  if (hi <= lo) return v > lo ? 1 : 0;
  return std::clamp((v - lo) / (hi - lo), 0.0, 1.0);
}

ValueRange HeatmapRange(const HeatmapRecord& h, bool use_mean, bool log_scale) {
  double hi = 0, pos_lo = std::numeric_limits<double>::infinity();
  const std::vector<float>& v = use_mean ? h.mean : h.max;
  for (size_t i = 0; i < v.size(); ++i) {
    const float x = v[i];
    if (!std::isfinite(x) || (i < h.max.size() && IsSaturatedCell(h.max[i]))) continue;
    hi = std::max(hi, double(x));
    if (x > 0) pos_lo = std::min(pos_lo, double(x));
  }
  if (!log_scale) return {0, hi};
  ValueRange r;
  r.hi = hi > 0 ? hi : 1;
  r.lo = std::isfinite(pos_lo) ? std::max(pos_lo, r.hi * 1e-8) : r.hi * 1e-8;
  return r;
}

ValueRange Union(ValueRange a, ValueRange b, bool log_scale) {
  ValueRange r{std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
  if (log_scale) r.lo = std::max(r.lo, r.hi * 1e-8);
  return r;
}

}  // namespace flashscope::reports
