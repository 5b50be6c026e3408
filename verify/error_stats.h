// Error statistics of a kernel's output against a reference, computed on the host from the raw
// bytes the kernel wrote.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/error_stats.h"
#include "common/problem.h"
#include "verify/heatmap.h"
#include "verify/output_check_counts.h"

namespace flashscope::verify {

// The byte every output buffer is filled with before a launch (PoisonBytes). All bytes 0xFF is a
// NaN in fp16, bf16 and fp32, so a kernel can never produce it from finite arithmetic by accident
// in a way that matters: an element that still holds it was never written.
inline constexpr unsigned char kPoisonByte = 0xFF;

struct Tolerance {
  double atol;
  double rtol;
};

// All error figures cover the elements that were written and are finite; NaN, Inf and
// never-written elements are counted on their own (and NaN/Inf also count as `bad`).
//   max_abs, mean_abs: of |out - ref|.
//   nrmse: sqrt(mean (out-ref)²) / sqrt(mean ref²), the root-mean-square error relative to the
//          reference's own RMS (just the RMS error when the reference is all zeros).
//   max_rel: max |out - ref| / max(|ref|, atol); the atol guard keeps near-zero references from
//            producing meaningless ratios (elements with a zero denominator are left out).
//   bad: elements with |out - ref| > atol + rtol·|ref|, plus every NaN/Inf element.
//   worst_index: the first never-written element if any, else the first NaN/Inf, else the
//                element of max_abs; -1 when there is none.
// The statistics of one comparison (common/error_stats.h: the report records the same struct).
using ErrorStats = ::flashscope::ErrorStats;

// `out_raw` holds `n` elements of `out_dtype` (as the kernel wrote them), `ref` n floats. One
// pass over chunks of at least kStatsChunkElements (parallel_chunks.h) on threads, whose sums are
// added in chunk order: the same statistics on every machine. With `heatmaps` (whose elements()
// must be n) the same pass adds every element's |out - ref| to the maps (SaturatedError: NaN,
// Inf and never-written elements saturate a map instead of poisoning its means); read them with
// heatmaps->Finish().
ErrorStats ComputeErrorStats(const void* out_raw, DType out_dtype, const float* ref, int64_t n,
                             Tolerance tol, HeatmapAccumulator* heatmaps = nullptr);
inline constexpr int64_t kStatsChunkElements = int64_t{1} << 20;

// What the GPU check of a launch's output (output_check.h) found, as statistics Decide
// (tolerance.h) can judge: max_abs, never-written and NaN/Inf counts are the check's; `bad` is its
// count of elements past the bound it was given (BoundFor), so with the atol/rtol bound it is
// Decide's `bad` too. Mean, NRMSE and the worst index are not measured (0, -1).
ErrorStats StatsFromCheck(const OutputCheckCounts& counts, int64_t elements);

// True when element `i` of `data` still has every byte equal to kPoisonByte.
bool IsPoisoned(const void* data, DType t, int64_t i);

// |out - ref| as a heatmap holds it: the largest finite float for an error that is not finite or
// does not fit a float (a never-written or non-finite element saturates the same way).
inline constexpr float kSaturatedError = std::numeric_limits<float>::max();
inline float SaturatedError(double err) {
  return std::isfinite(err) && err < kSaturatedError ? static_cast<float>(err) : kSaturatedError;
}

// The optional fp32 log-sum-exp output against the reference's. Rows that see no key have a
// reference of -inf; a kernel matching it there has error 0. Any other disagreement between
// infinities (or a NaN) counts as `mismatched`.
struct LseStats {
  int64_t elements = 0;
  double max_abs = 0;  // over the elements where both are finite
  int64_t bad = 0;     // |lse - ref| > atol + rtol·|ref|, plus mismatched
  int64_t mismatched = 0;
  int64_t never_written = 0;
  int64_t worst_index = -1;
};
LseStats ComputeLseStats(const float* lse, const float* ref, int64_t n, Tolerance tol);

}  // namespace flashscope::verify
