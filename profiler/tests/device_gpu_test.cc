// Device information, measured peaks, resource usage and kernel activity records on the GPU.
#include <gtest/gtest.h>

#include "profiler/calibration_kernels.h"
#include "profiler/device_info.h"
#include "profiler/kernel_tracer.h"
#include "profiler/resources.h"

namespace flashscope::profiler {
namespace {

class DeviceGpuTest : public testing::Test {
 protected:
  void SetUp() override {
    if (!CountDevices().ok()) GTEST_SKIP() << CountDevices().status();
  }
};

TEST_F(DeviceGpuTest, QueryDeviceIsPlausible) {
  auto info = QueryDevice(0);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_FALSE(info->name.empty());
  EXPECT_GT(info->sm_count, 0);
  EXPECT_LT(info->sm_count, 1000);
  EXPECT_GE(info->cc, 70);
  EXPECT_GT(info->l2_bytes, int64_t{1} << 20);
  EXPECT_GT(info->memory_bytes, int64_t{1} << 30);
  EXPECT_GT(info->sm_clock_mhz, 500);
  EXPECT_GT(info->memory_clock_mhz, 500);
  EXPECT_FALSE(info->driver_version.empty());
  EXPECT_EQ(info->runtime_version.rfind("13.", 0), 0u) << info->runtime_version;
  std::printf("device: %s, %d SMs, sm_%d, L2 %lld MiB, %d MHz, driver %s, runtime %s\n",
              info->name.c_str(), info->sm_count, info->cc,
              static_cast<long long>(info->l2_bytes >> 20), info->sm_clock_mhz,
              info->driver_version.c_str(), info->runtime_version.c_str());
}

TEST_F(DeviceGpuTest, BadDeviceIndexIsAnError) {
  EXPECT_EQ(QueryDevice(4096).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(DeviceGpuTest, MeasuredPeaksAreBelowDatasheetMaxima) {
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  auto peaks = MeasurePeaks(s);
  ASSERT_TRUE(peaks.ok()) << peaks.status();
  std::printf("peaks: fp16 %.1f TFLOPS, bf16 %.1f TFLOPS, copy %.0f GB/s\n",
              peaks->matmul_fp16_tflops, peaks->matmul_bf16_tflops, peaks->copy_gbps);
  // Datasheet dense fp16/bf16 maxima: A100 312, H100/H200 SXM 989 TFLOPS; HBM3e 4.8 TB/s.
  for (double t : {peaks->matmul_fp16_tflops, peaks->matmul_bf16_tflops}) {
    EXPECT_GT(t, 50);
    EXPECT_LT(t, 1000);
  }
  EXPECT_GT(peaks->copy_gbps, 300);
  EXPECT_LT(peaks->copy_gbps, 5000);
  EXPECT_FALSE(peaks->matmul_source.empty());
  EXPECT_FALSE(peaks->copy_source.empty());
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

TEST_F(DeviceGpuTest, ResourcesOfCalibrationKernels) {
  auto mma_function = CuFunctionOf(CalibrationFunction(CalibrationKernel::kMmaLoop));
  ASSERT_TRUE(mma_function.ok()) << mma_function.status();
  auto mma = QueryResources(*mma_function, "mma_loop", kCalibrationBlockThreads, 0);
  ASSERT_TRUE(mma.ok()) << mma.status();
  EXPECT_GT(mma->registers, 16);
  EXPECT_EQ(mma->local_bytes, 0);
  EXPECT_GT(mma->theoretical_occupancy, 0);
  EXPECT_LE(mma->theoretical_occupancy, 1.0);
  // The driver route (what a plugin's CUfunction takes) agrees with the runtime's own view.
  cudaFuncAttributes runtime{};
  ASSERT_EQ(cudaFuncGetAttributes(&runtime, CalibrationFunction(CalibrationKernel::kMmaLoop)),
            cudaSuccess);
  EXPECT_EQ(mma->registers, runtime.numRegs);
  EXPECT_EQ(mma->static_smem_bytes, static_cast<int>(runtime.sharedSizeBytes));
  EXPECT_EQ(mma->local_bytes, static_cast<int>(runtime.localSizeBytes));
  auto shared_function = CuFunctionOf(CalibrationFunction(CalibrationKernel::kSharedLoop));
  ASSERT_TRUE(shared_function.ok()) << shared_function.status();
  auto shared = QueryResources(*shared_function, "shared_loop", kCalibrationBlockThreads, 0);
  ASSERT_TRUE(shared.ok()) << shared.status();
  EXPECT_EQ(shared->static_smem_bytes, 32768);
  // 32 KiB per block bounds residency: at most 7 blocks of 4 warps on a 228 KiB sm_90 SM.
  EXPECT_LT(shared->theoretical_occupancy, mma->theoretical_occupancy + 1e-9);
  EXPECT_FALSE(QueryResources(nullptr, "null", 128, 0).ok());
}

TEST_F(DeviceGpuTest, KernelTracerGivesPerKernelDurations) {
  auto tracer = KernelTracer::Create();
  ASSERT_TRUE(tracer.ok()) << tracer.status();
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  auto records = (*tracer)->Trace(
      [](cudaStream_t st) {
        cudaError_t e = LaunchSpin(200'000, 1, st);
        if (e != cudaSuccess) return e;
        return LaunchSpin(500'000, 1, st);
      },
      s);
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 2u);
  EXPECT_NE((*records)[0].name.find("SpinKernel"), std::string::npos) << (*records)[0].name;
  EXPECT_NEAR((*records)[0].ms, 0.2, 0.02);
  EXPECT_NEAR((*records)[1].ms, 0.5, 0.03);
  EXPECT_NEAR(TotalMs(*records), 0.7, 0.05);
  // The tracer is reusable: a second trace sees only its own kernel.
  auto again = (*tracer)->Trace([](cudaStream_t st) { return LaunchSpin(50'000, 1, st); }, s);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->size(), 1u);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

}  // namespace
}  // namespace flashscope::profiler
