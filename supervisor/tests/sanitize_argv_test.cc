// The rerun of one case under compute-sanitizer must run exactly the case the run measured: the
// worker takes the plan from the (scratch) journal and runs the one case named by its key.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "protocol/worker_protocol.h"
#include "supervisor/sanitize.h"

namespace flashscope::suites {
namespace {

using ::testing::Contains;

TEST(SanitizeRerunArgv, ToolThenTheWorkerOnOneCaseByKey) {
  SanitizeArgs a;
  a.tool = "memcheck";
  a.sanitizer_path = "/usr/local/cuda/bin/compute-sanitizer";
  a.worker_exe = "/opt/fs/flashscope-worker";
  const std::string key = "attn.a10_fa2 attention_fwd{B=1,H=1,S=17,D=64,fp16}";
  const auto argv = SanitizeRerunArgv(a, "/tmp/s/case-7.jsonl", "/tmp/s/case-7.memcheck.log", key);
  ASSERT_GE(argv.size(), 3u);
  EXPECT_EQ(argv[0], a.sanitizer_path);
  EXPECT_THAT(argv, Contains("--tool"));
  EXPECT_THAT(argv, Contains("memcheck"));
  // The harness's own kernels run unchecked; the kernel under test (flashscope::kernels here)
  // is not excluded.
  auto exclude = std::find(argv.begin(), argv.end(), "--kernel-name-exclude");
  ASSERT_NE(exclude, argv.end());
  ASSERT_NE(exclude + 1, argv.end());
  EXPECT_THAT(exclude[1], ::testing::HasSubstr("kns=10flashscope6verify"));
  EXPECT_THAT(exclude[1], ::testing::HasSubstr("kns=flashscope::runner::"));
  EXPECT_THAT(exclude[1], ::testing::Not(::testing::HasSubstr("kernels")));
  // What follows the tool's options is a worker command line the worker parses back.
  auto worker = std::find(argv.begin(), argv.end(), a.worker_exe);
  ASSERT_NE(worker, argv.end());
  auto request = protocol::ParseWorkerArgv(std::vector<std::string>(worker, argv.end()));
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ(request->command, protocol::Command::kRun);
  EXPECT_EQ(request->journal_path, "/tmp/s/case-7.jsonl");
  EXPECT_EQ(request->only_keys, std::vector<std::string>{key});
  EXPECT_TRUE(request->sanitize_rerun);
}

}  // namespace
}  // namespace flashscope::suites
