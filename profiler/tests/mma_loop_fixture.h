// The range-profiler GPU tests' fixture (metric_scope_gpu_test.cc, batch_profile_gpu_test.cc): a
// stream, an output buffer for the calibration mma loop (profiler/calibration_kernels.h), and the
// metrics they count: the loop's tensor path, the SASS-instrumented FFMA count and DRAM reads.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <vector>

#include "profiler/calibration_kernels.h"
#include "profiler/device_info.h"
#include "profiler/metric_catalogue.h"
#include "profiler/work_counters.h"

namespace flashscope::profiler {

class MmaLoopGpuTest : public testing::Test {
 protected:
  // `blocks_per_sm` blocks of the mma loop on every SM.
  void SetUpFor(int blocks_per_sm) {
    ASSERT_TRUE(CountDevices().ok()) << "GPU test run without a usable CUDA device";
    auto info = QueryDevice(0);
    ASSERT_TRUE(info.ok()) << info.status();
    blocks_ = info->sm_count * blocks_per_sm;
    const WorkCounterSet* set = WorkCountersFor(info->cc);
    ASSERT_NE(set, nullptr) << "no work counters for sm_" << info->cc;
    metrics_ = {{"tensor", set->paths[0].hw_name, "", "", 0},
                {"ffma", "sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "", "", 0},
                {"dram_read", set->dram_read, "", "", 0}};
    ASSERT_EQ(cudaStreamCreate(&stream_), cudaSuccess);
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&out_), size_t{1} << 20), cudaSuccess);
  }
  void TearDown() override {
    if (out_) cudaFree(out_);
    if (stream_) cudaStreamDestroy(stream_);
  }
  // The mma loop on every block, each warp `iters` x 8 mma.sync.
  cudaError_t LaunchLoop(int iters, cudaStream_t s) {
    return LaunchMmaLoop(out_, blocks_, iters, s);
  }

  std::vector<MetricDef> metrics_;
  int blocks_ = 0;
  cudaStream_t stream_ = nullptr;
  float* out_ = nullptr;
};

}  // namespace flashscope::profiler
