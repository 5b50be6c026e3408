// Cross-check of the GPU references against the CPU double reference on the same generated
// inputs: the evidence that "gpu fp32" and "gpu fp64" mean what they say. For small shapes only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "absl/status/statusor.h"
#include "common/problem.h"
#include "verify/gpu_reference.h"
#include "verify/input_kind.h"

namespace flashscope::verify {

struct CrossCheckResult {
  int64_t elements = 0;
  double out_max_abs_diff = 0;  // max |gpu - cpu| over the output
  double ref_max_abs = 0;       // max |cpu|, for scale
  double lse_max_abs_diff = 0;  // attention only; rows that see no key must be -inf in both
  int64_t lse_mismatched = 0;   // rows where one lse is infinite and the other is not
};

// The largest problem the CPU side accepts: B·H·Sq·Sk·D (attention) or M·N·K (gemm)
// multiply-adds.
inline constexpr double kCrossCheckMaxWork = 1u << 30;

// Generates `kind` inputs with `seed`, runs the GPU reference in `precision` and the CPU double
// reference on the same values, and reports the differences. InvalidArgument for a problem
// beyond kCrossCheckMaxWork.
absl::StatusOr<CrossCheckResult> CrossCheckReferenceWithCpu(const Problem& p, InputKind kind,
                                                            uint64_t seed,
                                                            ReferencePrecision precision,
                                                            cudaStream_t stream);

}  // namespace flashscope::verify
