#include "profiler/sample_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "profiler/timing_policy.h"

namespace flashscope::profiler {
namespace {

TEST(Percentile, InterpolatesLikeNumpy) {
  // numpy.percentile([1, 2, 3, 4], q) = 1.3, 2.5, 3.7 for q = 10, 50, 90.
  const std::vector<double> v = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(Percentile(v, 10), 1.3);
  EXPECT_DOUBLE_EQ(Percentile(v, 50), 2.5);
  EXPECT_DOUBLE_EQ(Percentile(v, 90), 3.7);
  EXPECT_DOUBLE_EQ(Percentile(v, 0), 1);
  EXPECT_DOUBLE_EQ(Percentile(v, 100), 4);
  EXPECT_DOUBLE_EQ(Percentile({7}, 90), 7);
}

TEST(Summarize, HandComputedValues) {
  // Unsorted on purpose. Sorted: 1 2 3 4 5 6 7 8 9 100.
  const std::vector<double> v = {9, 1, 100, 3, 5, 7, 2, 4, 6, 8};
  const SampleSummary s = Summarize(v);
  EXPECT_EQ(s.n, 10);
  EXPECT_DOUBLE_EQ(s.median, 5.5);
  EXPECT_DOUBLE_EQ(s.mean, 14.5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 100);
  EXPECT_NEAR(s.p10, 1.9, 1e-12);   // 0.9 between ranks 0 and 1
  EXPECT_NEAR(s.p90, 18.1, 1e-12);  // 9 + 0.1 * (100 - 9)
  // stdev: sum of squared deviations from 14.5 = 8182.5, over n - 1 = 9.
  EXPECT_NEAR(s.stdev, std::sqrt(8182.5 / 9.0), 1e-9);
  // |x - 5.5| for 1..9, 100: 4.5 3.5 2.5 1.5 .5 .5 1.5 2.5 3.5 94.5; their median is 2.5 (MAD).
  const double expected_noise = 1.2533141373155 * 1.4826 * 2.5 / std::sqrt(10.0) / 5.5;
  EXPECT_NEAR(s.noise, expected_noise, 1e-12);
}

TEST(Summarize, OutlierDoesNotInflateNoise) {
  std::vector<double> v(20, 1.0);
  for (int i = 0; i < 20; ++i) v[i] += 0.001 * (i % 5);
  const double base = Summarize(v).noise;
  v.push_back(50.0);  // one preempted sample
  EXPECT_LT(Summarize(v).noise, 2 * base);
}

TEST(Summarize, EmptyAndSingle) {
  const SampleSummary e = Summarize({});
  EXPECT_EQ(e.n, 0);
  EXPECT_TRUE(std::isnan(e.median));
  EXPECT_TRUE(std::isinf(e.noise));
  const SampleSummary one = Summarize({2.0});
  EXPECT_EQ(one.n, 1);
  EXPECT_DOUBLE_EQ(one.median, 2.0);
  EXPECT_DOUBLE_EQ(one.stdev, 0.0);
  EXPECT_TRUE(std::isinf(one.noise));
}

TEST(Summarize, IdenticalSamplesHaveZeroNoise) {
  const SampleSummary s = Summarize(std::vector<double>(12, 3.0));
  EXPECT_DOUBLE_EQ(s.noise, 0.0);
  EXPECT_DOUBLE_EQ(s.p10, 3.0);
}

TEST(ShouldStop, ConvergesOnlyAfterMinSamples) {
  TimingPolicy p;
  p.min_samples = 10;
  p.noise_target = 0.01;
  bool converged = true;
  std::string reason = "x";
  const SampleSummary five = Summarize(std::vector<double>(5, 1.0));  // noise 0, too few
  EXPECT_FALSE(ShouldStop(five, p, 0.1, &converged, &reason));
  EXPECT_FALSE(converged);
  EXPECT_EQ(reason, "");
  const SampleSummary ten = Summarize(std::vector<double>(10, 1.0));
  EXPECT_TRUE(ShouldStop(ten, p, 0.1, &converged, &reason));
  EXPECT_TRUE(converged);
  EXPECT_EQ(reason, "noise_target");
}

TEST(ShouldStop, NoisySamplesRunToMaxOrTimeCap) {
  TimingPolicy p;
  p.min_samples = 4;
  p.max_samples = 8;
  p.noise_target = 0.005;
  p.time_cap_s = 1.0;
  const std::vector<double> noisy = {1, 2, 3, 4, 5, 6};
  bool converged = true;
  std::string reason;
  EXPECT_FALSE(ShouldStop(Summarize(noisy), p, 0.5, &converged, &reason));
  EXPECT_TRUE(ShouldStop(Summarize(noisy), p, 1.0, &converged, &reason));
  EXPECT_FALSE(converged);
  EXPECT_EQ(reason, "time_cap");
  const std::vector<double> eight = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_TRUE(ShouldStop(Summarize(eight), p, 0.1, &converged, &reason));
  EXPECT_EQ(reason, "max_samples");
  // Null outputs are allowed.
  EXPECT_TRUE(ShouldStop(Summarize(eight), p, 0.1, nullptr, nullptr));
}

TEST(ShouldStop, TimeCapEndsEvenBelowMinSamples) {
  TimingPolicy p;
  p.min_samples = 10;
  p.time_cap_s = 2.0;
  std::string reason;
  EXPECT_TRUE(ShouldStop(Summarize({100.0, 101.0}), p, 2.5, nullptr, &reason));
  EXPECT_EQ(reason, "time_cap");
}

}  // namespace
}  // namespace flashscope::profiler
