// flashscope-bench's flags: the space-separated form must not be ignored (issue 14, item 7).
#include "bench/bench_args.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace flashscope::bench {
namespace {

using ::testing::HasSubstr;

TEST(BenchArgs, SpaceAndEqualsFormsBothSetTheSuite) {
  EXPECT_EQ(ParseBenchArgs({"--suite", "ladder"}).suite, "ladder");
  EXPECT_EQ(ParseBenchArgs({"--suite=ladder", "--kernels", "attn.a1*"}).kernels, "attn.a1*");
  EXPECT_EQ(ParseBenchArgs({}).suite, "smoke");
  EXPECT_EQ(ParseBenchArgs({"--suites_dir", "/x"}).suites_dir, "/x");
  EXPECT_EQ(ParseBenchArgs({"--plugin", "a.so", "--plugin=b.so"}).plugins,
            (std::vector<std::string>{"a.so", "b.so"}));
}

TEST(BenchArgs, UnknownFlagsAndStrayWordsAreErrors) {
  EXPECT_THAT(ParseBenchArgs({"--suit", "ladder"}).error, HasSubstr("did you mean --suite?"));
  EXPECT_THAT(ParseBenchArgs({"ladder"}).error, HasSubstr("unexpected argument 'ladder'"));
  EXPECT_THAT(ParseBenchArgs({"--benchmark_fliter=x"}).error, HasSubstr("--benchmark_fliter"));
  EXPECT_TRUE(ParseBenchArgs({"--help"}).help);
  EXPECT_THAT(BenchHelpText(), HasSubstr("--suite SUITE"));
}

}  // namespace
}  // namespace flashscope::bench
