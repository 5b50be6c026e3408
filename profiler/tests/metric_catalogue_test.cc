#include "profiler/metric_catalogue.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace flashscope::profiler {
namespace {

std::vector<std::string> Names(const std::vector<MetricDef>& defs) {
  std::vector<std::string> out;
  for (const auto& d : defs) out.push_back(d.name);
  return out;
}

bool Has(const std::vector<MetricDef>& defs, const std::string& name) {
  for (const auto& d : defs) {
    if (d.name == name) return true;
  }
  return false;
}

TEST(MetricCatalogue, EveryEntryIsComplete) {
  for (int cc : {80, 86, 89, 90}) {
    std::set<std::string> names, hw;
    for (const auto& m : MetricCatalogue(cc)) {
      EXPECT_FALSE(m.name.empty());
      EXPECT_NE(m.hw_name.find("__"), std::string::npos) << m.name;
      EXPECT_FALSE(m.unit.empty()) << m.name;
      EXPECT_FALSE(m.description.empty()) << m.name;
      EXPECT_LE(m.min_cc, cc) << m.name;
      EXPECT_EQ(m.name.find("__"), std::string::npos) << "friendly names never contain __";
      EXPECT_TRUE(names.insert(m.name).second) << "duplicate " << m.name;
      EXPECT_TRUE(hw.insert(m.hw_name).second) << "duplicate " << m.hw_name;
    }
  }
}

TEST(MetricCatalogue, ArchitectureDifferences) {
  EXPECT_TRUE(Has(MetricCatalogue(90), "wgmma_instructions"));
  EXPECT_FALSE(Has(MetricCatalogue(80), "wgmma_instructions"));
  EXPECT_FALSE(Has(MetricCatalogue(86), "wgmma_instructions"));
  EXPECT_TRUE(MetricCatalogue(75).empty());
  for (const char* required :
       {"tensor_pipe_pct", "shared_pct", "shared_wavefronts", "shared_bank_conflicts_ld",
        "shared_bank_conflicts_st", "dram_pct", "l2_hit_rate", "achieved_occupancy",
        "sm_throughput_pct", "xu_pipe_pct", "local_load_bytes", "local_store_bytes", "gpu_time"}) {
    EXPECT_TRUE(Has(MetricCatalogue(80), required)) << required;
    EXPECT_TRUE(Has(MetricCatalogue(90), required)) << required;
  }
}

TEST(ResolveMetrics, BasicSet) {
  auto r = ResolveMetrics("basic", 90);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Names(*r), (std::vector<std::string>{"tensor_pipe_pct", "shared_pct", "dram_pct",
                                                 "achieved_occupancy"}));
  EXPECT_EQ((*r)[0].hw_name,
            "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active");
}

TEST(ResolveMetrics, FullSetFollowsArchitecture) {
  auto f90 = ResolveMetrics("full", 90);
  auto f80 = ResolveMetrics("full", 80);
  ASSERT_TRUE(f90.ok() && f80.ok());
  EXPECT_EQ(f90->size(), MetricCatalogue(90).size());
  EXPECT_EQ(f80->size(), MetricCatalogue(80).size());
  EXPECT_TRUE(Has(*f90, "wgmma_instructions"));
  EXPECT_FALSE(Has(*f80, "wgmma_instructions"));
}

TEST(ResolveMetrics, CommaListRawNamesAndDuplicates) {
  auto r = ResolveMetrics(
      " dram_pct , l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,"
      "sm__cycles_active.avg, DRAM_PCT,basic",
      80);
  ASSERT_TRUE(r.ok()) << r.status();
  // A raw name that is a catalogue hardware name resolves to the catalogue entry.
  EXPECT_EQ(Names(*r), (std::vector<std::string>{"dram_pct", "shared_bank_conflicts_ld",
                                                 "sm__cycles_active.avg", "tensor_pipe_pct",
                                                 "shared_pct", "achieved_occupancy"}));
  const MetricDef& raw = (*r)[2];
  EXPECT_EQ(raw.hw_name, "sm__cycles_active.avg");
  EXPECT_EQ(raw.min_cc, 0);
}

TEST(ResolveMetrics, UnknownNameSuggestsClosest) {
  auto r = ResolveMetrics("basic,tensr_pipe_pct", 90);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string msg(r.status().message());
  EXPECT_NE(msg.find("'tensr_pipe_pct'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("closest known names: tensor_pipe_pct"), std::string::npos) << msg;
  EXPECT_EQ(ClosestMetricNames("tensr_pipe_pct", 90).size(), 3u);
  EXPECT_EQ(ClosestMetricNames("shared_conflicts_ld", 90)[0], "shared_bank_conflicts_ld");
  EXPECT_EQ(ClosestMetricNames("ful", 90)[0], "full");
}

TEST(ResolveMetrics, WgmmaOnAmpereSaysWhy) {
  auto r = ResolveMetrics("wgmma_instructions", 80);
  ASSERT_FALSE(r.ok());
  const std::string msg(r.status().message());
  EXPECT_NE(msg.find("needs sm_90"), std::string::npos) << msg;
  EXPECT_NE(msg.find("sm_80"), std::string::npos) << msg;
  EXPECT_TRUE(ResolveMetrics("wgmma_instructions", 90).ok());
}

TEST(ResolveMetrics, EmptySpecAndOldGpu) {
  EXPECT_EQ(ResolveMetrics(" , ", 90).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ResolveMetrics("basic", 75).status().code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace flashscope::profiler
