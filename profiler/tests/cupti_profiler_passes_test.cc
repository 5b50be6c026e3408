// The range profiler's replay loop (profiler/cupti_profiler_passes.h) driven by a pass source
// that says "all submitted" after a given number of passes, as CUPTI's Stop does.
#include "profiler/cupti_profiler_passes.h"

#include <gtest/gtest.h>

#include <string>

namespace flashscope::profiler {
namespace {

// A session that needs `needed` passes; counts what the loop asked of it.
struct Session {
  int needed = 0;
  int one_at_a_time = 0;
  int run = 0;
  int bound_asked = 0;
  ReplayPassSource Source() {
    ReplayPassSource s;
    s.run_pass = [this]() -> absl::StatusOr<bool> { return ++run >= needed; };
    s.one_at_a_time = [this]() -> absl::StatusOr<int> {
      ++bound_asked;
      return one_at_a_time;
    };
    s.kernels = [] { return std::string("kernel A01ScalarKernel<__half, 64>"); };
    return s;
  }
};

TEST(ReplayUntilAllSubmittedTest, StopsWhenCuptiSaysAllPassesAreIn) {
  Session s{7, 40};
  absl::StatusOr<int> passes = ReplayUntilAllSubmitted(7, s.Source());
  ASSERT_TRUE(passes.ok()) << passes.status();
  EXPECT_EQ(*passes, 7);
  EXPECT_EQ(s.bound_asked, 0) << "the bound is derived only when the config's count falls short";
}

TEST(ReplayUntilAllSubmittedTest, GoesOnPastTheConfigsCountUpToTheBound) {
  // The 2 x H200 trust run: a config that said 7 and a session that wanted more than 11.
  Session s{13, 40};
  absl::StatusOr<int> passes = ReplayUntilAllSubmitted(7, s.Source());
  ASSERT_TRUE(passes.ok()) << passes.status();
  EXPECT_EQ(*passes, 13);
  EXPECT_EQ(s.bound_asked, 1);
}

TEST(ReplayUntilAllSubmittedTest, ASessionThatFinishesOnTheBoundsLastPassSucceeds) {
  Session s{40, 40};
  absl::StatusOr<int> passes = ReplayUntilAllSubmitted(7, s.Source());
  ASSERT_TRUE(passes.ok()) << passes.status();
  EXPECT_EQ(*passes, 40);
}

TEST(ReplayUntilAllSubmittedTest, GivesUpAtTheBoundNamingKernelCountsAndBound) {
  Session s{1000, 40};
  absl::StatusOr<int> passes = ReplayUntilAllSubmitted(7, s.Source());
  ASSERT_FALSE(passes.ok());
  EXPECT_EQ(s.run, 40);
  const std::string msg(passes.status().message());
  EXPECT_NE(msg.find("after 40"), std::string::npos) << msg;
  EXPECT_NE(msg.find("A01ScalarKernel<__half, 64>"), std::string::npos) << msg;
  EXPECT_NE(msg.find("config said 7"), std::string::npos) << msg;
  EXPECT_NE(msg.find("takes 40"), std::string::npos) << msg;
}

TEST(ReplayUntilAllSubmittedTest, ABoundBelowTheConfigsCountNeverCutsTheConfigShort) {
  Session s{9, 3};  // a bound smaller than CUPTI's own count is not believed
  absl::StatusOr<int> passes = ReplayUntilAllSubmitted(12, s.Source());
  ASSERT_TRUE(passes.ok()) << passes.status();
  EXPECT_EQ(*passes, 9);
  EXPECT_EQ(s.bound_asked, 0);
}

TEST(ReplayUntilAllSubmittedTest, PassAndBoundErrorsComeBackAsTheyAre) {
  ReplayPassSource failing;
  failing.run_pass = []() -> absl::StatusOr<bool> {
    return absl::InternalError("kernel launch (profiling pass): cudaErrorLaunchFailure");
  };
  failing.one_at_a_time = []() -> absl::StatusOr<int> { return 10; };
  failing.kernels = [] { return std::string("k"); };
  EXPECT_EQ(ReplayUntilAllSubmitted(3, failing).status().message(),
            "kernel launch (profiling pass): cudaErrorLaunchFailure");
  Session s{100, 0};
  ReplayPassSource no_bound = s.Source();
  no_bound.one_at_a_time = []() -> absl::StatusOr<int> {
    return absl::FailedPreconditionError("cuptiProfilerHostInitialize failed");
  };
  EXPECT_EQ(ReplayUntilAllSubmitted(2, no_bound).status().message(),
            "cuptiProfilerHostInitialize failed");
}

}  // namespace
}  // namespace flashscope::profiler
