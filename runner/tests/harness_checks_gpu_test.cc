// The integrity and isolation checks on a real GPU, without any kernel of the ladder: buffers
// written by hand between Snapshot and Check, and device state changed by hand between two reads.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>

#include "runner/buffer_integrity.h"
#include "runner/case_isolation.h"
#include "verify/device_buffer.h"

namespace flashscope::runner {
namespace {

class HarnessChecksGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) GTEST_SKIP() << "no GPU found";
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
  }
  void TearDown() override {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  cudaStream_t stream_ = nullptr;
};

constexpr size_t kBytes = 3 * 4096 + 100;  // not a whole number of chunks

TEST_F(HarnessChecksGpuTest, IntegrityPassesWhenNothingIsWritten) {
  verify::DeviceBuffer input, output;
  ASSERT_TRUE(input.Allocate(kBytes, "input").ok());
  ASSERT_TRUE(output.Allocate(kBytes, "output").ok());
  ASSERT_EQ(cudaMemset(input.get(), 0x5A, kBytes), cudaSuccess);
  BufferIntegrity integrity;
  integrity.Add("input x", input.get(), kBytes, BufferIntegrity::Watch::kContentAndGuards);
  integrity.Add("output y", output.get(), kBytes, BufferIntegrity::Watch::kGuardsOnly);
  ASSERT_TRUE(integrity.Snapshot(stream_).ok());
  // The output is the kernel's to write, every byte of it.
  ASSERT_EQ(cudaMemsetAsync(output.get(), 0x11, kBytes, stream_), cudaSuccess);
  ASSERT_TRUE(integrity.Check(stream_, "launch 0").ok());
  auto r = integrity.Finish(stream_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->check, "integrity");
  EXPECT_EQ(r->status, "passed") << (r->findings.empty() ? "" : r->findings[0]);
}

TEST_F(HarnessChecksGpuTest, IntegrityNamesAChangedInputTheLaunchAndTheChunk) {
  verify::DeviceBuffer input;
  ASSERT_TRUE(input.Allocate(kBytes, "input").ok());
  ASSERT_EQ(cudaMemset(input.get(), 0, kBytes), cudaSuccess);
  BufferIntegrity integrity;
  integrity.Add("input q (slot 0)", input.get(), kBytes, BufferIntegrity::Watch::kContentAndGuards);
  ASSERT_TRUE(integrity.Snapshot(stream_).ok());
  ASSERT_TRUE(integrity.Check(stream_, "timed launch 0").ok());
  auto* p = static_cast<unsigned char*>(input.get());
  ASSERT_EQ(cudaMemsetAsync(p + 2 * 4096 + 7, 0x42, 1, stream_), cudaSuccess);
  ASSERT_TRUE(integrity.Check(stream_, "timed launch 1").ok());
  ASSERT_TRUE(integrity.Check(stream_, "timed launch 2").ok());
  auto r = integrity.Finish(stream_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->status, "failed");
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0],
            "timed launch 1 changed input q (slot 0) (12388 bytes): first in bytes "
            "8192..12287");
}

TEST_F(HarnessChecksGpuTest, IntegrityFindsAWriteJustPastTheEndAndJustBeforeTheStart) {
  verify::DeviceBuffer output;
  ASSERT_TRUE(output.Allocate(kBytes, "output").ok());
  BufferIntegrity integrity;
  integrity.Add("output o", output.get(), kBytes, BufferIntegrity::Watch::kGuardsOnly);
  ASSERT_TRUE(integrity.Snapshot(stream_).ok());
  auto* p = static_cast<unsigned char*>(output.get());
  ASSERT_EQ(cudaMemsetAsync(p + kBytes + 3, 0, 2, stream_), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(p - 16, 0, 1, stream_), cudaSuccess);
  ASSERT_TRUE(integrity.Check(stream_, "the verified launch").ok());
  auto r = integrity.Finish(stream_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->status, "failed");
  ASSERT_EQ(r->findings.size(), 2u);
  const std::string all = r->findings[0] + " | " + r->findings[1];
  EXPECT_NE(all.find("byte offset -16 (before its start)"), std::string::npos) << all;
  EXPECT_NE(all.find("byte offset " + std::to_string(kBytes + 3) + " (past its end)"),
            std::string::npos)
      << all;
}

TEST_F(HarnessChecksGpuTest, IsolationNamesAChangedLimitAndWindowAndPutsThemBack) {
  int device = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  CaseIsolation isolation(device, stream_);
  ASSERT_TRUE(isolation.Restore().ok());
  EXPECT_EQ(isolation.CheckAndRestore().status, "passed");

  // A limit any process may change at any time: the L2 fetch granularity (a hint, 0..128
  // bytes), else the printf FIFO (no kernel of this test uses printf).
  struct Candidate {
    cudaLimit limit;
    const char* name;
  };
  const Candidate candidates[] = {
      {cudaLimitMaxL2FetchGranularity, "cudaLimitMaxL2FetchGranularity"},
      {cudaLimitPrintfFifoSize, "cudaLimitPrintfFifoSize"}};
  const Candidate* changed_limit = nullptr;
  size_t before = 0, after = 0;
  for (const Candidate& c : candidates) {
    if (cudaDeviceGetLimit(&before, c.limit) != cudaSuccess) continue;
    after = c.limit == cudaLimitMaxL2FetchGranularity ? (before == 32 ? 64 : 32) : before * 2;
    size_t read_back = 0;
    if (cudaDeviceSetLimit(c.limit, after) == cudaSuccess &&
        cudaDeviceGetLimit(&read_back, c.limit) == cudaSuccess && read_back != before) {
      after = read_back;
      changed_limit = &c;
      break;
    }
    cudaGetLastError();
    cudaDeviceSetLimit(c.limit, before);
  }
  ASSERT_NE(changed_limit, nullptr) << "no limit could be changed on this GPU";
  const reports::TrustCheckRecord changed = isolation.CheckAndRestore();
  EXPECT_EQ(changed.status, "failed");
  ASSERT_FALSE(changed.findings.empty());
  EXPECT_EQ(changed.findings[0], std::string(changed_limit->name) + ": " + std::to_string(before) +
                                     " -> " + std::to_string(after));
  size_t now = 0;
  ASSERT_EQ(cudaDeviceGetLimit(&now, changed_limit->limit), cudaSuccess);
  EXPECT_EQ(now, before) << "restored for the next case";
  EXPECT_FALSE(isolation.fresh_worker_needed());

  int max_window = 0;
  cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, device);
  if (max_window <= 0) return;  // no access-policy windows on this GPU
  verify::DeviceBuffer buf;
  ASSERT_TRUE(buf.Allocate(1 << 20, "window").ok());
  cudaStreamAttrValue v{};
  v.accessPolicyWindow.base_ptr = buf.get();
  v.accessPolicyWindow.num_bytes = 1 << 20;
  v.accessPolicyWindow.hitRatio = 1.0f;
  v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  ASSERT_EQ(cudaStreamSetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &v),
            cudaSuccess);
  const reports::TrustCheckRecord window = isolation.CheckAndRestore();
  EXPECT_EQ(window.status, "failed");
  ASSERT_FALSE(window.findings.empty());
  EXPECT_EQ(
      window.findings[0].rfind("launch stream access-policy window: none -> 1048576 bytes", 0), 0u)
      << window.findings[0];
  cudaStreamAttrValue back{};
  ASSERT_EQ(cudaStreamGetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &back),
            cudaSuccess);
  EXPECT_EQ(back.accessPolicyWindow.num_bytes, 0u) << "restored for the next case";
}

}  // namespace
}  // namespace flashscope::runner
