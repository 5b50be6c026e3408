// Workload names of flashscope-metric-probe, checked without a GPU (the registry is static data).
#include <gtest/gtest.h>

#include "profiler/tools/probe_workloads.h"
#include "runner/kernel_loading.h"

namespace flashscope::profiler {
namespace {

TEST(ProbeWorkloadsTest, DefaultListIsCalibrationThenThreeLadderRungs) {
  const auto& names = DefaultWorkloadNames();
  ASSERT_EQ(names.size(), 7u);
  EXPECT_EQ(names[0], "calib.mma_loop");
  EXPECT_EQ(names[3], "calib.exp_loop");
  EXPECT_EQ(names[4], "attn.a05_mma_ldmatrix");
  EXPECT_EQ(names[6], "attn.a10_fa2");
  EXPECT_TRUE(ValidateWorkloadNames(names).ok()) << ValidateWorkloadNames(names);
  for (size_t i = 4; i < names.size(); ++i) {
    EXPECT_NE(runner::BuiltinKernels().Find(names[i]), nullptr) << names[i] << " left the registry";
  }
}

TEST(ProbeWorkloadsTest, AnyRegisteredKernelIsAWorkload) {
  EXPECT_TRUE(ValidateWorkloadNames({"gemm.g04_mma", "calib.copy"}).ok());
}

TEST(ProbeWorkloadsTest, UnknownNamesAreNamedWithTheValidKinds) {
  auto s = ValidateWorkloadNames({"calib.mma_loop", "attn.a99_nope"});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("attn.a99_nope"), std::string::npos) << s;
  EXPECT_NE(s.message().find("calib.shared_loop"), std::string::npos) << s;
  EXPECT_NE(s.message().find("flashscope list"), std::string::npos) << s;

  s = ValidateWorkloadNames({"calib.mma"});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("unknown calibration workload 'calib.mma'"), std::string::npos) << s;
}

TEST(ProbeWorkloadsTest, RepeatsAndEmptyListsAreRejected) {
  EXPECT_FALSE(ValidateWorkloadNames({}).ok());
  auto s = ValidateWorkloadNames({"calib.copy", "attn.a10_fa2", "calib.copy"});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("calib.copy named twice"), std::string::npos) << s;
}

}  // namespace
}  // namespace flashscope::profiler
