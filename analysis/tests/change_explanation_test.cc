#include "analysis/change_explanation.h"

#include <gtest/gtest.h>

namespace flashscope::reports {
namespace {

CaseResult ProfiledCase(double dram_bytes, double l2_hit, double tensor, int registers,
                        double occupancy) {
  CaseResult c;
  c.kernel_id = "attn.x";
  c.problem_key = "p";
  c.status = CaseStatus::kPassed;
  ProfileRecord p;
  p.available = true;
  p.metrics = {
      {"dram_bytes", "dram__bytes.sum", "bytes", dram_bytes, ""},
      {"l2_hit_rate", "lts__t_sector_hit_rate.pct", "%", l2_hit, ""},
      {"tensor_pipe_pct", "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
       "%", tensor, ""},
      {"gpu_time", "gpu__time_duration.sum", "ns", 1000 + dram_bytes / 1e6, ""}};
  c.profile = p;
  ResourceRecord r;
  r.function = "attn_kernel";
  r.registers = registers;
  r.theoretical_occupancy = occupancy;
  r.block_threads = 128;
  c.resources = {r};
  return c;
}

TEST(ChangeExplanation, RanksWhatMovedMostFirstAndSaysItIsCorrelation) {
  const CaseResult before = ProfiledCase(1.0e9, 80, 50, 128, 0.5);
  const CaseResult after = ProfiledCase(1.38e9, 60, 50.5, 168, 0.25);
  const ChangeExplanation e = ExplainChange(before, after, 0.041);
  ASSERT_EQ(e.counters.size(), 2u);  // tensor moved 0.5 pp: below the floor; GPU time is the time
  EXPECT_EQ(e.counters[0].label, "DRAM bytes");
  EXPECT_EQ(e.counters[1].text, "L2 hit -20.0 pp");
  ASSERT_EQ(e.resources.size(), 2u);
  EXPECT_EQ(e.resources[0].text, "occupancy 50% -> 25%");
  EXPECT_EQ(e.resources[1].text, "registers 128 -> 168");
  const std::string line = e.Line();
  EXPECT_EQ(line.rfind("+4.1%: DRAM bytes +38.0%, L2 hit -20.0 pp; occupancy 50% -> 25%, "
                       "registers 128 -> 168 (correlation",
                       0),
            0u)
      << line;
}

TEST(ChangeExplanation, OnlyWhatWasCollectedOnBothSides) {
  CaseResult before = ProfiledCase(1e9, 80, 50, 128, 0.5);
  CaseResult after = ProfiledCase(2e9, 40, 50, 128, 0.5);
  after.profile->metrics.erase(after.profile->metrics.begin());  // DRAM on one side only
  ExplainChange(before, after, 0.1);
  EXPECT_EQ(ExplainChange(before, after, 0.1).counters.size(), 1u);
  before.profile.reset();  // run without --metrics
  const ChangeExplanation e = ExplainChange(before, after, 0.1);
  EXPECT_FALSE(e.counters_on_both);
  EXPECT_TRUE(e.counters.empty());
  EXPECT_NE(e.Line().find("counters not collected on both sides"), std::string::npos);
  EXPECT_NE(e.Line().find("resources unchanged"), std::string::npos);
  before.resources.clear();
  EXPECT_EQ(ExplainChange(before, after, -0.1).Line(),
            "-10.0%: no counters or resource records on both sides to compare");
}

TEST(ChangeExplanation, SeveralFunctionsMatchedByName) {
  CaseResult before = ProfiledCase(1e9, 80, 50, 128, 0.5);
  CaseResult after = before;
  ResourceRecord combine;
  combine.function = "combine";
  combine.registers = 32;
  before.resources.push_back(combine);
  combine.registers = 40;
  after.resources.push_back(combine);
  after.resources[0].local_bytes = 64;  // a spill appeared
  const ChangeExplanation e = ExplainChange(before, after, 0.05);
  ASSERT_EQ(e.resources.size(), 2u);
  EXPECT_EQ(e.resources[0].text, "attn_kernel local (spills/stack) 0 B/thread -> 64 B/thread");
  EXPECT_EQ(e.resources[1].text, "combine registers 32 -> 40");
}

}  // namespace
}  // namespace flashscope::reports
