// Planning is pure CPU work over the registry's metadata: no GPU needed.
#include "suites/plan.h"

#include <gtest/gtest.h>

namespace flashscope::suites {
namespace {

Suite TwoProblems(std::vector<std::string> kernels) {
  auto s = ParseSuite(R"({"name": "p", "kernels": ["attn.*"], "problems": [
      {"family": "attention_fwd", "axes": {"seq": [17, 64]}},
      {"family": "gemm", "axes": {"size": 8}}]})",
                      "p.json");
  EXPECT_TRUE(s.ok()) << s.status();
  s->kernel_patterns = std::move(kernels);
  return *s;
}

TEST(PlanTest, ProblemMajorInRegistryOrderWithoutTestKernels) {
  auto plan = BuildPlan(TwoProblems({"attn.*", "gemm.*"}), "");
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_FALSE(plan->empty());
  int attention_kernels = 0;
  for (const auto& e : kernels::AllKernels()) {
    attention_kernels += e.info.family == Family::kAttentionFwd && e.info.id.rfind("attn.", 0) == 0;
  }
  // All cases of the first problem come before any case of the second.
  for (int i = 0; i < attention_kernels; ++i) {
    EXPECT_EQ(ProblemKey((*plan)[i].problem), "attention_fwd{B=1,H=1,S=17,D=64,fp16}");
    EXPECT_EQ((*plan)[i].index, i);
  }
  for (size_t i = 1; i < static_cast<size_t>(attention_kernels); ++i) {
    EXPECT_LE((*plan)[i - 1].kernel->info.revision, (*plan)[i].kernel->info.revision);
  }
  for (const auto& c : *plan) {
    EXPECT_FALSE(c.kernel->info.test_only) << c.key;
    EXPECT_EQ(c.kernel->info.family, FamilyOf(c.problem)) << c.key;
    EXPECT_EQ(c.key, c.kernel->info.id + " " + ProblemKey(c.problem));
  }
}

TEST(PlanTest, TestOnlyKernelsNeedAnExplicitPattern) {
  auto plan = BuildPlan(TwoProblems({"test.*"}), "");
  ASSERT_TRUE(plan.ok()) << plan.status();
  for (const auto& c : *plan) EXPECT_TRUE(c.kernel->info.test_only) << c.key;
  auto star = BuildPlan(TwoProblems({"*"}), "");
  ASSERT_TRUE(star.ok()) << star.status();
  for (const auto& c : *star) EXPECT_FALSE(c.kernel->info.test_only) << c.key;
}

TEST(PlanTest, UnknownKernelNamesTheClosest) {
  auto plan = BuildPlan(TwoProblems({"attn.a01_scalr"}), "");
  ASSERT_FALSE(plan.ok());
  std::string m(plan.status().message());
  EXPECT_NE(m.find("no kernel matches 'attn.a01_scalr'"), std::string::npos) << m;
  EXPECT_NE(m.find("attn.a01_scalar"), std::string::npos) << m;
}

TEST(PlanTest, KernelsFlagNarrowsTheSuite) {
  auto plan = BuildPlan(TwoProblems({"attn.*"}), "attn.a01_scalar");
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->size(), 2u);  // one kernel x two attention problems; the gemm has no kernel
  EXPECT_EQ((*plan)[0].kernel->info.id, "attn.a01_scalar");
  auto none = BuildPlan(TwoProblems({"attn.*"}), "gemm.g01_naive");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(std::string(none.status().message()).find("selects none"), std::string::npos);
}

// The demo suite (suites/demo.json): a10 and its six bug variants on both problems, every case
// runnable on an H100/H200 except fp16 accumulation on the bf16 problem (no bf16 form).
TEST(PlanTest, DemoSuitePlansEveryBugBesideA10) {
  auto demo = LoadSuiteFile(std::string(FLASHSCOPE_TEST_SOURCE_DIR) + "/suites/demo.json");
  ASSERT_TRUE(demo.ok()) << demo.status();
  auto plan = BuildPlan(*demo, "");
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->size(), 14u);
  int bugs = 0;
  for (const auto& c : *plan) {
    const bool a10 = c.kernel->info.id == "attn.a10_fa2";
    EXPECT_TRUE(a10 || c.kernel->info.id.rfind("test.bug_", 0) == 0) << c.key;
    EXPECT_EQ(c.kernel->info.test_only, !a10) << c.key;
    bugs += !a10;
    const std::string why = c.kernel->Supports(c.problem, /*device_sm=*/90);
    const auto& p = std::get<AttentionProblem>(c.problem);
    if (c.kernel->info.id == "test.bug_fp16_accumulate" && p.dtype == DType::kBF16) {
      EXPECT_NE(why.find("fp16 only"), std::string::npos) << why;
    } else {
      EXPECT_EQ(why, "") << c.key;
    }
  }
  EXPECT_EQ(bugs, 12);
}

TEST(PlanTest, GlobMatch) {
  EXPECT_TRUE(GlobMatch("attn.a0*", "attn.a05_mma_ldmatrix"));
  EXPECT_FALSE(GlobMatch("attn.a0*", "attn.a10_fa2"));
  EXPECT_TRUE(GlobMatch("attn.a1?_*", "attn.a10_fa2"));
}

}  // namespace
}  // namespace flashscope::suites
