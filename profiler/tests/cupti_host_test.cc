// Checks the metric catalogue against CUPTI's own host metric tables. Needs the CUDA toolkit's
// CUPTI libraries but no GPU, so it runs in CI.
#include "profiler/cupti_host.h"

#include <gtest/gtest.h>

#include "profiler/metric_catalogue.h"
#include "profiler/work_counters.h"

namespace flashscope::profiler {
namespace {

std::unique_ptr<CuptiMetricHost> HostFor(int cc) {
  const std::string chip = ReferenceChipForCc(cc);
  EXPECT_FALSE(chip.empty());
  auto host = CuptiMetricHost::Create(chip);
  EXPECT_TRUE(host.ok()) << host.status();
  return host.ok() ? std::move(*host) : nullptr;
}

class CatalogueAgainstCupti : public testing::TestWithParam<int> {};

TEST_P(CatalogueAgainstCupti, EveryHardwareNameExists) {
  const int cc = GetParam();
  auto host = HostFor(cc);
  ASSERT_NE(host, nullptr);
  std::vector<std::string> names;
  for (const auto& m : MetricCatalogue(cc)) names.push_back(m.hw_name);
  ASSERT_FALSE(names.empty());
  EXPECT_TRUE(host->CheckMetrics(names).ok()) << host->CheckMetrics(names);
}

TEST_P(CatalogueAgainstCupti, UnitsAgreeWithCupti) {
  const int cc = GetParam();
  auto host = HostFor(cc);
  ASSERT_NE(host, nullptr);
  for (const auto& m : MetricCatalogue(cc)) {
    auto props = host->Properties(m.hw_name);
    ASSERT_TRUE(props.ok()) << props.status();
    if (m.unit == "%") EXPECT_EQ(props->dim_unit, "percent") << m.name;
    if (m.unit == "bytes") EXPECT_EQ(props->dim_unit, "byte") << m.name;
    if (m.unit == "ns") EXPECT_EQ(props->dim_unit, "nanosecond") << m.name;
    if (m.unit == "instructions") EXPECT_EQ(props->dim_unit, "instruction") << m.name;
  }
}

// The trust checks' work counters (work_counters.h) exist under these names, with the units the
// FLOP conversion assumes: tensor paths in math ops, FFMA in instructions, DRAM in bytes.
TEST_P(CatalogueAgainstCupti, WorkCountersExistWithTheirUnits) {
  const int cc = GetParam();
  auto host = HostFor(cc);
  ASSERT_NE(host, nullptr);
  const WorkCounterSet* set = WorkCountersFor(cc);
  ASSERT_NE(set, nullptr);
  EXPECT_TRUE(host->CheckMetrics(set->AllHwNames()).ok()) << host->CheckMetrics(set->AllHwNames());
  for (const WorkCounter& c : set->paths) {
    auto props = host->Properties(c.hw_name);
    ASSERT_TRUE(props.ok()) << props.status();
    const bool tensor = c.hw_name.rfind("sm__ops_path_tensor", 0) == 0;
    EXPECT_EQ(props->dim_unit, tensor ? "math_op" : "instruction") << c.hw_name;
    if (tensor) EXPECT_EQ(c.flops_per_count, 1) << c.hw_name;
  }
  EXPECT_EQ(host->Properties(set->dram_read)->dim_unit, "byte");
}

INSTANTIATE_TEST_SUITE_P(Sm80AndSm90, CatalogueAgainstCupti, testing::Values(80, 90));

TEST(CuptiMetricHost, WgmmaMetricIsHopperOnly) {
  auto ga100 = HostFor(80);
  auto gh100 = HostFor(90);
  ASSERT_NE(ga100, nullptr);
  ASSERT_NE(gh100, nullptr);
  const std::string wgmma = "sm__inst_executed_pipe_tensor_op_gmma.sum";
  EXPECT_TRUE(gh100->Properties(wgmma).ok());
  EXPECT_FALSE(ga100->Properties(wgmma).ok());
}

TEST(CuptiMetricHost, UnknownNamesAreListed) {
  auto host = HostFor(90);
  ASSERT_NE(host, nullptr);
  const absl::Status s = host->CheckMetrics(
      {"dram__bytes.sum", "bogus__metric.sum", "sm__pipe_tensor_op_gmma_cycles_active.avg"});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  const std::string msg(s.message());
  EXPECT_NE(msg.find("bogus__metric.sum"), std::string::npos) << msg;
  EXPECT_NE(msg.find("sm__pipe_tensor_op_gmma_cycles_active.avg"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("dram__bytes.sum"), std::string::npos) << msg;
}

TEST(CuptiStatus, PermissionErrorNamesTheFix) {
  const absl::Status s = CuptiStatus(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "cuptiX");
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(s.message().find("ERR_NVGPUCTRPERM"), std::string::npos);
  EXPECT_NE(s.message().find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos);
  EXPECT_TRUE(CuptiStatus(CUPTI_SUCCESS, "x").ok());
}

TEST(CuptiMetricHost, UnknownChipIsAnError) {
  EXPECT_FALSE(CuptiMetricHost::Create("NOT_A_CHIP").ok());
}

}  // namespace
}  // namespace flashscope::profiler
