// The index function the sampled-row check uses on the device, run on the host.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "verify/sampled_check_counts.h"

namespace flashscope::verify {
namespace {

TEST(SampledIndex, StaysInRangeIncludingOneRow) {
  for (uint64_t total : {1ull, 2ull, 7ull, 16ull, 1000003ull}) {
    for (uint64_t i = 0; i < 1000; ++i) EXPECT_LT(SampledIndex(99, i, total), total);
  }
  EXPECT_EQ(SampledIndex(5, 3, 1), 0u);
}

TEST(SampledIndex, IsUniformOverRows) {
  // 64 rows, 64000 draws: each row's count is Binomial(64000, 1/64), mean 1000, sd ~31.
  const uint64_t rows = 64;
  std::vector<int> count(rows, 0);
  for (uint64_t i = 0; i < 64000; ++i) ++count[SampledIndex(1234, i, rows)];
  for (int c : count) {
    EXPECT_GT(c, 1000 - 6 * 31);
    EXPECT_LT(c, 1000 + 6 * 31);
  }
}

TEST(SampledIndex, ADifferentSeedDrawsDifferentRows) {
  const uint64_t rows = 1 << 20;
  int same = 0;
  for (uint64_t i = 0; i < 64; ++i) same += SampledIndex(1, i, rows) == SampledIndex(2, i, rows);
  EXPECT_LE(same, 1);
  std::set<uint64_t> distinct;
  for (uint64_t i = 0; i < 64; ++i) distinct.insert(SampledIndex(1, i, rows));
  EXPECT_GE(distinct.size(), 63u);  // 64 draws of 2^20 rows: a collision is rare
}

}  // namespace
}  // namespace flashscope::verify
