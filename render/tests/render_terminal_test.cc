// Terminal renderers, checked with regexes over their output (as Google Benchmark tests its
// reporters): contents, adaptive widths, colour only on request.
#include "render/render_terminal.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "absl/strings/str_split.h"
#include "reports/tests/sample_reports.h"

namespace flashscope::reports {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The line of `text` containing `needle`, or "".
std::string LineWith(const std::string& text, const std::string& needle) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line.find(needle) != absl::string_view::npos) return std::string(line);
  }
  return "";
}

bool Matches(const std::string& line, const std::string& re) {
  return std::regex_search(line, std::regex(re));
}

TEST(RenderCaseTable, RowsCarryEveryColumn) {
  std::string t = RenderCaseTable(testing::FullReport(), /*color=*/false);
  std::string header = LineWith(t, "kernel");
  EXPECT_TRUE(Matches(header,
                      "^kernel +problem +status +median ms +TFLOPS +% peak +max err +"
                      "err/base +tensor % +shared % +reason$"))
      << header;
  std::string a02 = LineWith(t, "attn.a02_smem_tiled");
  EXPECT_TRUE(Matches(a02, R"(^attn\.a02_smem_tiled +attention_fwd\{B=1,H=2,Sq=17,Sk=17,D=64,)"
                           R"(fp16,causal\} +passed +0\.0123 +0\.4 +0\.0 +9\.80e-04 +inf +42\.5 +)"
                           R"(17\.4$)"))
      << a02;
  std::string failed = LineWith(t, "gemm.g01_naive");
  EXPECT_TRUE(Matches(failed, R"(failed +2\.500 +0\.4 +0\.1 +4\.10e-01 +455\.56 +- +- +)"
                              R"(max_abs 4\.1e-01 > 2 x baseline)"))
      << failed;
  std::string skipped = LineWith(t, "D=96");
  EXPECT_TRUE(Matches(skipped, R"(skipped +- +- +- +- +- +- +- +head_dim 96 not supported)"))
      << skipped;
  EXPECT_TRUE(Matches(LineWith(t, "bf16}"), R"(error +(- +)+cudaErrorIllegalAddress)"));
  EXPECT_TRUE(Matches(LineWith(t, "B=9"), R"(timeout +(- +)+case exceeded 60 s)"));
  EXPECT_THAT(t, HasSubstr("SYNTHETIC report"));
  EXPECT_THAT(t, Not(HasSubstr("\033[")));
}

TEST(RenderCaseTable, MetricAndReasonColumnsOnlyWhenSomethingFillsThem) {
  Report r;
  r.cases.push_back(
      testing::SimpleCase("attn.a01_scalar", "attention_fwd{S=17}", CaseStatus::kPassed, 1.5));
  std::string t = RenderCaseTable(r, false);
  EXPECT_THAT(t, Not(HasSubstr("tensor %")));
  EXPECT_THAT(t, Not(HasSubstr("shared %")));
  EXPECT_THAT(t, Not(HasSubstr("reason")));
  EXPECT_THAT(t, Not(HasSubstr("SYNTHETIC")));
  EXPECT_TRUE(
      Matches(LineWith(t, "attn.a01_scalar"), R"(passed +1\.500 +0\.7 +0\.1 +1\.20e-03 +1\.33$)"));
  EXPECT_EQ(RenderCaseTable(Report{}, false), "(no cases)\n");
}

TEST(RenderCaseTable, LongProblemKeysWidenTheColumnInsteadOfBeingCut) {
  Report r = testing::FullReport();
  std::string long_key = "attention_fwd{B=4,H=12,Sq=2048,Sk=2048,D=64,fp16,causal,lse,";
  while (long_key.size() < 160) long_key += "axis" + std::to_string(long_key.size()) + "=1,";
  long_key += "end}";
  r.cases[1].problem_key = long_key;
  std::string t = RenderCaseTable(r, false);
  EXPECT_THAT(t, HasSubstr(long_key));
  // Every row's status starts in the column where the header's "status" starts.
  const size_t status_col = LineWith(t, "kernel").find("status");
  for (const char* status : {"passed", "failed", "skipped", "error", "timeout"}) {
    std::string line = LineWith(t, std::string("  ") + status + " ");
    EXPECT_EQ(line.find(std::string("  ") + status + " ") + 2, status_col) << line;
  }
}

TEST(RenderCaseTable, ColourOnlyWhenAsked) {
  std::string t = RenderCaseTable(testing::FullReport(), /*color=*/true);
  EXPECT_THAT(t, HasSubstr("\033[32mpassed\033[0m"));
  EXPECT_THAT(t, HasSubstr("\033[1;31mfailed\033[0m"));
  EXPECT_THAT(t, HasSubstr("\033[33mskipped\033[0m"));
  // Colour codes do not count toward widths: stripped, the table equals the plain one.
  std::string stripped = std::regex_replace(t, std::regex("\033\\[[0-9;]*m"), "");
  EXPECT_EQ(stripped, RenderCaseTable(testing::FullReport(), false));
}

TEST(RenderSummary, EnvironmentCountsAndWall) {
  std::string s = RenderSummary(testing::FullReport(), false);
  EXPECT_THAT(s, HasSubstr("SYNTHETIC report"));
  EXPECT_TRUE(Matches(s, R"(GPU: Synthetic H200 \(not measured\) \(132 SMs, sm_90, 1980 MHz, )"
                         R"(L2 50 MiB, 150 GiB, driver 580\.00\.00, CUDA 13\.0\))"))
      << s;
  EXPECT_TRUE(Matches(s, R"(measured peaks: fp16 760\.5 TFLOPS, bf16 775\.[23] TFLOPS, copy )"
                         R"(4100 GB/s)"))
      << s;
  EXPECT_THAT(s, HasSubstr("revision 0123abc, started 2025-01-02T03:04:05Z on test-host"));
  EXPECT_THAT(s, HasSubstr("suite smoke: 5 cases: 1 passed, 1 failed, 1 skipped, 1 error, "
                           "1 timeout; wall 12.5 s\n"));
  EXPECT_THAT(s, Not(HasSubstr("INCOMPLETE")));
}

TEST(RenderSummary, NoGpuIncompleteAndWallFallback) {
  Report r;
  r.suite.name = "ladder";
  r.complete = false;
  r.cases.push_back(testing::SimpleCase("a", "p", CaseStatus::kPassed, 1));
  r.cases.push_back(testing::SimpleCase("a", "q", CaseStatus::kSkipped, 1));
  std::string s = RenderSummary(r, false);
  EXPECT_THAT(s, HasSubstr("GPU: none recorded"));
  EXPECT_THAT(s, HasSubstr("suite ladder: 2 cases: 1 passed, 0 failed, 1 skipped, 0 error, "
                           "0 timeout; wall 1.0 s (sum of case times)"));
  EXPECT_THAT(s, HasSubstr("INCOMPLETE"));
  std::string colored = RenderSummary(r, true);
  EXPECT_THAT(colored, HasSubstr("\033[32m1 passed\033[0m"));
}

}  // namespace
}  // namespace flashscope::reports
