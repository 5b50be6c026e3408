// Helpers of the GPU tests of verify/ (and runner/): their fixture, a device array copied to the
// host as floats, and an attention problem that asks for the lse.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/problem.h"
#include "common/tests/attention_problem.h"
#include "verify/half_convert.h"

namespace flashscope::verify {

// The fixture of a GPU test (Base: ::testing::Test, or TestWithParam<T>): the test fails, never
// skips, where no CUDA device can be used, since a GPU test skipped on the GPU machine would read
// as passed.
template <typename Base = ::testing::Test>
class GpuTest : public Base {
 protected:
  void SetUp() override {
    int n = 0;
    ASSERT_EQ(cudaGetDeviceCount(&n), cudaSuccess) << "GPU test run without a usable CUDA device";
    ASSERT_GT(n, 0);
  }
};

inline std::vector<float> ToHost(const void* dev, DType t, int64_t n) {
  std::vector<unsigned char> raw(static_cast<size_t>(n) * DTypeBytes(t));
  EXPECT_EQ(cudaMemcpy(raw.data(), dev, raw.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  std::vector<float> out(static_cast<size_t>(n));
  ConvertToFloat(raw.data(), t, n, out.data());
  return out;
}

// MaskedAttentionShape with want_lse: the reference tests check the lse too.
inline AttentionProblem Attn(int64_t b, int64_t h, int64_t sq, int64_t sk, int64_t d, DType t,
                             bool causal) {
  AttentionProblem p = MaskedAttentionShape(b, h, sq, sk, d, t, causal);
  p.want_lse = true;
  return p;
}

}  // namespace flashscope::verify
