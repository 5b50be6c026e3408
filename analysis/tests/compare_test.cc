// Pairing two reports: deltas and their sign, status changes, cases on one side only,
// environment differences, and the rendering of all of it.
#include "analysis/compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "analysis/comparison_summary.h"
#include "render/render_terminal.h"
#include "reports/tests/sample_reports.h"
#include "reports/tests/timed_reports.h"

namespace flashscope::reports {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::SimpleCase;

constexpr CaseStatus kPass = CaseStatus::kPassed;

Report Base() {
  return testing::With(
      {SimpleCase("attn.a", "p1", kPass, 1.0), SimpleCase("attn.b", "p1", kPass, 2.0),
       SimpleCase("attn.c", "p1", kPass, 1.0), SimpleCase("attn.d", "p1", CaseStatus::kSkipped, 0),
       SimpleCase("attn.e", "p1", kPass, 1.0)});
}

Report Next() {
  return testing::With(
      {SimpleCase("attn.f", "p1", kPass, 1.0), SimpleCase("attn.b", "p1", kPass, 2.2),
       SimpleCase("attn.a", "p1", kPass, 0.9), SimpleCase("attn.c", "p1", CaseStatus::kFailed, 1.0),
       SimpleCase("attn.d", "p1", CaseStatus::kSkipped, 0)});
}

TEST(Compare, PairsByKeyInBaseOrderWithSignedDeltas) {
  Report base = Base(), next = Next();
  Comparison c = Compare(base, next);
  ASSERT_EQ(c.paired.size(), 4u);
  EXPECT_EQ(c.paired[0].key, "attn.a p1");
  EXPECT_NEAR(c.paired[0].delta_pct, -10.0, 1e-9);  // faster: negative
  EXPECT_EQ(c.paired[0].base, &base.cases[0]);
  EXPECT_EQ(c.paired[0].next, &next.cases[2]);
  EXPECT_NEAR(c.paired[1].delta_pct, 10.0, 1e-9);  // slower: positive
  EXPECT_EQ(c.paired[1].note, "");
  EXPECT_TRUE(c.paired[2].StatusChanged());
  EXPECT_TRUE(c.paired[2].IsCorrectnessRegression());
  EXPECT_EQ(c.paired[2].note, "status passed -> failed");
  EXPECT_TRUE(std::isnan(c.paired[3].delta_pct));
  EXPECT_EQ(c.paired[3].note, "no timing in base (skipped); no timing in next (skipped)");
  ASSERT_EQ(c.only_base.size(), 1u);
  EXPECT_EQ(c.only_base[0]->kernel_id, "attn.e");
  ASSERT_EQ(c.only_next.size(), 1u);
  EXPECT_EQ(c.only_next[0]->kernel_id, "attn.f");
  EXPECT_FALSE(c.different_gpu);
  EXPECT_EQ(c.environment_note, "base is a SYNTHETIC report");
}

TEST(Compare, StatusImprovementIsNotARegression) {
  Report base = Next(), next = Base();  // c: failed -> passed
  Comparison c = Compare(base, next);
  const CaseDelta* d = nullptr;
  for (const CaseDelta& x : c.paired) {
    if (x.kernel_id == "attn.c") d = &x;
  }
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->StatusChanged());
  EXPECT_FALSE(d->IsCorrectnessRegression());
  std::string out = RenderComparison(c, false);
  EXPECT_THAT(out, HasSubstr("     attn.c p1: failed -> passed"));
  EXPECT_THAT(out, Not(HasSubstr("!!")));
}

TEST(Compare, DifferentGpuIsFlaggedAndNamed) {
  Report base = Base(), next = Next();
  next.environment.gpu_name = "NVIDIA H100 80GB HBM3";
  next.environment.sm_count = 132;
  next.environment.driver_version = "575.1";
  Comparison c = Compare(base, next);
  EXPECT_TRUE(c.different_gpu);
  EXPECT_THAT(c.environment_note,
              HasSubstr("GPU \"Synthetic H200 (not measured)\" vs \"NVIDIA H100 80GB HBM3\""));
  EXPECT_THAT(c.environment_note, HasSubstr("driver \"580.00.00\" vs \"575.1\""));
  std::string out = RenderComparison(c, false);
  EXPECT_THAT(out, HasSubstr("DIFFERENT GPUs: timings are not comparable"));
}

// Two GPUs of one model: the environment matches, but a pair whose sides ran on different chips
// says so, and the summary counts such pairs. Sides naming no GPU (older reports) or the same
// one are not flagged.
TEST(Compare, PairsOnDifferentGpusOfOneModelAreNamed) {
  Report base = Base(), next = Next();
  auto place = [](Report* r, const std::string& kernel, int device, const std::string& uuid) {
    for (CaseResult& c : r->cases) {
      if (c.kernel_id == kernel) {
        c.device = device;
        c.device_uuid = uuid;
      }
    }
  };
  place(&base, "attn.a", 0, "GPU-640a6f14-1889-fcda");
  place(&next, "attn.a", 1, "GPU-0aaee1ea-aec5-9281");
  place(&base, "attn.b", 0, "GPU-640a6f14-1889-fcda");
  place(&next, "attn.b", 0, "GPU-640a6f14-1889-fcda");
  place(&base, "attn.c", 1, "GPU-0aaee1ea-aec5-9281");  // next names no GPU: not flagged
  const Comparison c = Compare(base, next);
  EXPECT_FALSE(c.EnvironmentMismatch());
  EXPECT_EQ(c.on_different_gpus, 1);
  for (const CaseDelta& d : c.paired) {
    if (d.kernel_id == "attn.a") {
      EXPECT_THAT(d.note, HasSubstr("ran on different GPUs: base on device 0 (GPU-640a6f14), "
                                    "next on device 1 (GPU-0aaee1ea)"));
    } else {
      EXPECT_THAT(d.note, Not(HasSubstr("different GPUs"))) << d.kernel_id;
    }
  }
  const ComparisonSummary s = SummarizeComparison(c, nullptr);
  ASSERT_FALSE(s.warnings.empty());
  EXPECT_THAT(s.warnings.back().text,
              HasSubstr("1 of 4 pairs ran on different GPUs of the same model"));
}

TEST(Compare, RenderShowsStatusChangesFirstThenTableThenOneSided) {
  Report base = Base(), next = Next();
  std::string out = RenderComparison(Compare(base, next), false);
  const size_t changes = out.find("STATUS CHANGES (1):");
  const size_t table = out.find("base ms");
  const size_t only_base = out.find("only in base (1):\n  attn.e p1 [passed]");
  const size_t only_next = out.find("only in next (1):\n  attn.f p1 [passed]");
  ASSERT_NE(changes, std::string::npos) << out;
  ASSERT_NE(table, std::string::npos) << out;
  ASSERT_NE(only_base, std::string::npos) << out;
  ASSERT_NE(only_next, std::string::npos) << out;
  EXPECT_LT(changes, table);
  EXPECT_LT(table, only_base);
  EXPECT_LT(only_base, only_next);
  EXPECT_THAT(out, HasSubstr("  !! attn.c p1: passed -> failed (max_abs 4.1e-01 > 2 x baseline"));
  EXPECT_TRUE(
      std::regex_search(out, std::regex(R"(attn\.a +p1 +passed +1\.000 +0\.9000 +-10\.0%)")))
      << out;
  EXPECT_TRUE(
      std::regex_search(out, std::regex(R"(attn\.b +p1 +passed +2\.000 +2\.200 +\+10\.0%)")))
      << out;
  EXPECT_TRUE(std::regex_search(out, std::regex(R"(attn\.c +p1 +passed->failed +1\.000 +1\.000 )"
                                                R"(+\+0\.0% +status passed -> failed)")))
      << out;
  // Geometric mean over the three timed pairs: (0.9 * 1.1 * 1.0)^(1/3).
  EXPECT_THAT(out, HasSubstr("geomean next/base median: 0.997 (-0.3%) over 3 timed pairs"));
  std::string colored = RenderComparison(Compare(base, next), true);
  EXPECT_THAT(colored, HasSubstr("\033[31m+10.0%\033[0m"));
  EXPECT_THAT(colored, HasSubstr("\033[32m-10.0%\033[0m"));
}

TEST(Compare, DuplicateKeysUseTheFirstAndAreCounted) {
  Report base = Base();
  base.cases.push_back(SimpleCase("attn.a", "p1", kPass, 50.0));
  Report next = base;
  Comparison c = Compare(base, next);
  EXPECT_EQ(c.duplicate_keys, 2);
  EXPECT_EQ(c.paired.size(), 5u);
  EXPECT_EQ(c.paired[0].base_median_ms, 1.0);
  EXPECT_TRUE(c.only_base.empty());
  EXPECT_TRUE(c.only_next.empty());
  EXPECT_THAT(RenderComparison(c, false), HasSubstr("2 cases repeat a key"));
}

TEST(Compare, EmptyReports) {
  EXPECT_EQ(RenderComparison(Compare(Report{}, Report{}), false), "(both reports are empty)\n");
}

}  // namespace
}  // namespace flashscope::reports
