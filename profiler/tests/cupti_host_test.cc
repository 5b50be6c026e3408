// Checks the metric catalogue against CUPTI's own host metric tables. Needs the CUDA toolkit's
// CUPTI libraries but no GPU, so it runs in CI.
#include "profiler/cupti_host.h"

#include <gtest/gtest.h>

#include <cstdio>

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

// The config image of `names` from a host object of its own, and the passes CUPTI says it needs.
int PassesOnFreshHost(const std::string& chip, const std::vector<std::string>& names) {
  auto host = CuptiMetricHost::Create(chip);
  EXPECT_TRUE(host.ok()) << host.status();
  if (!host.ok()) return -1;
  auto image = (*host)->ConfigImage(names);
  EXPECT_TRUE(image.ok()) << image.status();
  if (!image.ok()) return -1;
  auto passes = CuptiMetricHost::NumPasses(*image);
  return passes.ok() ? *passes : -1;
}

// Why the range profiler builds each scope's config image with a host object of its own
// (profiler/cupti_profiler.cc, MakeScope): a host object adds the metrics of each image to those
// of the images before, so the second image of one host is not the config of its own metrics.
TEST(CuptiHostImages, ASecondImageOfOneHostHoldsTheFirstsMetricsToo) {
  const std::string chip = ReferenceChipForCc(90);
  const WorkCounterSet* work = WorkCountersFor(90);
  ASSERT_NE(work, nullptr);
  std::vector<std::string> all = work->AllHwNames(), hardware;
  for (const std::string& n : all) {
    if (n.find("__sass_") == std::string::npos) hardware.push_back(n);
  }
  all.push_back("gpu__time_duration.sum");
  hardware.push_back("gpu__time_duration.sum");
  const int hardware_alone = PassesOnFreshHost(chip, hardware);
  const int all_alone = PassesOnFreshHost(chip, all);
  auto shared = CuptiMetricHost::Create(chip);
  ASSERT_TRUE(shared.ok()) << shared.status();
  ASSERT_TRUE((*shared)->ConfigImage(all).ok());
  auto second = (*shared)->ConfigImage(hardware);
  ASSERT_TRUE(second.ok()) << second.status();
  const int hardware_after_all = *CuptiMetricHost::NumPasses(*second);
  std::printf(
      "GH100 work counters: hardware-counted alone %d passes, every counter %d, the "
      "hardware image of a host that made the full one first %d\n",
      hardware_alone, all_alone, hardware_after_all);
  EXPECT_GT(hardware_after_all, hardware_alone);
  // The replay loop's bound (profiler/cupti_profiler_passes.h): each metric on its own.
  int one_at_a_time = 0;
  for (const std::string& n : all) one_at_a_time += PassesOnFreshHost(chip, {n});
  std::printf("every counter one at a time: %d passes\n", one_at_a_time);
  EXPECT_GE(one_at_a_time, all_alone);
}

}  // namespace
}  // namespace flashscope::profiler

namespace flashscope::profiler {
namespace {

// The passes of the trust checks' hardware-counted work evidence on GH100, from CUPTI's own host
// tables (no GPU): each pass costs every profiled launch CUPTI's PushRange/PopRange, ~1.2 ms on an
// H200 (docs/trust.md, "Cost"), so a counter that adds a pass adds that to every case. Prints what
// each counter adds; fails when the set needs more passes than the cost measured assumes.
TEST(WorkCounterPasses, TheHardwareWorkEvidenceNeedsAtMostSixPassesOnGH100) {
  const WorkCounterSet* set = WorkCountersFor(90);
  ASSERT_NE(set, nullptr);
  std::vector<std::string> hw;
  for (const WorkCounter& c : set->paths) {
    if (c.hw_name.find("__sass_") == std::string::npos) hw.push_back(c.hw_name);
  }
  hw.insert(hw.end(), {set->dram_read, set->dram_write, "gpu__time_duration.sum",
                       "sm__cycles_active.max", "sm__cycles_elapsed.avg.per_second"});
  auto passes = [](const std::vector<std::string>& names) {
    return PassesOnFreshHost(ReferenceChipForCc(90), names);
  };
  const int all = passes(hw);
  ASSERT_GT(all, 0);
  std::printf("the hardware work evidence: %d passes\n", all);
  for (const std::string& name : hw) {
    std::vector<std::string> others = hw;
    others.erase(std::find(others.begin(), others.end(), name));
    const int without = passes(others);
    EXPECT_LE(without, all) << name;
    std::printf("  %-50s alone %d, the others %d\n", name.c_str(), passes({name}), without);
  }
  EXPECT_LE(all, 6) << "a counter added a pass: every case pays ~1.2 ms more per pass";
}

}  // namespace
}  // namespace flashscope::profiler

namespace flashscope::profiler {
namespace {

// The screen's counters (WorkScreen) exist on GH100 and fit in three passes, against six for the
// full set: the saving the screen is for. Fails when a counter of it adds a pass.
TEST(WorkCounterPasses, TheScreenNeedsAtMostThreePassesOnGH100) {
  const WorkCounterSet* set = WorkCountersFor(90);
  ASSERT_NE(set, nullptr);
  ASSERT_TRUE(set->has_screen());
  std::vector<std::string> names = set->ScreenHwNames();
  names.insert(names.end(), {"gpu__time_duration.sum", "sm__cycles_active.max",
                             "sm__cycles_elapsed.avg.per_second"});
  const int passes = PassesOnFreshHost(ReferenceChipForCc(90), names);
  ASSERT_GT(passes, 0);
  std::printf("the screen: %d passes\n", passes);
  EXPECT_LE(passes, 3);
}

}  // namespace
}  // namespace flashscope::profiler
