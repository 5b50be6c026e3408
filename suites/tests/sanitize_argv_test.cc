// The rerun of one case under compute-sanitizer must name the same case the run measured: the
// worker re-plans the suite from its flags, so the kernels filter and the shard both travel.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "suites/sanitize.h"

namespace flashscope::suites {
namespace {

using ::testing::Contains;

TEST(SanitizeRerunArgv, CarriesTheShardAndTheFilter) {
  SanitizeArgs a;
  a.tool = "memcheck";
  a.sanitizer_path = "/usr/local/cuda/bin/compute-sanitizer";
  a.worker_exe = "/opt/fs/flashscope";
  a.suite_path = "suites/smoke.json";
  a.kernels_filter = "attn.a10*";
  a.shard = "2/4";
  const auto argv = SanitizeRerunArgv(a, "/tmp/s/case-7.jsonl", "/tmp/s/case-7.memcheck.log", 7);
  ASSERT_GE(argv.size(), 3u);
  EXPECT_EQ(argv[0], a.sanitizer_path);
  EXPECT_THAT(argv, Contains("--tool"));
  EXPECT_THAT(argv, Contains("memcheck"));
  EXPECT_THAT(argv, Contains("__worker"));
  EXPECT_THAT(argv, Contains("--suite=suites/smoke.json"));
  EXPECT_THAT(argv, Contains("--kernels=attn.a10*"));
  EXPECT_THAT(argv, Contains("--shard=2/4"));
  EXPECT_THAT(argv, Contains("--only_cases=7"));
  EXPECT_THAT(argv, Contains("--journal=/tmp/s/case-7.jsonl"));
  EXPECT_THAT(argv, Contains("--sanitize_rerun"));
}

TEST(SanitizeRerunArgv, NoShardMeansTheWholePlan) {
  SanitizeArgs a;
  a.tool = "racecheck";
  a.sanitizer_path = "cs";
  a.worker_exe = "fs";
  const auto argv = SanitizeRerunArgv(a, "j", "l", 0);
  // An empty --shard= is what the worker reads as "everything" (suites/shard.h).
  EXPECT_THAT(argv, Contains("--shard="));
}

}  // namespace
}  // namespace flashscope::suites
