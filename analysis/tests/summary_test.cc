// The summary model (analysis/summary.h, analysis/comparison_summary.h): what a case and a
// comparison show, derived once for every printer and the viewer.
#include "analysis/summary.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/comparison_summary.h"
#include "render/render_csv.h"
#include "render/render_junit.h"
#include "render/render_markdown.h"
#include "render/render_terminal.h"
#include "reports/tests/sample_reports.h"

namespace flashscope::reports {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::SimpleCase;

CaseResult Profiled(std::vector<MetricRecord> metrics) {
  CaseResult c = SimpleCase("attn.a05", "p1", CaseStatus::kPassed, 1.0);
  ProfileRecord p;
  p.available = true;
  p.metrics = std::move(metrics);
  c.profile = p;
  return c;
}

TEST(SummarizeCase, MetricsAreFoundByHardwareNameThenFriendlyName) {
  const std::string hw = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active";
  EXPECT_EQ(SummarizeCase(Profiled({{"renamed", hw, "%", 42.5}})).Find("tensor_pipe_pct")->value,
            42.5);
  EXPECT_EQ(
      SummarizeCase(Profiled({{"tensor_pipe_pct", "", "%", 7}})).Find("tensor_pipe_pct")->value, 7);
  // A count metric whose name holds "tensor" is not the tensor pipe (the viewer's substring
  // match once took it for one).
  CaseSummary s = SummarizeCase(Profiled(
      {{"mma_instructions", "sm__inst_executed_pipe_tensor_op_hmma.sum", "instructions", 123456}}));
  EXPECT_TRUE(std::isnan(s.Find("tensor_pipe_pct")->value));
  ASSERT_NE(s.Find("mma_instructions"), nullptr);
  EXPECT_EQ(s.Find("mma_instructions")->spec.hint, Hint::kCount);
  EXPECT_FALSE(s.Find("mma_instructions")->spec.headline);
  CaseResult off = Profiled({{"tensor_pipe_pct", hw, "%", 42.5}});
  off.profile->available = false;
  EXPECT_TRUE(std::isnan(SummarizeCase(off).Find("tensor_pipe_pct")->value));
}

TEST(SummarizeCase, OneRuleForASkippedCasesTiming) {
  CaseResult skipped = SimpleCase("a", "p", CaseStatus::kSkipped, 0);
  skipped.timing = TimingRecord{};
  skipped.timing->median_ms = 3;
  EXPECT_TRUE(std::isnan(SummarizeCase(skipped).Find("median_ms")->value));
  EXPECT_EQ(FormatValue(*SummarizeCase(skipped).Find("median_ms")), "-");
  EXPECT_EQ(SummarizeCase(skipped).reason, "head_dim 96 not supported (64 or 128)");
}

TEST(SummarizeCase, FailedVerificationRaisesTheAlarmAndGivesTheRule) {
  CaseSummary s = SummarizeCase(SimpleCase("a", "p", CaseStatus::kFailed, 2));
  EXPECT_TRUE(s.bad);
  EXPECT_EQ(s.reason, "max_abs 4.1e-01 > 2 x baseline 9.0e-04 + 1e-05");
  EXPECT_TRUE(s.Find("ratio_to_baseline")->alarm);
  EXPECT_EQ(FormatValue(*s.Find("ratio_to_baseline")), "455.56");
  EXPECT_EQ(s.Find("verified")->text, "failed");
  // Without a baseline the ratio means nothing: absent, not 0.
  CaseResult no_base = SimpleCase("a", "p", CaseStatus::kPassed, 2);
  no_base.verification->baseline_max_abs = 0;
  EXPECT_FALSE(SummarizeCase(no_base).Find("ratio_to_baseline")->Has());
}

TEST(SummarizeCase, EveryValueDescribesItself) {
  const CaseSummary s = SummarizeCase(testing::FullReport().cases[0]);
  for (const SummaryValue& v : s.values) {
    EXPECT_FALSE(v.spec.key.empty());
    EXPECT_FALSE(v.spec.label.empty()) << v.spec.key;
    EXPECT_FALSE(v.spec.description.empty()) << v.spec.key;
  }
  // The record's own description wins; the catalogue's stands in for reports that lack one.
  EXPECT_EQ(s.Find("tensor_pipe_pct")->spec.description,
            "Tensor pipe busy, % of active SM cycles (HMMA from mma.sync; on sm_90 also "
            "HGMMA/QGMMA from wgmma)");
  EXPECT_EQ(MetricDescription(testing::FullReport().cases[0].profile->metrics[0]),
            "tensor pipe busy, as the runner described it");
  EXPECT_THAT(MetricDescription({"x__y.sum", "x__y.sum", "", 1}),
              HasSubstr("raw hardware metric x__y.sum"));
}

// A measurement the printers were never told about reaches every output by itself.
TEST(SummarizeReport, ANewMetricNeedsNoPrinterChange) {
  Report r;
  r.complete = true;
  r.cases = {Profiled({{"warp_stall_pct", "smsp__warp_stall.avg.pct", "%", 12.25}}),
             SimpleCase("attn.a06", "p1", CaseStatus::kPassed, 2.0)};
  const ReportSummary s = SummarizeReport(r);
  ASSERT_EQ(s.cases[1].values.size(), s.columns.size());  // aligned: absent in the second case
  EXPECT_FALSE(s.cases[1].Find("warp_stall_pct")->Has());
  const std::string csv = RenderReportCsv(r);
  EXPECT_THAT(csv, HasSubstr(",warp_stall_pct,reason\r\n"));
  EXPECT_THAT(csv, HasSubstr(",12.25,"));
  EXPECT_THAT(RenderReportJunit(r), Not(HasSubstr("warp_stall")));  // not a headline value
  EXPECT_THAT(RenderCaseTable(r, false), Not(HasSubstr("warp_stall")));
}

TEST(SummarizeReport, HeadlineColumnsAreThoseSomeCaseHas) {
  Report r;
  r.complete = true;
  r.cases = {SimpleCase("a", "p", CaseStatus::kPassed, 1.0)};
  const ReportSummary s = SummarizeReport(r);
  std::vector<std::string> labels;
  for (size_t k : HeadlineColumns(s)) labels.push_back(s.columns[k].label);
  EXPECT_THAT(labels,
              ::testing::ElementsAre("median ms", "TFLOPS", "% peak", "max err", "err/base"));
  EXPECT_THAT(RenderReportMarkdown(r), HasSubstr("| median ms | TFLOPS | % peak | max err | "
                                                 "err/base | reason |"));
}

TEST(SummarizeReport, WarningsAndCounts) {
  Report r = testing::FullReport();
  r.complete = false;
  const ReportSummary s = SummarizeReport(r);
  ASSERT_EQ(s.warnings.size(), 2u);
  EXPECT_TRUE(s.warnings[0].severe);
  EXPECT_FALSE(s.warnings[1].severe);
  EXPECT_EQ(s.counts.total(), static_cast<int>(r.cases.size()));
  EXPECT_EQ(s.counts.Of(CaseStatus::kTimeout), 1);
}

struct Pair {
  Report base, next;
};

Pair SlowerAndRegressed() {
  Pair p;
  p.base.complete = p.next.complete = true;
  p.base.cases = {SimpleCase("k.slow", "p", CaseStatus::kPassed, 1.0),
                  SimpleCase("k.bad", "p", CaseStatus::kPassed, 1.0),
                  SimpleCase("k.gone", "p", CaseStatus::kPassed, 1.0)};
  p.next.cases = {SimpleCase("k.slow", "p", CaseStatus::kPassed, 1.5),
                  SimpleCase("k.bad", "p", CaseStatus::kFailed, 1.0)};
  for (CaseResult* c : {&p.base.cases[0], &p.next.cases[0]}) {
    c->timing->samples_ms.assign(20, c->timing->median_ms);
    for (size_t i = 0; i < 20; ++i) c->timing->samples_ms[i] *= 1 + 0.001 * i;
  }
  return p;
}

TEST(SummarizeComparison, ToneVerdictAndFailureWithoutAGate) {
  const Pair in = SlowerAndRegressed();
  const Comparison c = Compare(in.base, in.next);
  const ComparisonSummary s = SummarizeComparison(c, nullptr);
  ASSERT_EQ(s.pairs.size(), 2u);
  EXPECT_EQ(s.pairs[0].verdict, Verdict::kSlower);
  EXPECT_EQ(s.pairs[0].tone, Tone::kSlower);
  EXPECT_EQ(s.pairs[0].judged_by, "test");
  EXPECT_THAT(s.pairs[0].failure, ::testing::StartsWith("slower: p "));
  EXPECT_NEAR(s.pairs[0].delta_pct.value, 50, 1e-9);
  EXPECT_EQ(s.pairs[1].tone, Tone::kFailure);
  EXPECT_EQ(s.pairs[1].failure, "correctness: passed -> failed");
  EXPECT_EQ(s.pairs[1].StatusText(" -> "), "passed -> failed");
  EXPECT_EQ(s.pairs[1].gate, GateMark::kNotGated);
  ASSERT_EQ(s.only_base.size(), 1u);
  EXPECT_EQ(s.only_base[0].StatusText(""), "only in base (passed)");
  EXPECT_EQ(s.counts.slower, 1);
  EXPECT_EQ(s.counts.correctness_regressions, 1);
  EXPECT_EQ(s.All().size(), 3u);
}

TEST(SummarizeComparison, TheGatesDecisionPerCase) {
  const Pair in = SlowerAndRegressed();
  const Comparison c = Compare(in.base, in.next);
  GatePolicy policy;
  policy.overrides.push_back({"k.gone", std::nullopt, std::nullopt, true});
  const GateResult gate = ApplyGate(c, policy);
  const ComparisonSummary s = SummarizeComparison(c, &gate);
  EXPECT_EQ(s.pairs[0].gate, GateMark::kFail);
  EXPECT_EQ(s.pairs[0].tone, Tone::kFailure);
  EXPECT_THAT(s.pairs[0].failure, ::testing::StartsWith("slowdown: median 1.000 -> 1.500 ms"));
  EXPECT_EQ(s.only_base[0].gate, GateMark::kIgnored);
  EXPECT_EQ(GateHeadline(gate), "GATE FAILED: 2 failures in 2 cases gated");
  EXPECT_EQ(GateNotes(gate), ", 1 ignored");
}

}  // namespace
}  // namespace flashscope::reports
