// CPU tests of the viewer's model: colour map, results filtering and sorting, chart data and
// compare colours. No window, no GL.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "analysis/heatmap_overlay.h"
#include "analysis/summary.h"
#include "viewer/case_values.h"
#include "viewer/chart_model.h"
#include "viewer/colormap.h"
#include "viewer/results_model.h"
#include "viewer/tests/synthetic_report.h"

namespace flashscope::viewer {
namespace {

bool SameRgb(Rgb a, Rgb b) { return a.r == b.r && a.g == b.g && a.b == b.b; }

TEST(Colormap, LightnessRisesMonotonicallyAndEvenly) {
  const auto& t = ColormapTable();
  double prev = -1;
  for (int i = 0; i < 256; ++i) {
    // Measured back from the 8-bit sRGB colour, so gamut clipping and rounding are included.
    double L = OklabLightnessOfSrgb(t[size_t(i)]);
    EXPECT_GT(L, prev - 1e-3) << "at " << i;
    EXPECT_NEAR(L, ColormapLightness(i / 255.0), 0.02) << "at " << i;
    prev = L;
  }
  EXPECT_GT(OklabLightnessOfSrgb(t[255]) - OklabLightnessOfSrgb(t[0]), 0.6);
}

TEST(Colormap, EndsAreVioletAndYellowAndNanIsMagenta) {
  Rgb lo = Viridisish(0), hi = Viridisish(1);
  EXPECT_GT(lo.b, lo.g);  // dark violet: blue and red over green
  EXPECT_GT(lo.r, lo.g);
  EXPECT_LT(lo.r + lo.g + lo.b, 250);
  EXPECT_GT(hi.r, 200);  // yellow
  EXPECT_GT(hi.g, 200);
  EXPECT_LT(hi.b, 120);
  EXPECT_TRUE(SameRgb(Viridisish(std::nan("")), Rgb{255, 0, 255}));
  EXPECT_TRUE(SameRgb(Viridisish(-3), lo));
}

TEST(ResultsModel, FilterWordsNegationAndStatus) {
  reports::Report r = testing::MakeSyntheticReport(200, 1);
  const reports::ReportSummary s = reports::SummarizeReport(r);
  ResultsFilter f;
  f.text = "A04 D=128";
  for (int i : FilterAndSort(s, f, {})) {
    EXPECT_NE(r.cases[size_t(i)].kernel_id.find("a04"), std::string::npos);
    EXPECT_NE(r.cases[size_t(i)].problem_key.find("D=128"), std::string::npos);
  }
  EXPECT_FALSE(FilterAndSort(s, f, {}).empty());
  f.text = "-peer";
  for (int i : FilterAndSort(s, f, {})) EXPECT_FALSE(IsPeer(r.cases[size_t(i)].kernel_id));
  f.text = "";
  f.show_status[int(reports::CaseStatus::kPassed)] = false;
  auto rest = FilterAndSort(s, f, {});
  EXPECT_FALSE(rest.empty());
  for (int i : rest) EXPECT_NE(r.cases[size_t(i)].status, reports::CaseStatus::kPassed);
}

TEST(ResultsModel, NumericSortPutsMissingValuesLastBothWays) {
  reports::Report r = testing::MakeSyntheticReport(100, 2);
  const reports::ReportSummary s = reports::SummarizeReport(r);
  for (bool desc : {false, true}) {
    auto order = FilterAndSort(s, {}, {{"tflops", desc}});
    ASSERT_EQ(order.size(), r.cases.size());
    bool seen_missing = false;
    double prev = desc ? 1e300 : -1e300;
    for (int i : order) {
      const auto& c = r.cases[size_t(i)];
      if (!c.throughput) {
        seen_missing = true;
        continue;
      }
      EXPECT_FALSE(seen_missing) << "a timed case after an untimed one";
      if (desc)
        EXPECT_LE(c.throughput->tflops, prev);
      else
        EXPECT_GE(c.throughput->tflops, prev);
      prev = c.throughput->tflops;
    }
    EXPECT_TRUE(seen_missing);
  }
}

TEST(ResultsModel, MultiKeySortAndCachedOrder) {
  reports::Report r = testing::MakeSyntheticReport(120, 3);
  std::vector<SortKey> keys = {{"kernel", false}, {"median_ms", true}};
  auto order = FilterAndSort(reports::SummarizeReport(r), {}, keys);
  for (size_t i = 1; i < order.size(); ++i) {
    const auto& a = r.cases[size_t(order[i - 1])];
    const auto& b = r.cases[size_t(order[i])];
    ASSERT_LE(a.kernel_id, b.kernel_id);
    if (a.kernel_id == b.kernel_id && a.timing && b.timing) {
      EXPECT_GE(a.timing->median_ms, b.timing->median_ms);
    }
  }
  ResultsOrder cache;
  cache.Get(r, 1, {}, keys);
  cache.Get(r, 1, {}, keys);
  EXPECT_EQ(cache.recomputations(), 1);
  cache.Get(r, 2, {}, keys);  // reloaded report
  ResultsFilter f;
  f.text = "a0";
  cache.Get(r, 2, f, keys);
  EXPECT_EQ(cache.recomputations(), 3);
}

// The table's columns are the summary model's: every headline value a case has, named and
// explained once in reports/summary.cc, not by substring here.
TEST(ResultsModel, ColumnsAndCellsComeFromTheSummaryModel) {
  reports::Report r = testing::MakeSyntheticReport(20, 4);
  const reports::ReportSummary s = reports::SummarizeReport(r);
  const std::vector<TableColumn> columns = ResultsColumns(s);
  std::vector<std::string> keys;
  for (const TableColumn& c : columns) keys.push_back(c.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"kernel", "problem", "status", "median_ms", "tflops",
                                            "pct_peak_flops", "max_abs", "ratio_to_baseline",
                                            "tensor_pipe_pct", "shared_pct", "dram_pct",
                                            "achieved_occupancy"}));
  for (const TableColumn& c : columns) EXPECT_FALSE(c.description.empty()) << c.key;
  const reports::CaseSummary& c = s.cases[3];  // a rung, passed, profiled
  ASSERT_EQ(c.status, reports::CaseStatus::kPassed);
  EXPECT_EQ(CellText(c, columns[0]), c.kernel_id);
  EXPECT_EQ(CellText(c, columns[2]), "passed");
  char tensor[16];
  std::snprintf(tensor, sizeof tensor, "%.1f", r.cases[3].profile->metrics[0].value);
  EXPECT_EQ(CellText(c, columns[8]), tensor);
  // The synthetic report's "bank_conflicts" count is not the shared-memory % (a substring match
  // once took it for one): it is no column.
  EXPECT_EQ(std::count(keys.begin(), keys.end(), "bank_conflicts"), 0);
  const reports::CaseSummary& skipped = s.cases[1];
  ASSERT_EQ(skipped.status, reports::CaseStatus::kSkipped);
  EXPECT_EQ(CellText(skipped, columns[4]), "-");
}

TEST(ChartModel, LadderOrdersRungsAndSeparatesPeers) {
  reports::Report r = testing::MakeSyntheticReport(40, 5);
  auto problems = LadderProblems(r);
  ASSERT_FALSE(problems.empty());
  Ladder l = BuildLadder(r, problems[0]);
  ASSERT_GE(l.rungs.size(), 5u);
  EXPECT_EQ(l.peers.size(), 2u);
  for (size_t i = 1; i < l.rungs.size(); ++i) {
    EXPECT_LT(l.rungs[i - 1].revision, l.rungs[i].revision);
    EXPECT_FALSE(l.rungs[i].changed.empty());
  }
  for (const auto& p : l.peers) EXPECT_TRUE(IsPeer(p.kernel_id));
  EXPECT_GE(l.max_tflops, l.peers[0].tflops);
}

TEST(ChartModel, RooflineCeilingsAndAxes) {
  EXPECT_DOUBLE_EQ(AttainableTflops(10, 800, 4000), 40);     // memory bound: 10 FLOP/B * 4 TB/s
  EXPECT_DOUBLE_EQ(AttainableTflops(1000, 800, 4000), 800);  // compute bound
  EXPECT_DOUBLE_EQ(AttainableTflops(10, 800, 0), 800);       // no bandwidth measured
  reports::Report r = testing::MakeSyntheticReport(60, 6);
  Roofline rl = BuildRoofline(r);
  EXPECT_FALSE(rl.points.empty());
  for (const auto& p : rl.points) {
    EXPECT_GE(p.intensity, rl.intensity.min);
    EXPECT_LE(p.intensity, rl.intensity.max);
    EXPECT_LE(p.tflops, rl.tflops.max);
  }
  const reports::MeasuredPeaks& peaks = r.environment.peaks;
  double ridge = peaks.matmul_fp16_tflops * 1000.0 / peaks.copy_gbps;  // fp16 peak / bandwidth
  EXPECT_LE(rl.intensity.min, ridge);
  EXPECT_GE(rl.intensity.max, ridge);
}

TEST(ChartModel, HeatmapImageScalesAndRejectsDamagedRecords) {
  reports::HeatmapRecord h;
  h.kind = "position_x_dim";
  h.rows = 2;
  h.cols = 2;
  h.max = {0.f, 1e-4f, 1e-2f, 1.f};
  h.mean = h.max;
  HeatmapImage lin = BuildHeatmapImage(h, false, false);
  ASSERT_TRUE(lin.error.empty());
  EXPECT_EQ(lin.rgba.size(), 4u);
  EXPECT_DOUBLE_EQ(lin.hi, 1.0);
  EXPECT_NE(lin.rgba[0], lin.rgba[3]);
  EXPECT_EQ(lin.rgba[0], lin.rgba[1]);  // 1e-4 is indistinguishable from 0 on a linear scale
  HeatmapImage lg = BuildHeatmapImage(h, false, true);
  EXPECT_NE(lg.rgba[1], lg.rgba[2]);  // ...but not on a log scale
  EXPECT_NEAR(ScalePosition(1e-2, 1e-4, 1, true), 0.5, 1e-9);
  h.max.pop_back();
  HeatmapImage bad = BuildHeatmapImage(h, false, false);
  EXPECT_NE(bad.error.find("damaged"), std::string::npos);
  EXPECT_TRUE(bad.rgba.empty());
  h.rows = 0;
  EXPECT_FALSE(BuildHeatmapImage(h, true, false).error.empty());
}

// verify/ writes the largest float for a never-written, NaN or Inf element: such a cell is drawn
// in its own colour and left out of the scale, so that the real errors keep their colours.
TEST(ChartModel, SaturatedCellsStayOutOfTheScale) {
  reports::HeatmapRecord h;
  h.kind = "position_x_dim";
  h.rows = 1;
  h.cols = 4;
  h.max = {1e-3f, 1e-2f, std::numeric_limits<float>::max(), INFINITY};
  h.mean = {1e-4f, 1e-3f, 1e37f, 5.f};  // a mean diluted by good elements, still saturated
  for (bool mean : {false, true}) {
    for (bool log : {false, true}) {
      const HeatmapImage img = BuildHeatmapImage(h, mean, log);
      ASSERT_TRUE(img.error.empty());
      EXPECT_FLOAT_EQ(float(img.hi), mean ? 1e-3f : 1e-2f) << mean << log;
      EXPECT_EQ(img.saturated, 2);
      EXPECT_EQ(img.rgba[2], PackRgb(palette::kSaturated));
      EXPECT_EQ(img.rgba[3], PackRgb(palette::kSaturated));
      EXPECT_NE(img.rgba[0], img.rgba[1]);  // the real errors still span the colour map
    }
  }
  EXPECT_FALSE(reports::IsSaturatedCell(1e30f));
  EXPECT_TRUE(reports::IsSaturatedCell(NAN));
  // A record whose max is damaged is refused in the mean view too: the max marks saturation.
  h.max.pop_back();
  EXPECT_NE(BuildHeatmapImage(h, true, true).error.find("max holds 3 values"), std::string::npos);
}

TEST(ChartModel, HistogramCountsEverySample) {
  Histogram h = BuildHistogram({1, 1, 2, 3, 3, 3, NAN, 4}, 4);
  int total = 0;
  for (int c : h.counts) total += c;
  EXPECT_EQ(total, 7);
  EXPECT_EQ(h.max_count, 3);
  EXPECT_TRUE(BuildHistogram({}, 10).counts.empty());
  EXPECT_EQ(BuildHistogram({5, 5, 5}, 3).max_count, 3);  // zero width range still bins
}

TEST(ChartModel, RungLabelsKeepVariantsApart) {
  const auto a = RungLabel("attn.a11_fa4_softmax", 8, 3);
  const auto b = RungLabel("attn.a11_fa4_poly_exp", 8, 3);
  const auto c = RungLabel("attn.a11_fa4_cond_rescale", 8, 3);
  EXPECT_EQ(a, (std::vector<std::string>{"a11_fa4", "softmax"}));
  EXPECT_EQ(b, (std::vector<std::string>{"a11_fa4", "poly_exp"}));
  EXPECT_EQ(c, (std::vector<std::string>{"a11_fa4", "cond", "rescale"}));
  EXPECT_EQ(RungLabel("gemm.g01_naive", 20, 3), (std::vector<std::string>{"g01_naive"}));
  EXPECT_EQ(RungLabel("attn.a16_fa4_cond_rescale_x", 4, 2),
            (std::vector<std::string>{"a16", "fa4~"}));
}

TEST(ChartModel, HeatmapsSideBySideShareOneScale) {
  reports::HeatmapRecord a, b;
  a.kind = b.kind = "position_x_dim";
  a.rows = b.rows = 1;
  a.cols = b.cols = 2;
  a.max = {1e-3f, 1e-2f};
  b.max = {1e-4f, 1.f};
  const ValueRange r = Union(HeatmapRange(a, false, true), HeatmapRange(b, false, true), true);
  EXPECT_FLOAT_EQ(float(r.lo), 1e-4f);
  EXPECT_FLOAT_EQ(float(r.hi), 1.f);
  // On the shared scale a's largest error is not the top colour, as it is on its own.
  EXPECT_NE(BuildHeatmapImage(a, false, true, &r).rgba[1],
            BuildHeatmapImage(a, false, true).rgba[1]);
}

TEST(ChartModel, ToneColoursByDecisionNotBySize) {
  EXPECT_TRUE(SameRgb(ToneColour(reports::Tone::kFailure), palette::kWorse));
  EXPECT_TRUE(SameRgb(ToneColour(reports::Tone::kSlower), palette::kSlower));
  EXPECT_TRUE(SameRgb(ToneColour(reports::Tone::kUnsure), palette::kUnsure));
  EXPECT_TRUE(SameRgb(ToneColour(reports::Tone::kFaster), palette::kBetter));
  EXPECT_TRUE(SameRgb(ToneColour(reports::Tone::kNeutral), palette::kNeutral));
}

}  // namespace
}  // namespace flashscope::viewer
