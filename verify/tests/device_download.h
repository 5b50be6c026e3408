// A device array of dtype `t` copied to the host as floats, for the GPU tests of verify/.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/problem.h"
#include "verify/half_convert.h"

namespace flashscope::verify {

inline std::vector<float> ToHost(const void* dev, DType t, int64_t n) {
  std::vector<unsigned char> raw(static_cast<size_t>(n) * DTypeBytes(t));
  EXPECT_EQ(cudaMemcpy(raw.data(), dev, raw.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  std::vector<float> out(static_cast<size_t>(n));
  ConvertToFloat(raw.data(), t, n, out.data());
  return out;
}

}  // namespace flashscope::verify
