// Chunks depend on the element count alone, cover every element once, and the statistics of a
// large output computed over chunks on threads agree with the same statistics computed over one
// range: counts and firsts exactly, sums to rounding.
#include "verify/parallel_chunks.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "verify/error_stats.h"

namespace flashscope::verify {
namespace {

TEST(ParallelChunks, CountDependsOnSizeAloneAndIsBounded) {
  EXPECT_EQ(ChunkCount(0, 100), 1);
  EXPECT_EQ(ChunkCount(199, 100), 1);
  EXPECT_EQ(ChunkCount(200, 100), 2);
  EXPECT_EQ(ChunkCount(int64_t{1} << 40, 100), kMaxChunks);
}

TEST(ParallelChunks, EveryElementOnceInOrderedChunks) {
  const int64_t n = 1000003;
  std::vector<std::atomic<int>> seen(n);
  std::vector<int64_t> begins(ChunkCount(n, 1000), -1);
  ForEachChunk(n, 1000, [&](int c, int64_t begin, int64_t end) {
    begins[c] = begin;
    for (int64_t i = begin; i < end; ++i) seen[i]++;
  });
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(seen[i].load(), 1) << i;
  for (size_t c = 1; c < begins.size(); ++c) EXPECT_GT(begins[c], begins[c - 1]);
}

TEST(ParallelChunks, LargeOutputStatisticsMatchASingleSequentialPass) {
  const int64_t n = (int64_t{1} << 22) + 17;  // 4 chunks of the verification's size and a tail
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  std::vector<float> ref(n), out(n);
  for (int64_t i = 0; i < n; ++i) {
    ref[i] = normal(rng);
    out[i] = ref[i] + 1e-3f * normal(rng);
  }
  // Planted in later chunks: the first never-written element, NaN and Inf, the largest error twice
  // (the first one must be named), an element past the bound.
  std::memset(&out[3000000], 0xFF, sizeof(float));
  std::memset(&out[3500000], 0xFF, sizeof(float));
  out[2500000] = std::nanf("");
  out[4000000] = INFINITY;
  out[1500000] = ref[1500000] + 5.0f;
  out[3900000] = ref[3900000] + 5.0f;
  const Tolerance tol{1e-2, 1e-2};
  const ErrorStats s = ComputeErrorStats(out.data(), DType::kF32, ref.data(), n, tol);
  EXPECT_EQ(s.elements, n);
  EXPECT_EQ(s.never_written, 2);
  EXPECT_EQ(s.nan, 1);
  EXPECT_EQ(s.inf, 1);
  EXPECT_EQ(s.worst_index, 3000000);  // a never-written element comes first
  EXPECT_NEAR(s.max_abs, 5.0, 1e-5);
  // The same numbers from one sequential pass (a single chunk: the output as one small array
  // each, compared element by element would be the same code path; here: recompute by hand).
  int64_t bad = 0, finite = 0;
  double sum_abs = 0, max_abs = 0;
  int64_t argmax = -1;
  for (int64_t i = 0; i < n; ++i) {
    if (IsPoisoned(out.data(), DType::kF32, i)) continue;
    if (!std::isfinite(out[i])) {
      ++bad;
      continue;
    }
    const double err = std::fabs(static_cast<double>(out[i]) - ref[i]);
    ++finite;
    sum_abs += err;
    if (argmax < 0 || err > max_abs) {
      max_abs = err;
      argmax = i;
    }
    if (err > tol.atol + tol.rtol * std::fabs(ref[i])) ++bad;
  }
  EXPECT_EQ(s.bad, bad);
  EXPECT_DOUBLE_EQ(s.max_abs, max_abs);
  EXPECT_NEAR(s.mean_abs, sum_abs / finite, 1e-12);
  // Without the poison and non-finite elements the worst index is the FIRST largest error.
  std::vector<float> clean = out;
  for (int64_t i : {3000000, 3500000, 2500000, 4000000}) clean[i] = ref[i];
  EXPECT_EQ(ComputeErrorStats(clean.data(), DType::kF32, ref.data(), n, tol).worst_index, argmax);
  EXPECT_EQ(argmax, 1500000);
}

}  // namespace
}  // namespace flashscope::verify
