// Writing a workspace's output and lse from the host, for the device tests that plant right or
// wrong answers in a Workspace (workspace_gpu_test, sampled_rows_gpu_test).
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "verify/half_convert.h"
#include "verify/workspace.h"

namespace flashscope::verify::testing {

// The workspace's host copies (reference(), baseline(), reference_lse()) as a vector to edit.
inline std::vector<float> Copy(absl::Span<const float> values) {
  return std::vector<float>(values.begin(), values.end());
}

// Writes `values` (floats) into the workspace output in its dtype.
inline void WriteOutput(Workspace& ws, absl::Span<const float> values) {
  std::vector<unsigned char> raw(values.size() * DTypeBytes(ws.output_dtype()));
  ConvertFromFloat(values.data(), static_cast<int64_t>(values.size()), ws.output_dtype(),
                   raw.data());
  ASSERT_EQ(cudaMemcpy(ws.output(), raw.data(), raw.size(), cudaMemcpyHostToDevice), cudaSuccess);
}

inline void WriteLse(Workspace& ws, absl::Span<const float> values) {
  ASSERT_EQ(cudaMemcpy(ws.lse(), values.data(), values.size() * 4, cudaMemcpyHostToDevice),
            cudaSuccess);
}

}  // namespace flashscope::verify::testing
