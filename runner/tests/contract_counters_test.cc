// The contract stage of the work counters (runner/case_profile.cc, docs/trust.md "Cost"): which
// counters it collects per problem dtype, and that CUPTI's own host tables (no GPU needed) count
// them in a single pass on Hopper, against six for every tensor path -- the point of the stage.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "profiler/cupti_host.h"
#include "profiler/work_counters.h"
#include "runner/trust_case.h"

namespace flashscope::runner {
namespace {

using testing::ElementsAre;

const profiler::WorkCounterSet& Hopper() { return *profiler::WorkCountersFor(90); }

TEST(ContractCounters, EachDtypeCollectsItsOwnTensorPathsAndTheDramBytes) {
  EXPECT_THAT(ContractCounterNames(Hopper(), "fp16"),
              ElementsAre("sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum",
                          "sm__ops_path_tensor_op_hgmma_src_fp16.sum", "dram__bytes_read.sum",
                          "dram__bytes_write.sum"));
  EXPECT_THAT(ContractCounterNames(Hopper(), "bf16"),
              ElementsAre("sm__ops_path_tensor_src_bf16_dst_fp32.sum", "dram__bytes_read.sum",
                          "dram__bytes_write.sum"));
  // No tensor path takes fp32 inputs: fp32 problems go straight to every counter.
  EXPECT_TRUE(ContractCounterNames(Hopper(), "fp32").empty());
}

int PassesOn(const std::string& chip, std::vector<std::string> names) {
  names.push_back("gpu__time_duration.sum");  // what every profiler scope adds
  auto host = profiler::CuptiMetricHost::Create(chip);
  EXPECT_TRUE(host.ok()) << host.status();
  if (!host.ok()) return -1;
  auto image = (*host)->ConfigImage(names);
  EXPECT_TRUE(image.ok()) << image.status();
  if (!image.ok()) return -1;
  auto passes = profiler::CuptiMetricHost::NumPasses(*image);
  EXPECT_TRUE(passes.ok()) << passes.status();
  return passes.ok() ? *passes : -1;
}

TEST(ContractCounters, OnePassOnHopperWhereEveryTensorPathNeedsSix) {
  const std::string chip = profiler::ReferenceChipForCc(90);
  EXPECT_EQ(PassesOn(chip, ContractCounterNames(Hopper(), "fp16")), 1);
  EXPECT_EQ(PassesOn(chip, ContractCounterNames(Hopper(), "bf16")), 1);
  std::vector<std::string> hardware;
  for (const std::string& n : Hopper().AllHwNames()) {
    if (n.find("__sass_") == std::string::npos) hardware.push_back(n);
  }
  EXPECT_EQ(PassesOn(chip, hardware), 6);
}

}  // namespace
}  // namespace flashscope::runner
