// flashscope-metric-probe's workloads on a GPU: every default workload launches and finishes (the
// attention rungs on a small problem, to stay quick), and a kernel that cannot run its problem is
// refused by name before anything launches.
#include <gtest/gtest.h>

#include "profiler/device_info.h"
#include "profiler/tools/probe_workloads.h"

namespace flashscope::profiler {
namespace {

class ProbeWorkloadsGpuTest : public testing::Test {
 protected:
  void SetUp() override {
    if (!CountDevices().ok()) GTEST_SKIP() << "no GPU: " << CountDevices().status();
    auto info = QueryDevice(0);
    ASSERT_TRUE(info.ok()) << info.status();
    device_ = *info;
    ASSERT_EQ(cudaStreamCreate(&stream_), cudaSuccess);
    problems_.attention.batch = 1;
    problems_.attention.heads = 2;
    problems_.attention.seq_q = problems_.attention.seq_k = 256;
    problems_.attention.head_dim = 128;
    problems_.attention.dtype = DType::kBF16;
  }
  void TearDown() override {
    if (stream_) cudaStreamDestroy(stream_);
  }

  DeviceInfo device_;
  cudaStream_t stream_ = nullptr;
  ProbeProblems problems_;
};

TEST_F(ProbeWorkloadsGpuTest, DefaultWorkloadsLaunchAndFinish) {
  auto set = WorkloadSet::Create(DefaultWorkloadNames(), problems_, device_, stream_);
  ASSERT_TRUE(set.ok()) << set.status();
  ASSERT_EQ((*set)->workloads().size(), DefaultWorkloadNames().size());
  for (const Workload& w : (*set)->workloads()) {
    EXPECT_FALSE(w.description.empty()) << w.name;
    EXPECT_EQ(w.launch(stream_), cudaSuccess) << w.name;
    EXPECT_EQ(cudaStreamSynchronize(stream_), cudaSuccess) << w.name;
  }
}

TEST_F(ProbeWorkloadsGpuTest, UnsupportedProblemIsRefusedByName) {
  problems_.attention.head_dim = 1000;  // beyond every rung's head dimensions
  auto set = WorkloadSet::Create({"attn.a10_fa2"}, problems_, device_, stream_);
  ASSERT_FALSE(set.ok());
  EXPECT_NE(set.status().message().find("attn.a10_fa2 cannot run"), std::string::npos)
      << set.status();
}

}  // namespace
}  // namespace flashscope::profiler
