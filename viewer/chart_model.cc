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

namespace {

const std::vector<float>& Values(const reports::HeatmapRecord& h, bool use_mean) {
  return use_mean ? h.mean : h.max;
}

}  // namespace

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
