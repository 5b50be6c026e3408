// The statistics of compare: the verdict rule on its own, Mann-Whitney on the raw samples of
// paired cases, metric deltas, the environment refusal flags and the forced banner.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "analysis/compare.h"
#include "render/render_terminal.h"
#include "reports/tests/sample_reports.h"
#include "reports/tests/timed_reports.h"

namespace flashscope::reports {
namespace {

using testing::Timed;
using testing::With;

using ::testing::HasSubstr;
using testing::SimpleCase;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Evidence of a pair with `n` samples a side whose minimum moved like its median.
VerdictEvidence Ev(double median_delta, double p_value, int n = 10) {
  return {median_delta, median_delta, p_value, n, n};
}

TEST(DecideVerdict, TheOutcomes) {
  CompareOptions o;  // alpha 0.01, min effect 2 %, 10 samples a side for the test
  std::string why;
  EXPECT_EQ(DecideVerdict(Ev(0.05, 0.001), o, &why), Verdict::kSlower);
  EXPECT_EQ(why, "p 0.001 < 0.01, |+5.0%| >= 2%");
  EXPECT_EQ(DecideVerdict(Ev(-0.05, 0.001), o, &why), Verdict::kFaster);
  EXPECT_EQ(DecideVerdict(Ev(0.01, 0.001), o, &why), Verdict::kSame);  // significant but small
  EXPECT_EQ(why, "|+1.0%| < 2%");
  EXPECT_EQ(DecideVerdict(Ev(0.01, 0.5), o, &why), Verdict::kSame);
  EXPECT_EQ(DecideVerdict(Ev(0.05, 0.5), o, &why), Verdict::kAmbiguous);  // big, not significant
  EXPECT_EQ(why, "+5.0% but p 0.5 >= 0.01");
  EXPECT_EQ(DecideVerdict(Ev(kNaN, 0.001), o, &why), Verdict::kNotTimed);
  // No raw samples: the medians and minimums decide (0 vs 0 samples is "too few").
  EXPECT_EQ(DecideVerdict(Ev(0.05, kNaN, 0), o, &why), Verdict::kSlower);
  EXPECT_EQ(why,
            "0 vs 0 samples (< 10): no test, judged by effect: median +5.0%, min +5.0%, "
            "both >= 2%");
  // Few samples, the minimum did not move with the median: ambiguous.
  EXPECT_EQ(DecideVerdict({0.05, 0.001, 0.3, 3, 3}, o, &why), Verdict::kAmbiguous);
  EXPECT_EQ(why,
            "3 vs 3 samples (< 10): too few for the test (p 0.3), median +5.0% but min "
            "+0.1%");
  // The thresholds are the options'.
  CompareOptions loose{0.05, 0.10, false};
  EXPECT_EQ(DecideVerdict(Ev(0.05, 0.02), loose, nullptr), Verdict::kSame);
  EXPECT_EQ(DecideVerdict(Ev(0.12, 0.02), loose, nullptr), Verdict::kSlower);
}

TEST(CompareStats, SeparatedSamplesGiveSlowerAndFaster) {
  // 10 vs 10 samples, 5 % apart and fully separated: exact p = 2 / C(20,10) ~ 1.1e-5.
  Report base =
      With({Timed("attn.a", 1.0, 10), Timed("attn.b", 1.0, 10), Timed("attn.c", 1.0, 10)});
  Report next =
      With({Timed("attn.a", 1.05, 10), Timed("attn.b", 0.95, 10), Timed("attn.c", 1.005, 10)});
  Comparison c = Compare(base, next);
  ASSERT_EQ(c.paired.size(), 3u);
  EXPECT_TRUE(c.paired[0].tested);
  EXPECT_TRUE(c.paired[0].test.exact);
  EXPECT_NEAR(c.paired[0].PValue(), 2.0 / 184756, 1e-12);
  EXPECT_EQ(c.paired[0].verdict, Verdict::kSlower);
  EXPECT_EQ(c.paired[1].verdict, Verdict::kFaster);
  EXPECT_EQ(c.paired[2].verdict, Verdict::kSame);  // +0.5 %: under the minimum effect
  EXPECT_EQ(c.CountVerdict(Verdict::kSlower), 1);
  std::string out = RenderComparison(c, false);
  EXPECT_THAT(out, HasSubstr("slower (p 1.1e-05 < 0.01, |+5.0%| >= 2%)"));
  EXPECT_THAT(out,
              HasSubstr("verdicts (Mann-Whitney U, alpha 0.01, min effect 2%): 1 faster, 1 "
                        "slower, 1 same, 0 ambiguous, 0 not timed; 0 correctness regressions"));
}

TEST(CompareStats, TooFewSamplesAreJudgedByEffectAndSaySo) {
  // SimpleCase has 3 samples: 3 vs 3 can never reach p < 0.01 (smallest p is 0.1), so the
  // median and the minimum decide.
  Report base = With({SimpleCase("attn.a", "p1", CaseStatus::kPassed, 1.0)});
  Report next = With({SimpleCase("attn.a", "p1", CaseStatus::kPassed, 1.5)});
  Comparison c = Compare(base, next);
  EXPECT_EQ(c.paired[0].verdict, Verdict::kSlower);
  EXPECT_TRUE(c.paired[0].judged_by_effect);
  EXPECT_EQ(c.paired[0].verdict_reason,
            "3 vs 3 samples (< 10): too few for the test (p 0.1), judged by effect: median "
            "+50.0%, min +50.0%, both >= 2%");
  // A looser alpha lets the test speak.
  Comparison loose = Compare(base, next, {0.2, 0.02, false});
  EXPECT_EQ(loose.paired[0].verdict, Verdict::kSlower);
  EXPECT_FALSE(loose.paired[0].judged_by_effect);
}

TEST(CompareStats, MetricDeltasPairByHardwareName) {
  Report base = With({Timed("attn.a", 1.0, 10)});
  Report next = With({Timed("attn.a", 1.0, 10)});
  ProfileRecord pa, pb;
  pa.available = pb.available = true;
  pa.metrics = {{"tensor_pipe_pct", "sm__pipe_tensor", "%", 20}, {"dram_pct", "dram__x", "%", 5}};
  pb.metrics = {{"tensor_renamed", "sm__pipe_tensor", "%", 50}};
  base.cases[0].profile = pa;
  next.cases[0].profile = pb;
  Comparison c = Compare(base, next);
  ASSERT_EQ(c.paired[0].metrics.size(), 1u);
  EXPECT_EQ(c.paired[0].metrics[0].name, "tensor_pipe_pct");
  EXPECT_EQ(c.paired[0].metrics[0].Delta(), 30);
}

TEST(CompareStats, DriverDifferenceIsAMismatchAndForcedSaysSo) {
  Report base = With({Timed("attn.a", 1.0, 10)});
  Report next = base;
  next.environment.driver_version = "575.1";
  Comparison c = Compare(base, next);
  EXPECT_FALSE(c.different_gpu);
  EXPECT_TRUE(c.different_driver);
  EXPECT_TRUE(c.EnvironmentMismatch());
  EXPECT_FALSE(c.forced);
  EXPECT_EQ(c.ForcedBanner(), "");
  Comparison f = Compare(base, next, {0.01, 0.02, /*forced=*/true});
  EXPECT_TRUE(f.forced);
  EXPECT_THAT(f.ForcedBanner(), HasSubstr("FORCED comparison across different environments "
                                          "(driver \"580.00.00\" vs \"575.1\""));
  EXPECT_EQ(RenderComparison(f, false).rfind("FORCED", 0), 0u);  // first line
  // Forcing same environments changes nothing.
  EXPECT_FALSE(Compare(base, base, {0.01, 0.02, true}).forced);
}

}  // namespace
}  // namespace flashscope::reports
