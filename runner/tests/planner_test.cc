// Planning over the loaded plugins is pure CPU work: the test plugins of plugins/tests stand in
// for a user's (good.*, other.*, test.* flagged test-only), the built-in kernels join when the
// build has CUDA.
#include "runner/planner.h"

#include <gtest/gtest.h>

#include "runner/kernel_loading.h"

namespace flashscope::runner {
namespace {

std::string PluginPath(const std::string& variant) {
  return std::string(FLASHSCOPE_TEST_PLUGIN_DIR) + "/libtest_plugin_" + variant + ".so";
}

suites::Suite TwoProblems(std::vector<std::string> kernels) {
  auto s = suites::ParseSuite(R"({"name": "p", "kernels": ["x"], "problems": [
      {"family": "attention_fwd", "axes": {"seq": [17, 64]}},
      {"family": "gemm", "axes": {"size": 8, "dtype": "fp16"}}]})",
                              "p.json");
  EXPECT_TRUE(s.ok()) << s.status();
  s->kernel_patterns = std::move(kernels);
  return *s;
}

class Planner : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(
        LoadKernels({PluginPath("good"), PluginPath("other"), PluginPath("test_only")}, -1, &set_)
            .ok());
  }
  absl::StatusOr<reports::PlanRecord> Plan(std::vector<std::string> kernels,
                                           std::string filter = "", std::string shard = "",
                                           std::vector<suites::protocol::LostPlugin> lost = {}) {
    suite_ = TwoProblems(std::move(kernels));
    return MakePlan({&suite_, "sha", &set_, filter, shard, lost});
  }
  plugins::PluginSet set_;
  suites::Suite suite_;
};

TEST_F(Planner, ProblemMajorInPluginOrderWithKeysFactsAndProvenance) {
  auto plan = Plan({"other.*", "good.*"});
  ASSERT_TRUE(plan.ok()) << plan.status();
  std::vector<std::string> keys;
  for (const auto& c : plan->cases) keys.push_back(c.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"good.attn_v1 attention_fwd{B=1,H=1,S=17,D=64,fp16}",
                                            "other.attn_v1 attention_fwd{B=1,H=1,S=17,D=64,fp16}",
                                            "good.attn_v1 attention_fwd{B=1,H=1,S=64,D=64,fp16}",
                                            "other.attn_v1 attention_fwd{B=1,H=1,S=64,D=64,fp16}",
                                            "good.gemm_v1 gemm{M=8,N=8,K=8,fp16}",
                                            "other.gemm_v1 gemm{M=8,N=8,K=8,fp16}"}));
  for (size_t i = 0; i < plan->cases.size(); ++i)
    EXPECT_EQ(plan->cases[i].index, static_cast<int>(i));
  EXPECT_EQ(plan->suite_sha256, "sha");
  const reports::ProvenanceRecord* good = plan->ProvenanceOf("good.gemm_v1");
  ASSERT_NE(good, nullptr);
  EXPECT_EQ(good->plugin, "test-good");
  EXPECT_EQ(good->version, "1.2.3");
  EXPECT_EQ(good->sha256.size(), 64u);
  const reports::PlannedKernelRecord* k = plan->FindKernel("good.gemm_v1");
  ASSERT_NE(k, nullptr);
  EXPECT_FALSE(k->info.idempotent);
  EXPECT_EQ(k->info.exact_sm, 90);
}

TEST_F(Planner, TestOnlyKernelsNeedAnExplicitPattern) {
  auto star = Plan({"*"});
  ASSERT_TRUE(star.ok()) << star.status();
  for (const auto& c : star->cases) EXPECT_NE(c.kernel_id.rfind("test.", 0), 0u) << c.key;
  auto test = Plan({"test.*"});
  ASSERT_TRUE(test.ok()) << test.status();
  EXPECT_EQ(test->cases.size(), 3u);
  for (const auto& c : test->cases) EXPECT_EQ(c.kernel_id.rfind("test.", 0), 0u) << c.key;
}

TEST_F(Planner, UnknownKernelNamesTheClosestAndHowToAddPlugins) {
  auto plan = Plan({"good.attn_v2"});
  ASSERT_FALSE(plan.ok());
  const std::string m(plan.status().message());
  EXPECT_NE(m.find("no kernel matches 'good.attn_v2'"), std::string::npos) << m;
  EXPECT_NE(m.find("good.attn_v1"), std::string::npos) << m;
  EXPECT_NE(m.find("--plugin"), std::string::npos) << m;
}

TEST_F(Planner, KernelsFilterNarrowsTheSuite) {
  auto plan = Plan({"good.*", "other.*"}, "other.attn_v1");
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->cases.size(), 2u);
  EXPECT_EQ(plan->cases[0].kernel_id, "other.attn_v1");
  EXPECT_EQ(plan->kernels_filter, "other.attn_v1");
  auto none = Plan({"good.*"}, "other.attn_v1");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(std::string(none.status().message()).find("selects none"), std::string::npos);
}

TEST_F(Planner, ShardsSplitByProblem) {
  auto one = Plan({"good.*"}, "", "1/2");
  auto two = Plan({"good.*"}, "", "2/2");
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_EQ(one->cases.size() + two->cases.size(), 3u);
  EXPECT_EQ(one->shard, "1/2");
  EXPECT_EQ(one->cases[0].index, 0) << "a shard is a plan of its own";
}

TEST_F(Planner, PatternsOfALostPluginBecomeErrorCasesPerProblem) {
  const std::string reason =
      "plugin /x/libcrash.so crashed while loading: signal 11 (Segmentation fault)";
  auto plan = Plan({"good.attn_v1", "crash.attn"}, "", "", {{"/x/libcrash.so", reason}});
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->lost_plugins.size(), 1u);
  int errors = 0;
  for (const auto& c : plan->cases) {
    if (c.kernel_id != "crash.attn") continue;
    ++errors;
    EXPECT_EQ(c.error.rfind(reason, 0), 0u) << c.error;
    EXPECT_NE(c.error.find("no loaded plugin offers 'crash.attn'"), std::string::npos);
  }
  EXPECT_EQ(errors, 3) << "one per problem of the suite";
  auto narrowed = Plan({"good.attn_v1", "crash.attn"}, "good.*", "", {{"/x/libcrash.so", reason}});
  ASSERT_TRUE(narrowed.ok()) << narrowed.status();
  for (const auto& c : narrowed->cases) EXPECT_TRUE(c.error.empty()) << "filtered out: " << c.key;
}

TEST_F(Planner, BindingRefusesKernelsThatAreNotThePlans) {
  auto plan = Plan({"good.*"});
  ASSERT_TRUE(plan.ok());
  auto bound = BindPlan(*plan, set_);
  ASSERT_TRUE(bound.ok()) << bound.status();
  EXPECT_EQ((*bound)[0].kernel, set_.Find("good.attn_v1"));
  plugins::PluginSet other;
  ASSERT_TRUE(LoadKernels({PluginPath("other")}, -1, &other).ok());
  auto refused = BindPlan(*plan, other);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(std::string(refused.status().message()).find("the plugins were"), std::string::npos)
      << refused.status();
}

// flashscope ab: the base side good.*, the new side a second build of the same ids (dup).
class AbPlanner : public ::testing::Test {
 protected:
  absl::StatusOr<AbPlan> Plan(std::vector<std::string> kernels, std::string next = "dup",
                              std::string filter = "") {
    set_ = std::make_unique<plugins::PluginSet>();
    EXPECT_TRUE(LoadAbKernels(PluginPath("good"), PluginPath(next), -1, set_.get()).ok());
    suite_ = TwoProblems(std::move(kernels));
    return MakeAbPlan({&suite_, "sha", set_.get(), filter, "", {}});
  }
  static std::vector<std::string> Keys(const reports::PlanRecord& plan) {
    std::vector<std::string> keys;
    for (const auto& c : plan.cases) keys.push_back(c.key);
    return keys;
  }
  std::unique_ptr<plugins::PluginSet> set_;
  suites::Suite suite_;
};

TEST_F(AbPlanner, BothSidesGetTheSameCasesEachBoundToItsOwnBuild) {
  auto plan = Plan({"good.*", "attn.*"});  // attn.*: the built-in kernels take no part
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(Keys(plan->base), Keys(plan->next));
  EXPECT_EQ(Keys(plan->base),
            (std::vector<std::string>{"good.attn_v1 attention_fwd{B=1,H=1,S=17,D=64,fp16}",
                                      "good.attn_v1 attention_fwd{B=1,H=1,S=64,D=64,fp16}",
                                      "good.gemm_v1 gemm{M=8,N=8,K=8,fp16}"}));
  EXPECT_EQ(plan->base.ProvenanceOf("good.attn_v1")->plugin, "test-good");
  EXPECT_EQ(plan->next.ProvenanceOf("good.attn_v1")->plugin, "test-dup");
  EXPECT_EQ(plan->base.plugins, plan->next.plugins) << "both plans list every loaded plugin";
  auto base = BindPlan(plan->base, *set_);
  auto next = BindPlan(plan->next, *set_);
  ASSERT_TRUE(base.ok()) << base.status();
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ((*base)[0].kernel, set_->Find("good.attn_v1", plugins::Side::kBase));
  EXPECT_EQ((*next)[0].kernel, set_->Find("good.attn_v1", plugins::Side::kNew));
  EXPECT_NE((*base)[0].kernel, (*next)[0].kernel);
}

TEST_F(AbPlanner, AKernelOfOneSideIsPlannedOnThatSideAlone) {
  auto plan = Plan({"good.*", "other.*"}, "other", "*.attn_v1");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(Keys(plan->base),
            (std::vector<std::string>{"good.attn_v1 attention_fwd{B=1,H=1,S=17,D=64,fp16}",
                                      "good.attn_v1 attention_fwd{B=1,H=1,S=64,D=64,fp16}"}));
  EXPECT_EQ(Keys(plan->next),
            (std::vector<std::string>{"other.attn_v1 attention_fwd{B=1,H=1,S=17,D=64,fp16}",
                                      "other.attn_v1 attention_fwd{B=1,H=1,S=64,D=64,fp16}"}));
}

TEST_F(AbPlanner, NothingSelectedSaysWhatTheSidesOffer) {
  auto plan = Plan({"peer.*", "mine.*"});
  ASSERT_FALSE(plan.ok());
  const std::string m(plan.status().message());
  EXPECT_NE(m.find("neither --base nor --new offers a kernel"), std::string::npos) << m;
  EXPECT_NE(m.find("the sides offer: good.attn_v1, good.gemm_v1"), std::string::npos) << m;
  suite_ = TwoProblems({"good.*"});
  EXPECT_FALSE(MakeAbPlan({&suite_, "sha", set_.get(), "", "1/2", {}}).ok()) << "no shards";
}

TEST(GlobMatch, ShellPatterns) {
  EXPECT_TRUE(GlobMatch("attn.a0*", "attn.a05_mma_ldmatrix"));
  EXPECT_FALSE(GlobMatch("attn.a0*", "attn.a10_fa2"));
  EXPECT_TRUE(GlobMatch("attn.a1?_*", "attn.a10_fa2"));
}

}  // namespace
}  // namespace flashscope::runner
