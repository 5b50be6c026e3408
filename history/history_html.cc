// `history show --format html`: one self-contained page (no script, no external file), a chart per
// series (medians over revisions as a blue line, each change point a red rule with its change and
// explanation as the tooltip) and the change points in a table beneath.
#include <algorithm>
#include <cmath>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "history/history_render.h"
#include "render/render_junit.h"
#include "reports/text_table.h"

namespace flashscope::history {
namespace {

using reports::XmlEscape;
using reports::text::SignedPct;

constexpr int kWidth = 900, kHeight = 200, kLeft = 70, kRight = 20, kTop = 16, kBottom = 36;
constexpr char kLine[] = "#3b6fb6";    // medians: the report's chart blue
constexpr char kChange[] = "#b00020";  // change points: the report's warning red

struct Scale {
  double lo = 0, hi = 1;
  size_t n = 1;
  double X(size_t i) const {
    const double w = kWidth - kLeft - kRight;
    return kLeft + (n <= 1 ? w / 2 : w * static_cast<double>(i) / static_cast<double>(n - 1));
  }
  double Y(double v) const {
    const double h = kHeight - kTop - kBottom;
    return kTop + h * (1 - (v - lo) / (hi - lo));
  }
};

Scale ScaleOf(const Series& s) {
  Scale sc;
  sc.n = s.points.size();
  std::tie(sc.lo, sc.hi) = ChartRange(s);
  return sc;
}

std::string Axes(const Scale& sc, const Series& s) {
  std::string out = absl::StrFormat(
      "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#888'/>"
      "<text x='%d' y='%.1f' class='ax' text-anchor='end'>%s</text>"
      "<text x='%d' y='%.1f' class='ax' text-anchor='end'>%s</text>",
      kLeft, kHeight - kBottom, kWidth - kRight, kHeight - kBottom, kLeft - 6, sc.Y(sc.hi) + 4,
      reports::text::Ms(sc.hi), kLeft - 6, sc.Y(sc.lo), reports::text::Ms(sc.lo));
  // Revision labels: all when few, else about ten evenly spaced.
  const size_t step = std::max<size_t>(1, s.points.size() / 10);
  for (size_t i = 0; i < s.points.size(); i += step) {
    absl::StrAppendFormat(&out, "<text x='%.1f' y='%d' class='ax' text-anchor='middle'>%s</text>",
                          sc.X(i), kHeight - kBottom + 16,
                          XmlEscape(s.points[i].revision.substr(0, 12)));
  }
  return out;
}

std::string Chart(const SeriesChanges& s) {
  const Scale sc = ScaleOf(s.series);
  std::string out = absl::StrFormat("<svg width='%d' height='%d' viewBox='0 0 %d %d' role='img'>",
                                    kWidth, kHeight, kWidth, kHeight);
  absl::StrAppend(&out, Axes(sc, s.series));
  for (const HistoryChange& h : s.changes) {
    const double x = (sc.X(h.point_index - 1) + sc.X(h.point_index)) / 2;
    const bool near_right = x > kWidth - kRight - 60;  // the label goes left of the rule there
    absl::StrAppendFormat(
        &out,
        "<g class='change'><title>%s -&gt; %s: %s, p %.2g. %s</title>"
        "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='%s' stroke-width='3'/>"
        "<text x='%.1f' y='%d' fill='%s' font-weight='bold' text-anchor='%s'>%s</text></g>",
        XmlEscape(h.previous_revision), XmlEscape(h.revision), SignedPct(h.point.change * 100),
        h.point.p_value, XmlEscape(h.explanation), x, kTop, x, kHeight - kBottom, kChange,
        near_right ? x - 4 : x + 4, kTop + 10, kChange, near_right ? "end" : "start",
        SignedPct(h.point.change * 100));
  }
  std::string line;
  for (size_t i = 0; i < s.series.points.size(); ++i) {
    const RevisionPoint& p = s.series.points[i];
    if (!p.Timed()) {
      absl::StrAppendFormat(&out,
                            "<text x='%.1f' y='%d' fill='#999' text-anchor='middle'>×<title>%s: "
                            "%s</title></text>",
                            sc.X(i), kHeight - kBottom - 4, XmlEscape(p.revision),
                            XmlEscape(p.status));
      continue;
    }
    absl::StrAppendFormat(&line, "%.1f,%.1f ", sc.X(i), sc.Y(p.median_ms));
    absl::StrAppendFormat(&out,
                          "<circle cx='%.1f' cy='%.1f' r='4' fill='%s'><title>%s: %s ms (%zu "
                          "runs)</title></circle>",
                          sc.X(i), sc.Y(p.median_ms), kLine, XmlEscape(p.revision),
                          reports::text::Ms(p.median_ms), p.report_hashes.size());
  }
  absl::StrAppendFormat(&out,
                        "<polyline points='%s' fill='none' stroke='%s' stroke-width='2.5'/></svg>",
                        line, kLine);
  return out;
}

std::string ChangeTable(const SeriesChanges& s) {
  if (s.changes.empty()) return "<p class='none'>No change point.</p>";
  std::string out =
      "<table><tr><th>good</th><th>bad</th><th>change</th><th>p</th><th>why (correlation)</th>"
      "</tr>";
  for (const HistoryChange& h : s.changes) {
    absl::StrAppendFormat(
        &out, "<tr%s><td>%s</td><td>%s</td><td>%s</td><td>%.2g</td><td>%s</td></tr>",
        h.regression ? " class='bad'" : "", XmlEscape(h.previous_revision), XmlEscape(h.revision),
        SignedPct(h.point.change * 100), h.point.p_value, XmlEscape(h.explanation));
  }
  return out + "</table>";
}

}  // namespace

std::pair<double, double> ChartRange(const Series& s) {
  double lo = INFINITY, hi = -INFINITY;
  for (const RevisionPoint& p : s.points) {
    if (!p.Timed()) continue;
    lo = std::min(lo, p.median_ms);
    hi = std::max(hi, p.median_ms);
  }
  if (!std::isfinite(lo)) return {0, 1};
  const double pad = std::max((hi - lo) * 0.1, hi * 0.005);
  return {lo - pad, hi + pad};
}

std::string RenderHistoryHtml(const std::vector<SeriesChanges>& all, const std::string& database) {
  std::string out = absl::StrCat(
      "<!DOCTYPE html><html><head><meta charset='utf-8'><title>flashscope history</title><style>"
      "body{font-family:sans-serif;margin:16px;color:#222}h2{font-size:15px;margin:18px 0 4px}"
      ".ax{font-size:11px;fill:#555}table{border-collapse:collapse;font-size:12px}"
      "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}tr.bad td{color:",
      kChange, ";font-weight:bold}.none{color:#777;font-size:12px}</style></head><body>",
      "<h1>Performance history</h1><p>", XmlEscape(database),
      ": per series the median time of each revision (blue); a red rule marks each change "
      "point, found by PELT and confirmed by a Mann-Whitney test on the raw samples "
      "(docs/history.md). Explanations are correlations between counters and time, not "
      "proven causes.</p>");
  if (all.empty()) absl::StrAppend(&out, "<p>No series match.</p>");
  for (const SeriesChanges& s : all) {
    absl::StrAppend(&out, "<h2>", XmlEscape(s.series.key.Name()), "</h2>", Chart(s),
                    ChangeTable(s));
  }
  return out + "</body></html>\n";
}

}  // namespace flashscope::history
