// The file renderers (markdown, JUnit XML, CSV, HTML), checked with regexes over their output as
// Google Benchmark tests its reporters: structure, escaping, warnings on every output, and the
// gate's failures where a comparison carries them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <limits>

#include <regex>

#include "absl/strings/str_split.h"
#include "render/render_csv.h"
#include "render/render_html.h"
#include "render/render_junit.h"
#include "render/render_markdown.h"
#include "reports/report_json.h"
#include "reports/tests/sample_reports.h"

namespace flashscope::reports {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::SimpleCase;

bool Has(const std::string& text, const std::string& re) {
  return std::regex_search(text, std::regex(re));
}

int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

Report Sample() {
  Report r;
  r.complete = true;
  r.environment = testing::SyntheticEnvironment();
  r.suite.name = "smoke";
  r.cases = {
      SimpleCase("attn.a", "attention_fwd{B=1,H=2,S=17,D=64,fp16}", CaseStatus::kPassed, 1.0),
      SimpleCase("attn.b|x", "p<2>", CaseStatus::kFailed, 2.0),
      SimpleCase("attn.c", "p1", CaseStatus::kSkipped, 0),
      SimpleCase("attn.d", "p1", CaseStatus::kError, 0)};
  r.cases[0].throughput->bytes = 1e6;
  return r;
}

struct Pair {
  Report base, next;
  Comparison cmp;
  GateResult gate;
};

std::unique_ptr<Pair> MakePair() {
  auto p = std::make_unique<Pair>();
  p->base = Sample();
  p->next = Sample();
  p->next.cases[0].status = CaseStatus::kFailed;  // correctness regression
  p->next.cases[0].verification->passed = false;
  p->next.cases.pop_back();  // attn.d only in base
  p->cmp = Compare(p->base, p->next);
  p->gate = ApplyGate(p->cmp, GatePolicy{});
  return p;
}

TEST(RenderMarkdown, ReportTableAndWarnings) {
  std::string md = RenderReportMarkdown(Sample());
  EXPECT_THAT(md, ::testing::StartsWith("## flashscope report: smoke\n\n> **SYNTHETIC report"));
  EXPECT_THAT(md, HasSubstr("**4 cases**: 1 passed, 1 failed, 1 error, 0 timeout, 1 skipped"));
  EXPECT_TRUE(
      Has(md, R"(\n\| kernel \| problem \| status \| median ms \|.*\n\|---\|---\|---\|--:\|)"))
      << md;
  EXPECT_TRUE(Has(
      md,
      R"(\| `attn\.a` \| attention\\_fwd\{B=1,H=2,S=17,D=64,fp16\} \| passed \| 1\.000 \| 1\.0 \|)"))
      << md;
  // A '|' in a cell is escaped so the row keeps its columns; raw HTML is shown as text.
  EXPECT_TRUE(Has(md, R"(\| `attn\.b\\\|x` \| p&lt;2&gt; \| \*\*failed\*\* \| 2\.000 \|)")) << md;
  EXPECT_EQ(MarkdownCell("a|b\nc"), "a\\|b c");
}

TEST(RenderMarkdown, ComparisonWithGate) {
  auto p = MakePair();
  std::string md = RenderComparisonMarkdown(p->cmp, &p->gate);
  EXPECT_THAT(md, ::testing::StartsWith("## flashscope gate\n\n"));
  EXPECT_THAT(md, HasSubstr("❌ **GATE FAILED**: 3 failures in 4 cases gated"));
  EXPECT_TRUE(Has(md, R"(- \*\*correctness\*\* `attn\.a attention_fwd.*`: passed -&gt; failed)"))
      << md;
  // attn.b failed on both sides: not a regression, but verification is required by default.
  EXPECT_TRUE(Has(md, R"(- \*\*verification\*\* `attn\.b\\\|x p<2>`: failed \(max\\_abs)")) << md;
  EXPECT_TRUE(Has(md, R"(- \*\*missing\*\* `attn\.d p1`)")) << md;
  EXPECT_THAT(md, HasSubstr("### Changes (2)"));
  EXPECT_TRUE(Has(
      md,
      R"(\| `attn\.a` \| .* \| \*\*passed → failed\*\* \| 1\.000 \| 1\.000 \| \+0\.0% \| 1 \| same \| ❌ correctness \|)"))
      << md;
  EXPECT_THAT(md, HasSubstr("### Only in base (1)\n\n- `attn.d p1` (error)"));
  EXPECT_THAT(md, HasSubstr("<details><summary>All 3 paired cases</summary>"));
  EXPECT_THAT(RenderComparisonMarkdown(p->cmp, nullptr), Not(HasSubstr("GATE")));
}

// Issue 14, item 8: a pull-request comment holds at most 65,536 characters.
TEST(RenderMarkdown, LargeRunsFitAPullRequestComment) {
  Report big = Sample();
  big.cases.clear();
  for (int i = 0; i < 3000; ++i) {
    big.cases.push_back(
        SimpleCase("attn.a" + std::to_string(i % 11),
                   "attention_fwd{B=" + std::to_string(i) + ",H=16,S=4096,D=128,bf16,causal}",
                   i % 7 == 0 ? CaseStatus::kFailed : CaseStatus::kPassed, 1.0));
  }
  const std::string md = RenderReportMarkdown(big);
  EXPECT_LT(md.size(), kMarkdownLimit);
  EXPECT_LE(kMarkdownLimit, 65536u);
  EXPECT_THAT(md, HasSubstr("**3000 cases**"));
  EXPECT_TRUE(Has(md, R"(\d+ more cases not shown \(a pull-request comment holds 65,536)"))
      << md.substr(md.size() - 400);
  // The failures come first, so that what matters is never the part left out.
  EXPECT_LT(md.find("**failed**"), md.find("| passed |"));

  Report next = big;
  for (size_t i = 0; i < next.cases.size(); i += 3) next.cases[i].timing->median_ms = 1.5;
  Comparison c = Compare(big, next);
  GateResult g = ApplyGate(c, GatePolicy{});
  const std::string gate_md = RenderComparisonMarkdown(c, &g);
  EXPECT_LT(gate_md.size(), kMarkdownLimit);
  EXPECT_THAT(gate_md, HasSubstr("GATE FAILED"));
  EXPECT_THAT(gate_md, HasSubstr("not shown"));
  // Small outputs are unchanged: everything is there.
  EXPECT_THAT(RenderReportMarkdown(Sample()), Not(HasSubstr("not shown")));
}

TEST(RenderJunit, ReportCasesAreTestcases) {
  std::string x = RenderReportJunit(Sample());
  EXPECT_THAT(
      x, ::testing::StartsWith(
             "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"flashscope.smoke\" "
             "tests=\"4\" failures=\"1\" errors=\"1\" skipped=\"1\""));
  EXPECT_EQ(Count(x, "<testcase "), 4);
  EXPECT_TRUE(Has(
      x,
      R"(<testcase classname="attn\.b\|x" name="p&lt;2&gt;" time="0\.500">\n +<failure type="verification" message="max_abs 4\.1e-01 &gt; 2 x baseline)"))
      << x;
  EXPECT_TRUE(Has(
      x,
      R"(<testcase classname="attn\.c" name="p1" time="0\.500">\n +<skipped message="head_dim 96)"))
      << x;
  EXPECT_TRUE(Has(x, R"(<error type="error" message="cudaErrorIllegalAddress)")) << x;
  EXPECT_TRUE(Has(x, R"(<property name="warning" value="SYNTHETIC report)")) << x;
  EXPECT_EQ(Count(x, "<testsuite "), 1);
  EXPECT_EQ(Count(x, "</testsuite>"), 1);
  // A character XML forbids is replaced (U+FFFD), not dropped: the reader sees that one was there.
  EXPECT_EQ(XmlEscape("a&<>\"'\x01z"), "a&amp;&lt;&gt;&quot;&apos;\xef\xbf\xbdz");
}

TEST(RenderJunit, ComparisonFailuresFollowTheGate) {
  auto p = MakePair();
  std::string x = RenderComparisonJunit(p->cmp, &p->gate);
  EXPECT_THAT(x, HasSubstr("<testsuites name=\"flashscope.gate\" tests=\"4\" failures=\"3\""));
  EXPECT_TRUE(Has(
      x,
      R"(<testcase classname="attn\.a" name="attention_fwd[^"]*">\n +<failure type="regression" message="correctness: passed -&gt; failed)"))
      << x;
  EXPECT_TRUE(Has(
      x,
      R"(<testcase classname="attn\.d" name="p1">\n +<failure type="regression" message="missing: )"))
      << x;
  // Without a gate: correctness regressions and "slower" fail; a case only in base does not.
  std::string plain = RenderComparisonJunit(p->cmp, nullptr);
  EXPECT_THAT(plain,
              HasSubstr("<testsuites name=\"flashscope.compare\" tests=\"4\" failures=\"1\""));
}

TEST(RenderCsv, ReportRowsAndQuoting) {
  std::string csv = RenderReportCsv(Sample());
  std::vector<std::string> lines = absl::StrSplit(csv, "\r\n", absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0].substr(0, 60), "suite,gpu,synthetic,kernel_id,family,problem_key,status,medi");
  EXPECT_TRUE(Has(
      lines[1],
      R"(^smoke,Synthetic H200 \(not measured\),true,attn\.a,attention_fwd,"attention_fwd\{B=1,H=2,S=17,D=64,fp16\}",passed,1,0,0,0,0,3,)"))
      << lines[1];
  EXPECT_TRUE(Has(lines[3], R"(,skipped(,){21}head_dim 96 not supported \(64 or 128\)$)"))
      << lines[3];
  EXPECT_EQ(CsvField("a,\"b\""), "\"a,\"\"b\"\"\"");
  EXPECT_EQ(CsvField("plain"), "plain");
}

TEST(RenderCsv, ComparisonRows) {
  auto p = MakePair();
  std::string csv = RenderComparisonCsv(p->cmp, &p->gate);
  std::vector<std::string> lines = absl::StrSplit(csv, "\r\n", absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 5u);  // header, 3 paired, 1 only in base
  EXPECT_THAT(lines[0],
              ::testing::StartsWith(
                  "side,key,kernel_id,problem_key,base_status,next_status,base_median_ms"));
  EXPECT_TRUE(Has(
      lines[1],
      R"re(^both,.*,passed,failed,1,1,0,1,"normal approx\., tie-corrected \(3 vs 3\)",same,.*,true,fail,"?correctness: passed -> failed)re"))
      << lines[1];
  EXPECT_TRUE(Has(lines[4], R"(^base,attn\.d p1,attn\.d,p1,error,,,,,,,,,false,fail,"missing: )"))
      << lines[4];
}

// The sample report with one position x dim heatmap of `rows` x `cols` cells on its failed case.
Report SampleWithHeatmap(int rows, int cols, std::vector<float> max) {
  Report r = Sample();
  HeatmapRecord h = testing::HeatmapOfShape("position_x_dim", 0, 0, rows, cols);
  h.max = std::move(max);
  r.cases[1].verification->heatmaps = {h};
  return r;
}

TEST(RenderHtml, ReportHasChartsTableAndWarnings) {
  const Report r = SampleWithHeatmap(2, 3, {1e-3f, 2e-3f, 0, 5e-4f, 1e-4f, 3e-3f});
  std::string html = RenderReportHtml(r);
  EXPECT_THAT(html, ::testing::StartsWith(
                        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"));
  EXPECT_THAT(html, HasSubstr("<div class=\"warn\">SYNTHETIC report"));
  EXPECT_TRUE(Has(html, R"(<svg class="ladder"[^>]*>.*attention_fwd\{B=1,H=2,S=17,D=64,fp16\})"))
      << html;
  EXPECT_TRUE(Has(html, R"(<svg class="roofline"[^>]*>)"));
  EXPECT_TRUE(Has(html, R"(<polyline points="[0-9., ]+" fill="none" stroke="#b00020")"))
      << "roof drawn";
  EXPECT_EQ(Count(html, "<circle "), 1);  // one passed case with FLOPs and bytes
  EXPECT_TRUE(Has(html, R"(<svg class="heatmap"[^>]*><text[^>]*>attn\.b\|x p&lt;2&gt;</text>)"))
      << html;
  EXPECT_EQ(Count(html, "fill=\"#"), 6 + 1 + 1 + 1 + 1)
      << "6 heatmap cells, 1 ladder bar, the failed rung's slot (it has no throughput), 1 point, "
         "1 roof";
  EXPECT_EQ(Count(html, "<tr"), 1 + 4);
  EXPECT_THAT(html, Not(HasSubstr("http")));  // offline: nothing fetched
  EXPECT_THAT(html, ::testing::EndsWith("</body></html>\n"));
}

// Issue 23: a throughput of inf or 1.79e308, or a missing flops, once sent the roofline's tick loop
// on until it had taken 15 GB. The chart model leaves such points out and counts them; the page
// says so under the chart, and its ticks are whole decades, a bounded few.
TEST(RenderHtml, HostileThroughputIsLeftOutOfTheChartsAndCounted) {
  for (double tflops :
       {std::numeric_limits<double>::infinity(), 1.79e308, -std::numeric_limits<double>::infinity(),
        0.0, -1.0, std::numeric_limits<double>::quiet_NaN()}) {
    Report r = Sample();
    for (CaseResult& c : r.cases) {
      if (!c.throughput) continue;
      c.throughput->tflops = tflops;
      c.throughput->flops = 0;  // the optional field missing
    }
    const std::string html = RenderReportHtml(r);
    EXPECT_THAT(html, HasSubstr("left out of this chart")) << tflops;
    EXPECT_THAT(html, HasSubstr("no roofline")) << tflops;
    EXPECT_LT(html.size(), 200000u) << tflops;
  }
  Report r = Sample();
  for (CaseResult& c : r.cases) {
    if (c.throughput) c.throughput->flops = 0;  // throughput fine, flops missing
  }
  const std::string html = RenderReportHtml(r);
  EXPECT_THAT(html, HasSubstr("flops missing (0)"));
  EXPECT_THAT(html, HasSubstr("<svg class=\"ladder\"")) << "the ladder still has its bars";
}

// A half-unwritten map (verify/ marks such elements with the largest float) keeps the scale of
// its real errors: the caption's max is theirs, and the marked cells are drawn apart and counted.
TEST(RenderHtml, NeverWrittenCellsStayOutOfTheHeatmapScale) {
  const std::string html =
      RenderReportHtml(SampleWithHeatmap(1, 3, {2e-3f, std::numeric_limits<float>::max(), 1e-4f}));
  EXPECT_THAT(html, HasSubstr("max 2.00e-03; 1 cells never written, NaN or Inf (magenta)"));
  EXPECT_EQ(Count(html, "fill=\"#ff00ff\""), 1);
  EXPECT_EQ(Count(html, "fill=\"#fde725\""), 1) << "the largest real error at the top colour";
}

TEST(RenderHtml, ComparisonHasGateAndDeltaChart) {
  auto p = MakePair();
  p->next.cases[1].timing->median_ms = 2.5;
  // A median lies within its samples (compare refuses to judge one that does not).
  p->next.cases[1].timing->samples_ms.push_back(3.0);
  Comparison c = Compare(p->base, p->next, {0.01, 0.02, false});
  GateResult g = ApplyGate(c, GatePolicy{});
  std::string html = RenderComparisonHtml(c, &g);
  EXPECT_THAT(html, HasSubstr("<div class=\"fail\">GATE FAILED: "));
  EXPECT_TRUE(Has(html, R"(<svg class="deltas"[^>]*>)"));
  EXPECT_TRUE(Has(html, R"(<title>attn\.b\|x p&lt;2&gt;: \+25\.0%, ambiguous</title>)")) << html;
  EXPECT_THAT(html, HasSubstr("<h2>Only in base (1)</h2>"));
}

TEST(RenderFormats, CommittedExampleRendersInEveryFormat) {
  auto r = ReadReportFile(testing::TestdataPath("synthetic_example_report.json"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(RenderReportMarkdown(*r), HasSubstr("SYNTHETIC"));
  EXPECT_THAT(RenderReportJunit(*r), HasSubstr("SYNTHETIC"));
  EXPECT_THAT(RenderReportCsv(*r), HasSubstr(",true,"));
  EXPECT_THAT(RenderReportHtml(*r), HasSubstr("SYNTHETIC"));
}

}  // namespace
}  // namespace flashscope::reports
