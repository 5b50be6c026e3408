// The CPU parts of interleaved timing (profiler/paired_sampling.h): the coin is fair, independent
// from pair to pair and reproducible from its seed; case seeds differ; the stopping rule stops on
// the log-ratios' noise, the pair count or the time cap.
#include "profiler/paired_sampling.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "profiler/sample_stats.h"

namespace flashscope::profiler {
namespace {

TEST(PairOrder, AFairReproducibleCoin) {
  PairOrder a(42), b(42), c(43);
  int heads = 0, same_as_c = 0, runs_of_two = 0;
  bool previous = false;
  constexpr int kN = 100000;
  for (int i = 0; i < kN; ++i) {
    const bool x = a.AFirst();
    EXPECT_EQ(x, b.AFirst()) << "same seed, same coins";
    heads += x;
    same_as_c += x == c.AFirst();
    if (i > 0) runs_of_two += x == previous;
    previous = x;
  }
  // Binomial(100000, 1/2): standard deviation 158; 5 of them is 790.
  EXPECT_NEAR(heads, kN / 2, 790);
  EXPECT_NEAR(same_as_c, kN / 2, 790) << "a neighbouring seed gives an unrelated sequence";
  EXPECT_NEAR(runs_of_two, kN / 2, 790) << "successive pairs independent";
}

TEST(PairOrder, CaseSeedsDiffer) {
  std::set<uint64_t> seeds;
  for (int i = 0; i < 1000; ++i) seeds.insert(CaseSeed(7, i));
  EXPECT_EQ(seeds.size(), 1000u);
  EXPECT_NE(CaseSeed(7, 0), CaseSeed(8, 0));
  EXPECT_EQ(CaseSeed(7, 3), CaseSeed(7, 3));
}

TEST(PairStopping, NoiseCountAndTimeCap) {
  PairPolicy p;
  p.timing.min_samples = 10;
  p.timing.max_samples = 50;
  p.timing.time_cap_s = 1.0;
  p.log_ratio_noise_target = 0.001;
  std::vector<double> quiet, loud;
  for (int i = 0; i < 10; ++i) {
    quiet.push_back(0.01 + 0.0001 * (i % 3));   // MAD 1e-4: SE ~ 5.9e-5
    loud.push_back(0.01 * ((i % 2) ? 1 : -1));  // MAD 0.01: SE ~ 5.9e-3
  }
  bool converged = false;
  std::string why;
  EXPECT_TRUE(ShouldStopPairs(quiet, p, 0.1, &converged, &why));
  EXPECT_TRUE(converged);
  EXPECT_EQ(why, "noise_target");
  EXPECT_FALSE(ShouldStopPairs(loud, p, 0.1, &converged, &why));
  EXPECT_TRUE(ShouldStopPairs(loud, p, 1.0, &converged, &why));
  EXPECT_FALSE(converged);
  EXPECT_EQ(why, "time_cap");
  std::vector<double> nine(quiet.begin(), quiet.end() - 1);
  EXPECT_FALSE(ShouldStopPairs(nine, p, 0.1, nullptr, nullptr)) << "fewer than min_samples";
  while (loud.size() < 50) loud.push_back(loud.size() % 2 ? 0.01 : -0.01);
  EXPECT_TRUE(ShouldStopPairs(loud, p, 0.1, &converged, &why));
  EXPECT_EQ(why, "max_samples");
}

TEST(MedianStandardError, MatchesTheNoiseOfASummary) {
  const std::vector<double> x = {1.0, 1.02, 0.99, 1.01, 1.0, 0.98, 1.03};
  EXPECT_NEAR(MedianStandardError(x) / Summarize(x).median, Summarize(x).noise, 1e-15);
  // MAD of {-1, 0, 1, 2, 3} around 1 is 1: 1.2533 x 1.4826 / sqrt(5).
  EXPECT_NEAR(MedianStandardError({-1, 0, 1, 2, 3}), 1.2533141373155 * 1.4826 / std::sqrt(5.0),
              1e-12);
  EXPECT_TRUE(std::isinf(MedianStandardError({1.0})));
}

}  // namespace
}  // namespace flashscope::profiler
