// The contract stage of the work counters (runner/case_profile.cc, docs/trust.md "Cost"): which
// counters it collects per problem dtype, and that CUPTI's own host tables (no GPU needed) count
// them in a single pass on Hopper (two with the scalar paths), against six for every tensor path
// and seven for everything -- the point of the stage.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

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
  // No tensor path takes fp32 inputs: the tensor stage does not apply to fp32 problems.
  EXPECT_TRUE(ContractCounterNames(Hopper(), "fp32").empty());
}

TEST(ContractCounters, TheScalarStageAddsEveryScalarPath) {
  const std::vector<std::string> scalar = {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
                                           "sm__sass_thread_inst_executed_op_fadd_pred_on.sum",
                                           "sm__sass_thread_inst_executed_op_fmul_pred_on.sum",
                                           "sm__sass_thread_inst_executed_op_hfma_pred_on.sum"};
  std::vector<std::string> bf16 = {"sm__ops_path_tensor_src_bf16_dst_fp32.sum"};
  bf16.insert(bf16.end(), scalar.begin(), scalar.end());
  bf16.insert(bf16.end(), {"dram__bytes_read.sum", "dram__bytes_write.sum"});
  std::vector<std::string> got = ContractCounterNames(Hopper(), "bf16", ContractStage::kWithScalar);
  std::sort(got.begin(), got.end());
  std::sort(bf16.begin(), bf16.end());
  EXPECT_EQ(got, bf16);
  // fp32 problems: the scalar paths and the DRAM bytes (tf32 is outside their contract).
  std::vector<std::string> fp32 = scalar;
  fp32.insert(fp32.end(), {"dram__bytes_read.sum", "dram__bytes_write.sum"});
  got = ContractCounterNames(Hopper(), "fp32", ContractStage::kWithScalar);
  std::sort(got.begin(), got.end());
  std::sort(fp32.begin(), fp32.end());
  EXPECT_EQ(got, fp32);
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
  // The scalar stage: instrumented, two passes for fp16, bf16 and fp32 alike.
  for (const char* dtype : {"fp16", "bf16", "fp32"}) {
    EXPECT_EQ(PassesOn(chip, ContractCounterNames(Hopper(), dtype, ContractStage::kWithScalar)), 2)
        << dtype;
  }
  std::vector<std::string> hardware;
  for (const std::string& n : Hopper().AllHwNames()) {
    if (n.find("__sass_") == std::string::npos) hardware.push_back(n);
  }
  EXPECT_EQ(PassesOn(chip, hardware), 6);
}

}  // namespace
}  // namespace flashscope::runner
