// Each worker process reads and parses its suite file once (docs/architecture.md, "What is read and
// built once"): the planning worker (PlanSuite) plans from that one parse and records the SHA-256
// of the bytes it parsed; a run worker (PlannedSuite) parses once and checks those bytes against
// the plan. suites::SuitesParsed() counts this process's parses.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "plugins/sha256.h"
#include "protocol/worker_protocol.h"
#include "reports/input_file.h"
#include "runner/planner.h"
#include "runner/worker_plan.h"
#include "suites/suite.h"

#if defined(FLASHSCOPE_HAVE_CUDA)
#include "runner/worker_run.h"
#endif

namespace flashscope::runner {
namespace {

namespace fs = std::filesystem;

constexpr char kSuite[] = R"({"name": "once", "kernels": ["good.*"], "problems": [
    {"family": "gemm", "axes": {"size": [8, 16], "dtype": "fp16"}}]})";

class SuiteReadOnce : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("suite_once_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  fs::path dir_;
};

TEST_F(SuiteReadOnce, ReadSuiteFileParsesOnceAndHashesTheBytesItParsed) {
  const std::string path = Write("once.json", kSuite);
  const uint64_t before = suites::SuitesParsed();
  auto file = ReadSuiteFile(path);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(suites::SuitesParsed() - before, 1u);
  EXPECT_EQ(file->suite.name, "once");
  EXPECT_EQ(file->sha256, plugins::Sha256Hex(kSuite));

  // A compressed suite: the hash is of the file's bytes as stored (what Sha256OfFile gives), the
  // suite of the text inside.
  auto gz = reports::CompressData(kSuite, reports::Compression::kGzip, "once.json.gz");
  ASSERT_TRUE(gz.ok()) << gz.status();
  const std::string gz_path = Write("once.json.gz", *gz);
  auto packed = ReadSuiteFile(gz_path);
  ASSERT_TRUE(packed.ok()) << packed.status();
  EXPECT_EQ(packed->suite.name, "once");
  EXPECT_EQ(packed->sha256, *plugins::Sha256OfFile(gz_path));
  EXPECT_NE(packed->sha256, file->sha256);

  EXPECT_FALSE(ReadSuiteFile((dir_ / "absent.json").string()).ok());
}

TEST_F(SuiteReadOnce, ThePlanningWorkerParsesOnceAndRecordsTheHashOfThatParse) {
  const std::string path = Write("once.json", kSuite);
  suites::protocol::WorkerRequest request;
  request.command = suites::protocol::Command::kPlan;
  request.suite_path = path;
  request.plugins = {std::string(FLASHSCOPE_TEST_PLUGIN_DIR) + "/libtest_plugin_good.so"};
  request.plan_out = (dir_ / "plan.json").string();
  const uint64_t before = suites::SuitesParsed();
  ASSERT_EQ(PlanSuite(request), 0);
  EXPECT_EQ(suites::SuitesParsed() - before, 1u) << "the planning worker parses the suite once";

  auto text = reports::ReadInputFile(request.plan_out);
  ASSERT_TRUE(text.ok()) << text.status();
  auto planned = suites::protocol::PlanningResultFromText(*text);
  ASSERT_TRUE(planned.ok()) << planned.status();
  EXPECT_EQ(planned->plan.suite_path, path);
  EXPECT_EQ(planned->plan.suite_sha256, plugins::Sha256Hex(kSuite));
  EXPECT_FALSE(planned->plan.cases.empty());

#if defined(FLASHSCOPE_HAVE_CUDA)
  // A run worker: one parse, checked against the plan's hash; a suite edited since is refused.
  const uint64_t run_before = suites::SuitesParsed();
  auto suite = PlannedSuite(planned->plan);
  ASSERT_TRUE(suite.ok()) << suite.status();
  EXPECT_EQ(suites::SuitesParsed() - run_before, 1u) << "a run worker parses the suite once";
  EXPECT_EQ(suite->name, "once");
  Write("once.json", std::string(kSuite) + "\n");
  auto changed = PlannedSuite(planned->plan);
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.status().message().find("changed since the run was planned"), std::string::npos)
      << changed.status();
#endif
}

}  // namespace
}  // namespace flashscope::runner
