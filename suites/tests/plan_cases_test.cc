// A case's result before it runs carries what readers without the registry need: the kernel's
// facts (revision, title, what changed) and its tile, which heatmap views draw over the error.
#include "suites/plan_cases.h"

#include <gtest/gtest.h>

namespace flashscope::suites {
namespace {

reports::PlanRecord PlanOf(const std::string& id, TileShape tile) {
  reports::PlanRecord plan;
  plan.plugins.push_back({true, "built-in", "0123abc", "", ""});
  reports::PlannedKernelRecord k;
  k.info.id = id;
  k.info.revision = 11;
  k.info.title = "FA4-style softmax";
  k.info.changed = "polynomial exp2 on a quarter of P";
  k.info.tile = tile;
  plan.kernels.push_back(k);
  reports::PlannedCaseRecord c;
  c.kernel_id = id;
  c.problem = AttentionProblem{1, 2, 200, 200, 64, DType::kF16, true, false};
  c.key = id + " " + ProblemKey(c.problem);
  plan.cases.push_back(c);
  return plan;
}

TEST(NewCaseResult, CarriesTheKernelsFactsAndTile) {
  const reports::PlanRecord plan = PlanOf("attn.a11_fa4", TileShape{128, 64, 16, 256});
  const reports::CaseResult r = NewCaseResult(plan, plan.cases[0], Suite{});
  EXPECT_EQ(r.kernel_revision, 11);
  EXPECT_EQ(r.kernel_title, "FA4-style softmax");
  EXPECT_EQ(r.kernel_changed, "polynomial exp2 on a quarter of P");
  ASSERT_TRUE(r.tile.has_value());
  EXPECT_EQ(r.tile->block_m, 128);
  EXPECT_EQ(r.tile->block_n, 64);
  EXPECT_EQ(r.params.at("causal"), "true");
}

TEST(NewCaseResult, NoTileForAKernelWithoutOne) {
  const reports::PlanRecord plan = PlanOf("peer.cublas_gemm", TileShape{});
  EXPECT_FALSE(NewCaseResult(plan, plan.cases[0], Suite{}).tile.has_value());
}

}  // namespace
}  // namespace flashscope::suites
