#include "viewer/chart_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "analysis/heatmap_overlay.h"
#include "viewer/case_values.h"
#include "viewer/colormap.h"

namespace flashscope::viewer {
namespace {

uint32_t PackRgba(Rgb c) {
  // Byte order in memory R, G, B, A on a little-endian machine.
  return 0xFF000000u | (uint32_t(c.b) << 16) | (uint32_t(c.g) << 8) | uint32_t(c.r);
}

}  // namespace

std::vector<std::string> LadderProblems(const reports::Report& report) {
  std::vector<std::string> keys;
  for (const auto& c : report.cases) {
    if (!c.throughput) continue;
    if (std::find(keys.begin(), keys.end(), c.problem_key) == keys.end()) {
      keys.push_back(c.problem_key);
    }
  }
  return keys;
}

Ladder BuildLadder(const reports::Report& report, const std::string& problem_key) {
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
      b.tflops = c.throughput->tflops;
      b.pct_peak = c.throughput->pct_peak_flops;
    }
    l.max_tflops = std::max(l.max_tflops, b.tflops);
    (IsPeer(c.kernel_id) ? l.peers : l.rungs).push_back(b);
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

double AttainableTflops(double intensity, double peak_tflops, double bandwidth_gbps) {
  double memory_bound = intensity * bandwidth_gbps / 1000.0;  // GB/s * FLOP/B = GFLOP/s
  if (bandwidth_gbps <= 0) return peak_tflops;
  if (peak_tflops <= 0) return memory_bound;
  return std::min(peak_tflops, memory_bound);
}

Roofline BuildRoofline(const reports::Report& report) {
  Roofline r;
  const auto& env = report.environment;
  r.bandwidth_gbps = env.peaks.copy_gbps;
  r.peak_fp16_tflops = env.peaks.matmul_fp16_tflops;
  r.peak_bf16_tflops = env.peaks.matmul_bf16_tflops;
  double ai_lo = std::numeric_limits<double>::infinity(), ai_hi = 0;
  double tf_lo = std::numeric_limits<double>::infinity(), tf_hi = 0;
  for (size_t i = 0; i < report.cases.size(); ++i) {
    const auto& c = report.cases[i];
    if (!c.throughput || c.throughput->bytes <= 0 || c.throughput->tflops <= 0) continue;
    RooflinePoint p;
    p.case_index = int(i);
    p.intensity = c.throughput->flops / c.throughput->bytes;
    p.tflops = c.throughput->tflops;
    p.peer = IsPeer(c.kernel_id);
    p.status = c.status;
    ai_lo = std::min(ai_lo, p.intensity);
    ai_hi = std::max(ai_hi, p.intensity);
    tf_lo = std::min(tf_lo, p.tflops);
    tf_hi = std::max(tf_hi, p.tflops);
    r.points.push_back(p);
  }
  double peak = std::max(r.peak_fp16_tflops, r.peak_bf16_tflops);
  tf_hi = std::max(tf_hi, peak);
  if (r.bandwidth_gbps > 0 && peak > 0) {
    double ridge = peak * 1000.0 / r.bandwidth_gbps;
    ai_lo = std::min(ai_lo, ridge / 4);
    ai_hi = std::max(ai_hi, ridge * 4);
  }
  if (!std::isfinite(ai_lo) || ai_hi <= 0) ai_lo = 1, ai_hi = 1000;
  if (!std::isfinite(tf_lo) || tf_hi <= 0) tf_lo = 0.1, tf_hi = 1000;
  // Round the axes out to whole decades so that gridlines fall on 1, 10, 100...
  r.min_intensity = std::pow(10.0, std::floor(std::log10(ai_lo)));
  r.max_intensity = std::pow(10.0, std::ceil(std::log10(ai_hi * 1.0001)));
  r.min_tflops = std::pow(10.0, std::floor(std::log10(std::max(tf_lo, 1e-6))));
  r.max_tflops = std::pow(10.0, std::ceil(std::log10(tf_hi * 1.0001)));
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

namespace {

const std::vector<float>& Values(const reports::HeatmapRecord& h, bool use_mean) {
  return use_mean ? h.mean : h.max;
}

}  // namespace

ValueRange HeatmapRange(const reports::HeatmapRecord& h, bool use_mean, bool log_scale) {
  double hi = 0, pos_lo = std::numeric_limits<double>::infinity();
  const std::vector<float>& v = Values(h, use_mean);
  for (size_t i = 0; i < v.size(); ++i) {
    const float x = v[i];
    if (!std::isfinite(x) || (i < h.max.size() && reports::IsSaturatedCell(h.max[i]))) continue;
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

HeatmapImage BuildHeatmapImage(const reports::HeatmapRecord& h, bool use_mean, bool log_scale,
                               const ValueRange* range) {
  HeatmapImage img;
  img.log_scale = log_scale;
  const std::vector<float>& v = Values(h, use_mean);
  size_t n = size_t(std::max(h.rows, 0)) * size_t(std::max(h.cols, 0));
  if (h.rows <= 0 || h.cols <= 0) {
    img.error = "heatmap '" + h.kind + "' has an empty grid (" + std::to_string(h.rows) + " x " +
                std::to_string(h.cols) + ")";
    return img;
  }
  // The max is read in the mean view too (it says which cells are saturated).
  const bool max_bad = h.max.size() != n;
  if (max_bad || v.size() != n) {
    img.error = "heatmap '" + h.kind + "' " + (max_bad ? "max" : "mean") + " holds " +
                std::to_string((max_bad ? h.max : v).size()) + " values for a " +
                std::to_string(h.rows) + " x " + std::to_string(h.cols) +
                " grid; the report is damaged";
    return img;
  }
  const ValueRange r = range != nullptr ? *range : HeatmapRange(h, use_mean, log_scale);
  img.lo = r.lo;
  img.hi = r.hi;
  img.width = h.cols;
  img.height = h.rows;
  img.rgba.resize(n);
  const auto& table = ColormapTable();
  for (size_t i = 0; i < n; ++i) {
    float x = v[i];
    Rgb c;
    if (!std::isfinite(x) || reports::IsSaturatedCell(h.max[i])) {
      c = palette::kSaturated;
      ++img.saturated;
    } else {
      double t = ScalePosition(x, img.lo, img.hi, log_scale);
      c = table[size_t(std::lround(t * 255))];
    }
    img.rgba[i] = PackRgba(c);
  }
  return img;
}

Histogram BuildHistogram(const std::vector<double>& samples, int bins) {
  Histogram hst;
  std::vector<double> s;
  for (double x : samples) {
    if (std::isfinite(x)) s.push_back(x);
  }
  if (s.empty() || bins <= 0) return hst;
  auto [mn, mx] = std::minmax_element(s.begin(), s.end());
  hst.lo = *mn;
  hst.hi = *mx;
  if (hst.hi <= hst.lo) hst.hi = hst.lo + std::max(1e-9, std::abs(hst.lo) * 1e-6);
  hst.counts.assign(size_t(bins), 0);
  for (double x : s) {
    int b = int((x - hst.lo) / (hst.hi - hst.lo) * bins);
    b = std::clamp(b, 0, bins - 1);
    hst.max_count = std::max(hst.max_count, ++hst.counts[size_t(b)]);
  }
  return hst;
}

Rgb ToneColour(reports::Tone tone) {
  switch (tone) {
    case reports::Tone::kFailure:
      return palette::kWorse;
    case reports::Tone::kSlower:
      return palette::kSlower;
    case reports::Tone::kUnsure:
      return palette::kUnsure;
    case reports::Tone::kFaster:
      return palette::kBetter;
    case reports::Tone::kNeutral:
      break;
  }
  return palette::kNeutral;
}

std::vector<std::string> RungLabel(const std::string& kernel_id, size_t max_chars, int max_lines) {
  const size_t dot = kernel_id.find('.');
  const std::string id = dot == std::string::npos ? kernel_id : kernel_id.substr(dot + 1);
  std::vector<std::string> lines;
  std::string line;
  size_t start = 0;
  while (start <= id.size()) {
    size_t end = id.find('_', start);
    if (end == std::string::npos) end = id.size();
    const std::string part = id.substr(start, end - start);
    if (!line.empty() && line.size() + 1 + part.size() > max_chars) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : "_") + part;
    start = end + 1;
  }
  if (!line.empty()) lines.push_back(line);
  for (std::string& l : lines) {
    if (l.size() > max_chars && max_chars > 1) l = l.substr(0, max_chars - 1) + "~";
  }
  if (max_lines > 0 && lines.size() > size_t(max_lines)) {
    lines.resize(size_t(max_lines));
    std::string& last = lines.back();
    if (last.size() >= max_chars && max_chars > 1) last = last.substr(0, max_chars - 1);
    last += "~";
  }
  return lines;
}

}  // namespace flashscope::viewer
