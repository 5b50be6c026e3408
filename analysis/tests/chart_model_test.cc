// The one chart model: every number it hands a view is finite and bounded, whatever the report
// says (issue 23: inf or 1.79e308 throughput, or a missing flops, once sent the HTML roofline's
// tick loop on until 15 GB of memory); what it leaves out is counted in the chart's note.
#include "analysis/chart_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace flashscope::reports {
namespace {

using ::testing::HasSubstr;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

CaseResult Timed(const std::string& kernel, int revision, double tflops, double flops, double bytes,
                 CaseStatus status = CaseStatus::kPassed) {
  CaseResult c;
  c.kernel_id = kernel;
  c.kernel_revision = revision;
  c.family = "attention_fwd";
  c.problem_key = "attention_fwd{B=1,H=1,S=128,D=64,fp16}";
  c.status = status;
  c.throughput.emplace();
  c.throughput->tflops = tflops;
  c.throughput->flops = flops;
  c.throughput->bytes = bytes;
  c.throughput->pct_peak_flops = tflops / 8;
  return c;
}

Report WithPeaks(double fp16, double bf16, double copy_gbps) {
  Report r;
  r.environment.peaks.matmul_fp16_tflops = fp16;
  r.environment.peaks.matmul_bf16_tflops = bf16;
  r.environment.peaks.copy_gbps = copy_gbps;
  return r;
}

void ExpectFiniteAxis(const LogAxis& a, double floor, double ceiling) {
  ASSERT_TRUE(std::isfinite(a.min) && std::isfinite(a.max));
  EXPECT_GT(a.min, 0);
  EXPECT_LT(a.min, a.max);
  EXPECT_GE(a.min, floor / 10);
  EXPECT_LE(a.max, ceiling * 10);
  EXPECT_GE(a.ticks.size(), 2u);
  EXPECT_LE(a.ticks.size(), size_t(kChartMaxTicks));
  EXPECT_DOUBLE_EQ(a.ticks.front(), a.min);
  EXPECT_DOUBLE_EQ(a.ticks.back(), a.max);
}

void ExpectAllFinite(const Roofline& rl) {
  ExpectFiniteAxis(rl.intensity, kChartMinIntensity, kChartMaxIntensity);
  ExpectFiniteAxis(rl.tflops, kChartMinTflops, kChartMaxTflops);
  for (const RooflinePoint& p : rl.points) {
    EXPECT_TRUE(std::isfinite(p.intensity) && std::isfinite(p.tflops));
    EXPECT_GE(p.intensity, rl.intensity.min);
    EXPECT_LE(p.intensity, rl.intensity.max);
    EXPECT_GE(p.tflops, rl.tflops.min);
    EXPECT_LE(p.tflops, rl.tflops.max);
  }
  for (const Ceiling& c : rl.ceilings) {
    EXPECT_TRUE(std::isfinite(c.peak_tflops) && std::isfinite(c.ridge));
    EXPECT_LE(c.polyline.size(), 3u);
    for (const auto& [x, y] : c.polyline) EXPECT_TRUE(std::isfinite(x) && std::isfinite(y));
  }
}

TEST(ChartModel, HostileThroughputIsLeftOutAndCounted) {
  Report r = WithPeaks(800, 790, 4000);
  r.cases.push_back(Timed("attn.a01", 1, 100, 1e12, 1e9));  // the one good point
  r.cases.push_back(Timed("attn.a02", 2, kInf, 1e12, 1e9));
  r.cases.push_back(Timed("attn.a03", 3, 1.79e308, 1e12, 1e9));
  r.cases.push_back(Timed("attn.a04", 4, 0, 1e12, 1e9));
  r.cases.push_back(Timed("attn.a05", 5, -5, 1e12, 1e9));
  r.cases.push_back(Timed("attn.a06", 6, kNaN, 1e12, 1e9));
  r.cases.push_back(Timed("attn.a07", 7, 100, 0, 1e9));  // flops missing: read as 0
  r.cases.push_back(Timed("attn.a08", 8, 100, 1e12, 0));
  r.cases.push_back(Timed("attn.a09", 9, 100, kInf, 1e9));
  r.cases.push_back(Timed("attn.a10", 10, 100, 1e308, 1e-308));  // intensity inf
  r.cases.push_back(Timed("attn.a11", 11, 100, kNaN, kNaN));
  CaseResult skipped;  // no throughput at all: not a point, not counted
  skipped.kernel_id = "attn.a12";
  skipped.status = CaseStatus::kSkipped;
  r.cases.push_back(skipped);

  const Roofline rl = BuildRoofline(r);
  ASSERT_EQ(rl.points.size(), 1u);
  EXPECT_EQ(rl.points[0].case_index, 0);
  EXPECT_EQ(rl.note.left_out, 10);
  EXPECT_THAT(rl.note.Text(), HasSubstr("10 cases left out"));
  EXPECT_THAT(rl.note.Text(), HasSubstr("tflops is inf"));
  EXPECT_EQ(rl.note.examples.size(), ChartNote::kMaxExamples);
  ExpectAllFinite(rl);

  const Ladder l = BuildLadder(r, r.cases[0].problem_key);
  // Every case keeps its rung; those whose number cannot be drawn have no bar.
  ASSERT_EQ(l.rungs.size(), 11u);
  int timed = 0;
  for (const LadderBar& b : l.rungs) {
    timed += b.timed;
    EXPECT_TRUE(std::isfinite(b.tflops) && std::isfinite(b.pct_peak));
    EXPECT_LE(b.tflops, kChartMaxTflops);
  }
  // a01, a04 (0 TFLOPS is a bar of height 0) and the five with usable TFLOPS but bad counts.
  EXPECT_EQ(timed, 7);
  EXPECT_EQ(l.note.left_out, 4);  // inf, 1.79e308, -5, NaN
  EXPECT_DOUBLE_EQ(l.max_tflops, 100);
}

TEST(ChartModel, HostilePeaksDrawNoCeilingAndKeepAxesBounded) {
  for (double bad : {kInf, -kInf, kNaN, 1.79e308, 0.0, -1.0}) {
    Report r = WithPeaks(bad, bad, bad);
    r.cases.push_back(Timed("attn.a01", 1, 100, 1e12, 1e9));
    const Roofline rl = BuildRoofline(r);
    EXPECT_TRUE(rl.ceilings.empty()) << bad;
    EXPECT_EQ(rl.points.size(), 1u) << bad;
    ExpectAllFinite(rl);
  }
  // A usable peak with a bandwidth at the bottom of its range: the ridge is far right, still
  // inside the bounded axis, and the roof still three finite points at most.
  Report r = WithPeaks(800, 0, 1e-3);
  const Roofline rl = BuildRoofline(r);
  ASSERT_EQ(rl.ceilings.size(), 1u);
  ExpectAllFinite(rl);
}

TEST(ChartModel, LogAxisIsBoundedByConstruction) {
  const double values[] = {kInf, -kInf, kNaN, 1e308, -1e308, 0, -1, 1e-308, 5};
  for (double lo : values) {
    for (double hi : values) {
      const LogAxis a = MakeLogAxis(lo, hi, kChartMinTflops, kChartMaxTflops);
      ExpectFiniteAxis(a, kChartMinTflops, kChartMaxTflops);
    }
  }
  // The widest range the bounds allow still has at most kChartMaxTicks ticks, whole decades.
  const LogAxis wide = MakeLogAxis(1e-300, 1e300, kChartMinIntensity, kChartMaxIntensity);
  EXPECT_LE(wide.ticks.size(), size_t(kChartMaxTicks));
  EXPECT_LE(wide.min, kChartMinIntensity);
  EXPECT_GE(wide.max, kChartMaxIntensity);
  const LogAxis narrow = MakeLogAxis(20, 300, kChartMinTflops, kChartMaxTflops);
  EXPECT_EQ(narrow.ticks, (std::vector<double>{10, 100, 1000}));
}

TEST(ChartModel, LadderKeepsFailedRungsAndPeersApart) {
  Report r = WithPeaks(800, 790, 4000);
  r.cases.push_back(Timed("attn.a02", 2, 300, 1e12, 1e9, CaseStatus::kFailed));
  r.cases.push_back(Timed("peer.cudnn", 0, 600, 1e12, 1e9));
  r.cases.push_back(Timed("attn.a01", 1, 200, 1e12, 1e9));
  CaseResult error = Timed("attn.a03", 3, 0, 0, 0, CaseStatus::kError);
  error.throughput.reset();
  r.cases.push_back(error);
  const Ladder l = BuildLadder(r, r.cases[0].problem_key);
  ASSERT_EQ(l.rungs.size(), 3u);
  EXPECT_EQ(l.rungs[0].kernel_id, "attn.a01");
  EXPECT_EQ(l.rungs[1].status, CaseStatus::kFailed);
  EXPECT_TRUE(l.rungs[1].timed);
  EXPECT_FALSE(l.rungs[2].timed);  // the error keeps its slot
  ASSERT_EQ(l.peers.size(), 1u);
  EXPECT_DOUBLE_EQ(l.max_tflops, 600);
  EXPECT_EQ(l.note.left_out, 0);
  EXPECT_EQ(l.note.Text(), "");
  EXPECT_EQ(LadderProblems(r), (std::vector<std::string>{r.cases[0].problem_key}));
}

}  // namespace
}  // namespace flashscope::reports
