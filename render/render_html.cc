#include "render/render_html.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "analysis/chart_model.h"
#include "analysis/comparison_summary.h"
#include "analysis/heatmap_overlay.h"
#include "analysis/summary.h"
#include "render/render_junit.h"
#include "reports/provenance.h"
#include "reports/text_table.h"

namespace flashscope::reports {
namespace {

std::string Esc(const std::string& s) { return XmlEscape(s); }

constexpr char kStyle[] = R"(<style>
body{font-family:system-ui,sans-serif;margin:24px;color:#1d1d1f;background:#fff}
h1{font-size:22px}h2{font-size:18px;margin-top:28px}
.warn{background:#b00020;color:#fff;padding:10px 14px;margin:8px 0;font-weight:bold;border-radius:4px}
.pass{background:#1b7a2f;color:#fff;padding:10px 14px;border-radius:4px;font-weight:bold}
.fail{background:#b00020;color:#fff;padding:10px 14px;border-radius:4px;font-weight:bold}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:2px 6px}
th{background:#f0f0f0}td.n{text-align:right;font-variant-numeric:tabular-nums}
tr.bad td{background:#fde0e0}tr.slow td{background:#fff0d0}tr.fast td{background:#e0f5e0}
.charts{display:flex;flex-wrap:wrap;gap:16px}svg{background:#fafafa;border:1px solid #ddd}
</style>)";

std::string Page(const std::string& title, const std::string& body) {
  return absl::StrCat("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>",
                      Esc(title), "</title>", kStyle, "</head><body>\n<h1>", Esc(title), "</h1>\n",
                      body, "</body></html>\n");
}

std::string Warnings(const std::vector<Warning>& warnings) {
  std::string out;
  for (const Warning& w : warnings)
    absl::StrAppend(&out, "<div class=\"warn\">", Esc(w.text), "</div>\n");
  return out;
}

// Heatmap cells with no error to measure (IsSaturatedCell): the viewer's colour for them too.
constexpr char kSaturatedFill[] = "#ff00ff";

// Five-stop blue-to-yellow ramp (viridis-like), t in [0, 1].
std::string Ramp(double t) {
  static const int stops[5][3] = {
      {68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  t = std::clamp(t, 0.0, 1.0) * 4;
  const int i = std::min(3, static_cast<int>(t));
  const double f = t - i;
  int c[3];
  for (int k = 0; k < 3; ++k)
    c[k] = static_cast<int>(stops[i][k] + f * (stops[i + 1][k] - stops[i][k]));
  return absl::StrFormat("#%02x%02x%02x", c[0], c[1], c[2]);
}

// The chart model's note (analysis/chart_model.h) under a chart, when it left something out.
std::string NoteOf(const ChartNote& note) {
  return note.left_out == 0 ? "" : absl::StrCat("<p class=\"note\">", Esc(note.Text()), "</p>\n");
}

const char* StatusFill(CaseStatus status) {
  return status == CaseStatus::kPassed ? "#3b6fb6" : "#b00020";
}

// One problem's ladder from the chart model, as horizontal bars: our revisions in revision order
// (a case that did not pass in red with its status, one without throughput as a labelled slot),
// the library peers as dashed vertical lines. Each mark carries data-case (the case's index).
std::string LadderChart(const Ladder& l) {
  const int bar_h = 16, label_w = 210, plot_w = 260, peer_h = 14;
  const int peers_shown = static_cast<int>(
      std::count_if(l.peers.begin(), l.peers.end(), [](const LadderBar& p) { return p.timed; }));
  const int rows_h = bar_h * static_cast<int>(l.rungs.size());
  const int h = 30 + rows_h + peer_h * peers_shown;
  const double top = l.max_tflops > 0 ? l.max_tflops : 1;
  std::string out =
      absl::StrCat("<svg class=\"ladder\" width=\"", label_w + plot_w + 90, "\" height=\"", h,
                   "\" role=\"img\"><text x=\"4\" y=\"16\" font-size=\"12\" font-weight=\"bold\">",
                   Esc(l.problem_key), "</text>\n");
  for (size_t i = 0; i < l.rungs.size(); ++i) {
    const LadderBar& b = l.rungs[i];
    const int y = 24 + bar_h * static_cast<int>(i);
    absl::StrAppendFormat(&out,
                          "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">%s</text>",
                          label_w - 4, y + 11, Esc(b.kernel_id));
    const std::string status =
        b.status == CaseStatus::kPassed ? "" : absl::StrCat(" ", CaseStatusName(b.status));
    if (!b.timed) {
      absl::StrAppendFormat(&out,
                            "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#b00020\" "
                            "data-case=\"%d\">no throughput%s</text>\n",
                            label_w + 4, y + 11, b.case_index, status);
      continue;
    }
    const double w = plot_w * b.tflops / top;
    absl::StrAppendFormat(&out,
                          "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" "
                          "data-case=\"%d\"><title>%s: %.2f TFLOPS, %.1f%% of peak%s</title></rect>"
                          "<text x=\"%.1f\" y=\"%d\" font-size=\"11\">%.3g%s</text>\n",
                          label_w, y + 2, w, bar_h - 4, StatusFill(b.status), b.case_index,
                          Esc(b.kernel_id), b.tflops, b.pct_peak, status, label_w + w + 4, y + 11,
                          b.tflops, status);
  }
  int row = 0;
  for (const LadderBar& p : l.peers) {
    if (!p.timed) continue;
    const double x = label_w + plot_w * p.tflops / top;
    const int y = 24 + rows_h + peer_h * row++;
    absl::StrAppendFormat(&out,
                          "<line x1=\"%.1f\" y1=\"20\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e07b00\" "
                          "stroke-width=\"2\" stroke-dasharray=\"4 3\" data-case=\"%d\"><title>%s: "
                          "%.2f TFLOPS</title></line><text x=\"%.1f\" y=\"%d\" font-size=\"10\" "
                          "fill=\"#e07b00\">%s %.3g</text>\n",
                          x, x, y + 2, p.case_index, Esc(p.kernel_id), p.tflops, x + 3, y + 11,
                          Esc(p.kernel_id), p.tflops);
  }
  return out + "</svg>\n" + NoteOf(l.note);
}

// The ladders of the problems with the most timed cases (at most max_problems of them).
std::string LadderCharts(const Report& r, int max_problems) {
  std::vector<Ladder> ladders;
  for (const std::string& key : LadderProblems(r)) ladders.push_back(BuildLadder(r, key));
  if (ladders.empty()) return "<p>No timed cases: no ladder charts.</p>\n";
  auto timed = [](const Ladder& l) {
    int n = 0;
    for (const auto* bars : {&l.rungs, &l.peers}) {
      for (const LadderBar& b : *bars) n += b.timed;
    }
    return n;
  };
  std::stable_sort(ladders.begin(), ladders.end(),
                   [&](const Ladder& a, const Ladder& b) { return timed(a) > timed(b); });
  std::string out = "<div class=\"charts\">\n";
  const size_t shown = std::min<size_t>(std::max(0, max_problems), ladders.size());
  for (size_t p = 0; p < shown; ++p) out += LadderChart(ladders[p]);
  out += "</div>\n";
  if (shown < ladders.size()) {
    absl::StrAppend(&out, "<p>", ladders.size() - shown,
                    " more problems have timed cases; see the table below.</p>\n");
  }
  return out +
         "<p>Bars: our revisions (blue: passed; red: any other status, named). Dashed lines: "
         "library peers.</p>\n";
}

// Log-log: arithmetic intensity (FLOP per byte of minimal traffic) against TFLOPS, with the roof
// min(peak, intensity × bandwidth) from the measured peaks; the chart model's points, axes and
// roofs (bounded and finite there), mapped to pixels here.
std::string RooflineChart(const Report& r) {
  const Roofline rl = BuildRoofline(r);
  if (rl.points.empty()) {
    return "<p>No timed cases with FLOP and byte counts: no roofline.</p>\n" + NoteOf(rl.note);
  }
  const int W = 640, H = 400, L = 60, B = 40, T = 20, R = 20;
  const double x0 = std::log10(rl.intensity.min), x1 = std::log10(rl.intensity.max);
  const double y0 = std::log10(rl.tflops.min), y1 = std::log10(rl.tflops.max);
  auto px = [&](double ai) { return L + (std::log10(ai) - x0) / (x1 - x0) * (W - L - R); };
  auto py = [&](double tf) { return H - B - (std::log10(tf) - y0) / (y1 - y0) * (H - B - T); };
  std::string out = absl::StrFormat(
      "<svg class=\"roofline\" width=\"%d\" height=\"%d\" role=\"img\"><rect x=\"%d\" y=\"%d\" "
      "width=\"%d\" height=\"%d\" fill=\"#fff\" stroke=\"#999\"/>\n",
      W, H, L, T, W - L - R, H - B - T);
  for (double tick : rl.intensity.ticks) {
    absl::StrAppendFormat(
        &out, "<text x=\"%.0f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%g</text>\n",
        px(tick), H - B + 14, tick);
  }
  for (double tick : rl.tflops.ticks) {
    absl::StrAppendFormat(
        &out, "<text x=\"%d\" y=\"%.0f\" font-size=\"10\" text-anchor=\"end\">%g</text>\n", L - 4,
        py(tick) + 3, tick);
  }
  absl::StrAppendFormat(&out,
                        "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">FLOP per "
                        "byte (minimal traffic)</text>"
                        "<text x=\"14\" y=\"%d\" font-size=\"11\" transform=\"rotate(-90 14 %d)\" "
                        "text-anchor=\"middle\">TFLOPS</text>\n",
                        (W + L) / 2, H - 6, H / 2, H / 2);
  absl::StrAppendFormat(&out,
                        "<clipPath id=\"roofclip\"><rect x=\"%d\" y=\"%d\" width=\"%d\" "
                        "height=\"%d\"/></clipPath>\n",
                        L, T, W - L - R, H - B - T);
  for (const Ceiling& c : rl.ceilings) {
    std::string roof;
    for (const auto& [ai, tf] : c.polyline)
      absl::StrAppendFormat(&roof, "%.1f,%.1f ", px(ai), py(tf));
    absl::StrAppendFormat(
        &out,
        "<polyline points=\"%s\" fill=\"none\" stroke=\"#b00020\" stroke-width=\"2\" "
        "clip-path=\"url(#roofclip)\"><title>roof: %.0f TFLOPS measured %s matmul peak, %.0f GB/s "
        "measured copy; ridge at %.0f FLOP/byte</title></polyline>\n",
        roof, c.peak_tflops, c.dtype, rl.bandwidth_gbps, c.ridge);
  }
  for (const RooflinePoint& p : rl.points) {
    const CaseResult& c = r.cases[static_cast<size_t>(p.case_index)];
    const char* fill = p.status == CaseStatus::kPassed ? "#1b7a2f" : "#b00020";
    const std::string title =
        absl::StrFormat("%s: %.1f TFLOPS at %.0f FLOP/byte (%s)", Esc(c.Key()), p.tflops,
                        p.intensity, CaseStatusName(p.status));
    if (p.peer) {
      absl::StrAppendFormat(&out,
                            "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"#e07b00\" "
                            "data-case=\"%d\"><title>%s</title></rect>\n",
                            px(p.intensity) - 3.5, py(p.tflops) - 3.5, p.case_index, title);
    } else {
      absl::StrAppendFormat(
          &out,
          "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" fill-opacity=\"0.8\" "
          "data-case=\"%d\"><title>%s</title></circle>\n",
          px(p.intensity), py(p.tflops), fill, p.case_index, title);
    }
  }
  out +=
      "</svg>\n<p>Circles: our kernels (green: passed; red: any other status). Orange squares: "
      "library peers. Red lines: the roofs from the measured peaks.</p>\n";
  return out + NoteOf(rl.note);
}

// The kernel's structure over a heatmap drawn at (x0, y0) with square cells of `cell` pixels:
// tile boundaries grey, the causal diagonal's key-tile crossings cyan and dashed, the last partial
// tile outlined red (analysis/heatmap_overlay.h, as the viewer draws them).
std::string Overlay(const HeatmapOverlay& o, const HeatmapRecord& h, double x0, double y0,
                    double cell) {
  std::string out;
  const double w = h.cols * cell, ht = h.rows * cell;
  auto lines = [&](const std::vector<double>& at, bool rows, const char* style) {
    for (double a : at) {
      const double p = (rows ? y0 : x0) + a * cell;
      absl::StrAppendFormat(&out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s/>",
                            rows ? x0 : p, rows ? p : y0, rows ? x0 + w : p, rows ? p : y0 + ht,
                            style);
    }
  };
  for (const auto& [axis, rows] : {std::make_pair(&o.rows, true), std::make_pair(&o.cols, false)}) {
    lines(axis->tile_lines, rows, "stroke=\"#ebebeb\" stroke-width=\"1\"");
    lines(axis->diagonal_lines, rows,
          "stroke=\"#00e6ff\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"");
    if (axis->partial) {
      const double a = axis->partial->from * cell, b = axis->partial->to * cell;
      absl::StrAppendFormat(&out,
                            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                            "fill=\"#ff3c3c\" fill-opacity=\"0.2\" stroke=\"#ff3c3c\"/>",
                            rows ? x0 : x0 + a, rows ? y0 + a : y0, rows ? w : b - a,
                            rows ? b - a : ht);
    }
  }
  if (!out.empty()) {
    out = absl::StrCat("<g class=\"tiles\"><title>", Esc(absl::StrJoin(o.legend, "; ")), "</title>",
                       out, "</g>\n");
  }
  return out;
}

std::string Heatmaps(const Report& r, int max_heatmaps) {
  std::vector<std::pair<const CaseResult*, const HeatmapRecord*>> maps;
  for (int pass = 0; pass < 2; ++pass) {  // failed cases first
    for (const CaseResult& c : r.cases) {
      if (!c.verification || (pass == 0) != (c.status == CaseStatus::kFailed)) continue;
      for (const HeatmapRecord& h : c.verification->heatmaps) {
        if (h.rows > 0 && h.cols > 0 && h.max.size() == static_cast<size_t>(h.rows) * h.cols)
          maps.push_back({&c, &h});
      }
    }
  }
  if (maps.empty()) return "<p>No error heatmaps in this report.</p>\n";
  std::string out = "<div class=\"charts\">\n";
  const int shown = std::min<int>(max_heatmaps, maps.size());
  for (int i = 0; i < shown; ++i) {
    const auto& [c, h] = maps[i];
    // Cells with nothing to measure (never written, NaN, Inf) stay out of the scale and are
    // drawn apart, or one of them would push every real error into the bottom colour. The scale
    // is the chart model's (the viewer's log view of the max): eight decades at most.
    const ValueRange range = HeatmapRange(*h, /*use_mean=*/false, /*log_scale=*/true);
    const double top = HeatmapRange(*h, /*use_mean=*/false, /*log_scale=*/false).hi;
    int64_t saturated = 0;
    for (float v : h->max) saturated += IsSaturatedCell(v) || !std::isfinite(v);
    const double cell = std::max(2.0, std::min(16.0, 256.0 / std::max(h->rows, h->cols)));
    const int W = static_cast<int>(cell * h->cols) + 20, Hh = static_cast<int>(cell * h->rows) + 44;
    absl::StrAppendFormat(
        &out,
        "<svg class=\"heatmap\" width=\"%d\" height=\"%d\" role=\"img\"><text "
        "x=\"4\" y=\"12\" font-size=\"10\">%s</text><text x=\"4\" y=\"24\" "
        "font-size=\"10\">%s: %s × %s, max %.2e%s</text>\n",
        std::max(W, 260), Hh, Esc(c->Key()), Esc(h->kind), Esc(h->row_axis), Esc(h->col_axis), top,
        saturated > 0 ? absl::StrCat("; ", saturated, " cells never written, NaN or Inf (magenta)")
                      : "");
    for (int y = 0; y < h->rows; ++y) {
      for (int x = 0; x < h->cols; ++x) {
        const float v = h->max[static_cast<size_t>(y) * h->cols + x];
        // Log scale: error spans orders of magnitude.
        const double t = ScalePosition(v, range.lo, range.hi, /*log_scale=*/true);
        absl::StrAppendFormat(
            &out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>",
            10 + x * cell, 32 + y * cell, cell, cell,
            IsSaturatedCell(v) || !std::isfinite(v) ? std::string(kSaturatedFill) : Ramp(t));
      }
      out += "\n";
    }
    out += Overlay(BuildHeatmapOverlay(*c, *h), *h, 10, 32, cell);
    out += "</svg>\n";
  }
  out += "</div>\n";
  absl::StrAppend(
      &out,
      "<p>Colour: max |error| per cell, log scale over at most eight decades below each map's "
      "maximum (as the viewer's log view). "
      "Over it, the kernel's tile boundaries (grey), the last partial tile (red) and, for causal "
      "attention, where the diagonal enters a new key tile (cyan, dashed); hover for the legend. ",
      maps.size() > static_cast<size_t>(shown)
          ? absl::StrCat(maps.size() - shown, " more heatmaps not drawn.")
          : "",
      "</p>\n");
  return out;
}

// The compact columns of the summary model; each header's tooltip is the value's description.
std::string CaseTable(const ReportSummary& summary) {
  const std::vector<size_t> columns = HeadlineColumns(summary);
  std::string out = "<table class=\"cases\"><tr><th>kernel</th><th>problem</th><th>status</th>";
  for (size_t k : columns) {
    const ValueSpec& spec = summary.columns[k];
    absl::StrAppend(&out, "<th title=\"", Esc(spec.description), "\">", Esc(spec.label), "</th>");
  }
  out += "<th>reason</th></tr>\n";
  for (const CaseSummary& c : summary.cases) {
    absl::StrAppend(&out, c.bad ? "<tr class=\"bad\">" : "<tr>", "<td>", Esc(c.kernel_id),
                    "</td><td>", Esc(c.problem_key), "</td><td>", CaseStatusName(c.status),
                    "</td>");
    for (size_t k : columns) {
      absl::StrAppend(&out, "<td class=\"n\">", Esc(FormatValue(c.values[k])), "</td>");
    }
    absl::StrAppend(&out, "<td>", Esc(c.reason), "</td></tr>\n");
  }
  return out + "</table>\n";
}

// Bars of the median change, centred on 0, for the most-changed timed pairs.
std::string DeltaChart(const ComparisonSummary& s, int max_bars) {
  std::vector<const CaseDelta*> timed;
  for (const PairSummary& p : s.pairs) {
    if (!std::isnan(p.delta_pct.value)) timed.push_back(p.delta);
  }
  if (timed.empty()) return "<p>No pairs timed on both sides.</p>\n";
  std::stable_sort(timed.begin(), timed.end(), [](const CaseDelta* a, const CaseDelta* b) {
    return std::fabs(a->delta_pct) > std::fabs(b->delta_pct);
  });
  if (static_cast<int>(timed.size()) > max_bars) timed.resize(max_bars);
  double span = 5;
  for (const CaseDelta* d : timed) span = std::max(span, std::fabs(d->delta_pct));
  const int bar_h = 14, label_w = 420, half = 160, H = 20 + bar_h * static_cast<int>(timed.size());
  std::string out = absl::StrFormat(
      "<svg class=\"deltas\" width=\"%d\" height=\"%d\" role=\"img\"><line x1=\"%d\" y1=\"0\" "
      "x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n",
      label_w + 2 * half + 60, H, label_w + half, label_w + half, H);
  for (size_t i = 0; i < timed.size(); ++i) {
    const CaseDelta* d = timed[i];
    const int y = 10 + bar_h * static_cast<int>(i);
    const double w = half * d->delta_pct / span;
    const char* color = d->verdict == Verdict::kSlower      ? "#b00020"
                        : d->verdict == Verdict::kFaster    ? "#1b7a2f"
                        : d->verdict == Verdict::kAmbiguous ? "#d0a000"
                                                            : "#999";
    absl::StrAppendFormat(
        &out,
        "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"end\">%s</text><rect x=\"%.1f\" "
        "y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s: %+.1f%%, %s</title></rect>\n",
        label_w - 4, y + 10, Esc(d->key.size() > 70 ? d->key.substr(0, 67) + "..." : d->key),
        label_w + half + std::min(0.0, w), y + 1, std::fabs(w), bar_h - 3, color, Esc(d->key),
        d->delta_pct, Esc(VerdictName(d->verdict)));
  }
  absl::StrAppendFormat(&out, "<text x=\"%d\" y=\"%d\" font-size=\"10\">±%.0f%%</text></svg>\n",
                        label_w + 2 * half + 4, 12, span);
  return out;
}

}  // namespace

std::string RenderReportHtml(const Report& r, const HtmlLimits& limits) {
  const ReportSummary summary = SummarizeReport(r);
  const StatusCounts& n = summary.counts;
  std::string body = Warnings(summary.warnings);
  absl::StrAppend(&body, "<p>", Esc(summary.environment_line), "</p>\n<p><b>", n.total(),
                  " cases</b>: ", n.passed, " passed, ", n.failed, " failed, ", n.error, " error, ",
                  n.timeout, " timeout, ", n.skipped, " skipped</p>\n");
  if (!summary.plugins.empty()) {
    body += "<p>Kernels from:</p><ul>\n";
    for (const PluginUse& u : summary.plugins) {
      absl::StrAppend(&body, "<li>", Esc(DescribeProvenance(u.provenance, /*full_hash=*/true)),
                      ": ", u.cases, u.cases == 1 ? " case" : " cases", "</li>\n");
    }
    body += "</ul>\n";
  }
  absl::StrAppend(&body, "<h2>Ladder: TFLOPS per kernel</h2>\n",
                  LadderCharts(r, limits.ladder_problems));
  absl::StrAppend(&body, "<h2>Roofline</h2>\n", RooflineChart(r));
  absl::StrAppend(&body, "<h2>Error heatmaps</h2>\n", Heatmaps(r, limits.heatmaps));
  absl::StrAppend(&body, "<h2>Cases</h2>\n", CaseTable(summary));
  return Page(absl::StrCat("flashscope report: ", r.suite.name), body);
}

namespace {

std::string GateBanner(const GateResult& gate) {
  std::string out = absl::StrCat(gate.passed ? "<div class=\"pass\">" : "<div class=\"fail\">",
                                 Esc(GateHeadline(gate) + GateNotes(gate)),
                                 " (policy: ", Esc(gate.policy_source), ")</div>\n<ul>\n");
  for (const GateFailure& f : gate.failures) {
    absl::StrAppend(&out, "<li><b>", Esc(f.rule), "</b> ", Esc(f.key), ": ", Esc(f.message),
                    "</li>\n");
  }
  return out + "</ul>\n";
}

std::string PairRow(const PairSummary& p) {
  const char* cls = p.tone == Tone::kFailure  ? " class=\"bad\""
                    : p.tone == Tone::kSlower ? " class=\"slow\""
                    : p.tone == Tone::kFaster ? " class=\"fast\""
                                              : "";
  std::string gate_text;
  if (p.gate == GateMark::kFail) gate_text = p.failure;
  return absl::StrCat("<tr", cls, "><td>", Esc(p.kernel_id), "</td><td>", Esc(p.problem_key),
                      "</td><td>", Esc(p.StatusText(" → ")), "</td><td class=\"n\">",
                      FormatValue(p.base_median), "</td><td class=\"n\">",
                      FormatValue(p.next_median), "</td><td class=\"n\">",
                      text::SignedPct(p.delta_pct.value), "</td><td class=\"n\">",
                      FormatValue(p.p_value), "</td><td>",
                      Esc(absl::StrCat(VerdictName(p.verdict),
                                       p.verdict_reason.empty() ? "" : ": " + p.verdict_reason)),
                      "</td><td>", Esc(gate_text), "</td></tr>\n");
}

}  // namespace

std::string RenderComparisonHtml(const Comparison& c, const GateResult* gate,
                                 const HtmlLimits& limits) {
  const ComparisonSummary s = SummarizeComparison(c, gate);
  std::string body = Warnings(s.warnings);
  if (gate != nullptr) body += GateBanner(*gate);
  absl::StrAppend(
      &body, "<p>",
      Esc(absl::StrCat(
          s.method, ": ",
          absl::StrFormat("%d slower, %d faster, %d same, %d ambiguous, %d not timed; "
                          "%d correctness regressions; %d only in base, %d only in "
                          "next.",
                          s.counts.slower, s.counts.faster, s.counts.same, s.counts.ambiguous,
                          s.counts.not_timed, s.counts.correctness_regressions, s.only_base.size(),
                          s.only_next.size()))),
      "</p>\n<h2>Median change (most changed first)</h2>\n", DeltaChart(s, limits.delta_bars));
  body +=
      "<h2>Pairs</h2>\n<table "
      "class=\"pairs\"><tr><th>kernel</th><th>problem</th><th>status</th><th>base ms</th><th>next "
      "ms</th><th>delta</th><th>p</th><th>verdict</th><th>gate</th></tr>\n";
  for (const PairSummary& p : s.pairs) body += PairRow(p);
  body += "</table>\n";
  if (!s.rebuilt.empty()) {
    body += "<h2>Kernels from another build</h2><ul>\n";
    for (const auto& [kernel, change] : s.rebuilt) {
      absl::StrAppend(&body, "<li>", Esc(kernel), ": ", Esc(change), "</li>\n");
    }
    body += "</ul>\n";
  }
  for (const auto& [title, cases] : {std::make_pair("Only in base", &s.only_base),
                                     std::make_pair("Only in next", &s.only_next)}) {
    if (cases->empty()) continue;
    absl::StrAppend(&body, "<h2>", title, " (", cases->size(), ")</h2><ul>\n");
    for (const PairSummary& x : *cases) {
      const CaseResult* one = x.base != nullptr ? x.base : x.next;
      absl::StrAppend(&body, "<li>", Esc(x.key), " (", CaseStatusName(one->status), ")</li>\n");
    }
    body += "</ul>\n";
  }
  return Page(gate ? "flashscope gate" : "flashscope compare", body);
}

}  // namespace flashscope::reports
