#include "runner/secret_seeds.h"

#include <gtest/gtest.h>

#include <set>

namespace flashscope::runner {
namespace {

TEST(SecretSeeds, ConsecutiveSeedsNeverRepeatAndAreCounted) {
  SecretSeeds seeds(42);
  std::set<uint64_t> seen;
  for (int i = 0; i < 10000; ++i) seen.insert(seeds.Next());
  EXPECT_EQ(seen.size(), 10000u);
  EXPECT_EQ(seeds.drawn(), 10000);
}

TEST(SecretSeeds, AKeyGivesItsOwnSequence) {
  SecretSeeds a(1), b(1), c(2);
  const uint64_t first = a.Next();
  EXPECT_EQ(first, b.Next());
  EXPECT_NE(first, c.Next());
}

TEST(SecretSeeds, EntropySeedsDifferBetweenSourcesAndNeverRepeat) {
  // Two workers (or two runs) must not draw the same inputs: every seed comes from the OS.
  SecretSeeds a, b;
  EXPECT_NE(a.Next(), b.Next());
  std::set<uint64_t> seen;
  for (int i = 0; i < 1000; ++i) seen.insert(a.Next());
  EXPECT_EQ(seen.size(), 1000u);
  EXPECT_EQ(a.drawn(), 1001);
}

TEST(SecretSeeds, SeedsAreNotTheKeyItself) {
  // A kernel that knows a small key (the suite's seed, say) must not find it among the seeds.
  SecretSeeds seeds(1);
  for (int i = 0; i < 100; ++i) {
    const uint64_t s = seeds.Next();
    EXPECT_GT(s, 1000u);
  }
}

}  // namespace
}  // namespace flashscope::runner
