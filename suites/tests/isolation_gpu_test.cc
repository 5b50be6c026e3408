// The runner survives its subjects (issue 7): a suite mixing deliberately faulty kernels with good
// ones, run through the real `flashscope run` (supervisor + worker processes). Every good case must
// pass and every bad one must carry the right status; a run killed with SIGKILL keeps every
// finished case and `--resume` completes it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <thread>

#include "reports/journal.h"
#include "reports/report_json.h"

namespace flashscope {
namespace {

namespace fs = std::filesystem;

std::string Flashscope() { return std::string(FLASHSCOPE_BINARY_DIR) + "/cli/flashscope"; }
std::string FaultSuite() {
  return std::string(FLASHSCOPE_TEST_SOURCE_DIR) + "/suites/testing/faults.json";
}

std::map<std::string, reports::CaseStatus> StatusByKernel(const reports::Report& r,
                                                          const std::string& problem_part) {
  std::map<std::string, reports::CaseStatus> out;
  for (const auto& c : r.cases) {
    if (c.problem_key.find(problem_part) != std::string::npos) out[c.kernel_id] = c.status;
  }
  return out;
}

TEST(IsolationGpuTest, FaultsAndHangsCostOneCaseEach) {
  const std::string out = (fs::temp_directory_path() / "flashscope_faults.json").string();
  fs::remove(out);
  const std::string cmd =
      Flashscope() + " run " + FaultSuite() + " --out " + out + " --case_timeout_s 10 --quiet";
  int rc = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 1) << "faulty cases must make the run exit 1";
  auto report = reports::ReadReportFile(out);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->complete);
  for (const char* problem : {"S=17,", "S=256,"}) {
    auto st = StatusByKernel(*report, problem);
    SCOPED_TRACE(problem);
    EXPECT_EQ(st["attn.a01_scalar"], reports::CaseStatus::kPassed);
    EXPECT_EQ(st["attn.a02_smem_tiled"], reports::CaseStatus::kPassed);
    EXPECT_EQ(st["test.oob_write"], reports::CaseStatus::kError);
    EXPECT_EQ(st["test.infinite_loop"], reports::CaseStatus::kTimeout);
    EXPECT_EQ(st["test.nan_output"], reports::CaseStatus::kFailed);
    EXPECT_EQ(st["test.half_output"], reports::CaseStatus::kFailed);
  }
  for (const auto& c : report->cases) {
    if (c.kernel_id == "test.oob_write") {
      EXPECT_NE(c.reason.find("cudaError"), std::string::npos) << c.reason;
    }
    if (c.kernel_id == "test.half_output") {
      ASSERT_TRUE(c.verification.has_value());
      EXPECT_GT(c.verification->stats.never_written, 0);
    }
    if (c.kernel_id == "test.nan_output") {
      ASSERT_TRUE(c.verification.has_value());
      EXPECT_GT(c.verification->stats.nan, 0);
    }
  }
}

TEST(IsolationGpuTest, SigkillLosesNothingAndResumeCompletes) {
  const std::string out = (fs::temp_directory_path() / "flashscope_killed.json").string();
  const std::string journal = out + ".journal.jsonl";
  fs::remove(out);
  fs::remove(journal);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setpgid(0, 0);  // so the kill below takes the worker too
    execl(Flashscope().c_str(), "flashscope", "run", FaultSuite().c_str(), "--out", out.c_str(),
          "--case_timeout_s", "10", "--quiet", static_cast<char*>(nullptr));
    _exit(127);
  }
  // Kill the whole run once a few cases are on disk.
  size_t finished = 0;
  for (int i = 0; i < 600 && finished < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto j = reports::ReadJournal(journal);
    if (j.ok()) finished = j->finished.size();
  }
  ASSERT_GE(finished, 3u) << "the run did not finish 3 cases in 60 s";
  kill(-pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  auto before = reports::ReadJournal(journal);
  ASSERT_TRUE(before.ok()) << before.status();
  EXPECT_GE(before->finished.size(), finished);
  EXPECT_FALSE(fs::exists(out)) << "no final report from a killed run";

  const std::string cmd = Flashscope() + " run " + FaultSuite() + " --resume " + journal +
                          " --case_timeout_s 10 --quiet";
  int rc = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  auto report = reports::ReadReportFile(out);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->complete);
  EXPECT_EQ(report->cases.size(), 12u);  // 6 kernels x 2 problems
  // Every case finished before the kill is still there, unchanged.
  for (const auto& [index, c] : before->finished) {
    bool found = false;
    for (const auto& r : report->cases) {
      if (r.Key() == c.Key()) {
        found = true;
        EXPECT_EQ(r.status, c.status) << c.Key();
      }
    }
    EXPECT_TRUE(found) << c.Key();
  }
}

}  // namespace
}  // namespace flashscope
