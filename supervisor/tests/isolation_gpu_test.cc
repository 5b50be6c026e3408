// The runner survives its subjects (issue 7): a suite mixing deliberately faulty kernels with good
// ones, run through the real `flashscope run` (supervisor + worker processes). Every good case must
// pass and every bad one must carry the right status; a run killed with SIGKILL keeps every
// finished case and `--resume` completes it. The faulty kernels come from the test plugin
// (kernels/testing/, loaded by the suite's "plugins"), so these runs also take the path of a
// user's plugin: dlopen, its own CUDA runtime, provenance; and plugins that crash in supports()
// or at launch cost their own cases only (issue 12).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "nlohmann/json.hpp"
#include "reports/journal.h"
#include "reports/report_json.h"
#include "supervisor/tests/gpu_run_paths.h"

namespace flashscope {
namespace {

namespace fs = std::filesystem;

using testing::FaultSuite;
using testing::Flashscope;

// Status name of each kernel's case on the problem; a kernel with no case reads "missing", so a
// lost case can never pass for one with the enum's first value (kPassed).
std::map<std::string, std::string> StatusByKernel(const reports::Report& r,
                                                  const std::string& problem_part) {
  std::map<std::string, std::string> out;
  for (const auto& c : r.cases) {
    if (c.problem_key.find(problem_part) != std::string::npos) {
      out[c.kernel_id] = reports::CaseStatusName(c.status);
    }
  }
  return out;
}

std::string StatusOf(const std::map<std::string, std::string>& st, const std::string& kernel) {
  auto it = st.find(kernel);
  return it == st.end() ? "missing" : it->second;
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
    EXPECT_EQ(StatusOf(st, "attn.a01_scalar"), "passed");
    EXPECT_EQ(StatusOf(st, "attn.a02_smem_tiled"), "passed");
    EXPECT_EQ(StatusOf(st, "test.oob_write"), "error");
    EXPECT_EQ(StatusOf(st, "test.infinite_loop"), "timeout");
    EXPECT_EQ(StatusOf(st, "test.nan_output"), "failed");
    EXPECT_EQ(StatusOf(st, "test.half_output"), "failed");
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

// The worker process of each case, from the workers' phase trace (runner/phase_trace.h): a case a
// worker finished names its pid; cases its worker died or hung in are not in the trace.
std::map<std::string, long> WorkerPidByCase(const std::string& trace_path) {
  std::map<std::string, long> pids;
  std::ifstream in(trace_path);
  std::string line;
  while (std::getline(in, line)) {
    const auto j = nlohmann::json::parse(line);
    pids[j.at("key").get<std::string>()] = j.at("pid").get<long>();
  }
  return pids;
}

// Issue 28: on every GPU of the host at once, a kernel that faults or hangs costs its case and the
// worker of its own GPU, never another GPU's worker. With one GPU (a one-GPU machine runs this
// too: a skipped GPU test is a failure there) the same holds for that GPU alone.
TEST(IsolationGpuTest, OnEveryGpuAFaultCostsItsCaseAndOnlyItsGpusWorker) {
  const fs::path dir = fs::temp_directory_path() / "flashscope_faults_all_gpus";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string out = (dir / "report.json").string();
  const std::string trace = (dir / "trace.jsonl").string();
  const std::string cmd = "FLASHSCOPE_PHASE_TRACE=" + trace + " " + Flashscope() + " run " +
                          FaultSuite() + " --devices all --out " + out +
                          " --case_timeout_s 10 --quiet";
  const int rc = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 1) << "faulty cases must make the run exit 1";
  auto report = reports::ReadReportFile(out);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_TRUE(report->complete);
  const size_t gpus = report->environment.devices.size();
  ASSERT_GE(gpus, 1u);
  const std::map<std::string, long> pid_of = WorkerPidByCase(trace);
  // Per GPU: the faults and hangs it ran, and the worker processes that finished its cases.
  std::map<int, int> faults;
  std::map<int, std::set<long>> workers;
  for (const auto& c : report->cases) {
    SCOPED_TRACE(c.Key());
    ASSERT_TRUE(c.device.has_value()) << "every case names the GPU it ran on";
    const bool killed_its_worker =
        c.kernel_id == "test.oob_write" || c.kernel_id == "test.infinite_loop";
    if (killed_its_worker) {
      EXPECT_TRUE(c.status == reports::CaseStatus::kError ||
                  c.status == reports::CaseStatus::kTimeout);
      ++faults[*c.device];
      continue;
    }
    EXPECT_EQ(c.status, c.kernel_id.rfind("attn.", 0) == 0 ? reports::CaseStatus::kPassed
                                                           : reports::CaseStatus::kFailed);
    auto it = pid_of.find(c.Key());
    ASSERT_NE(it, pid_of.end()) << "a case its worker finished is in the trace";
    workers[*c.device].insert(it->second);
  }
  if (gpus >= 2) {
    EXPECT_GE(workers.size(), 2u) << "the cases were spread over the GPUs";
  }
  for (const auto& [device, pids] : workers) {
    // One worker to start with, and one more only for each of its own GPU's faults: another GPU's
    // fault never replaced this GPU's worker.
    EXPECT_LE(pids.size(), 1u + static_cast<size_t>(faults[device])) << "GPU " << device;
  }
}

TEST(IsolationGpuTest, PluginKernelsCarryProvenanceAndReportTheirResources) {
  const std::string out = (fs::temp_directory_path() / "flashscope_plugin_kernel.json").string();
  fs::remove(out);
  const std::string cmd = Flashscope() + " run " + FaultSuite() +
                          " --kernels 'test.nan_output,attn.a01_scalar' --out " + out + " --quiet";
  int rc = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  auto report = reports::ReadReportFile(out);
  ASSERT_TRUE(report.ok()) << report.status();
  for (const auto& c : report->cases) {
    ASSERT_TRUE(c.provenance.has_value()) << c.Key();
    if (c.kernel_id == "attn.a01_scalar") {
      EXPECT_TRUE(c.provenance->builtin);
      EXPECT_EQ(c.status, reports::CaseStatus::kPassed);
      continue;
    }
    EXPECT_FALSE(c.provenance->builtin);
    EXPECT_EQ(c.provenance->plugin, "flashscope-test-kernels");
    EXPECT_NE(c.provenance->path.find("libfs_test_kernels.so"), std::string::npos);
    EXPECT_EQ(c.provenance->sha256.size(), 64u);
    EXPECT_EQ(c.status, reports::CaseStatus::kFailed);
    // The plugin's kernels are its own CUDA runtime's; the driver reads their resources anyway.
    ASSERT_FALSE(c.resources.empty()) << c.Key();
    EXPECT_GT(c.resources[0].registers, 0);
    EXPECT_GT(c.resources[0].theoretical_occupancy, 0);
  }
}

TEST(IsolationGpuTest, PluginsThatCrashInSupportsOrAtLaunchCostTheirCases) {
  const fs::path dir = fs::temp_directory_path() / "flashscope_crashing_plugins";
  fs::create_directories(dir);
  const std::string suite = (dir / "crashing.json").string();
  const std::string plugins = FLASHSCOPE_TEST_PLUGIN_DIR;
  std::ofstream(suite) << R"({"name": "crashing", "plugins": [")" << plugins
                       << R"(/libtest_plugin_crash_supports.so", ")" << plugins
                       << R"(/libtest_plugin_crash_launch.so"],
      "kernels": ["attn.a01_scalar", "crashy.attn_v1", "launchy.attn_v1"],
      "problems": [{"family": "attention_fwd", "axes": {"seq": [17, 64]}}],
      "timing": {"warmup": 1, "min_samples": 3, "max_samples": 5, "time_cap_s": 0.1}})";
  const std::string out = (dir / "report.json").string();
  fs::remove(out);
  int rc = std::system((Flashscope() + " run " + suite + " --out " + out + " --quiet").c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 1);
  auto report = reports::ReadReportFile(out);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->complete);
  ASSERT_EQ(report->cases.size(), 6u);
  for (const auto& c : report->cases) {
    if (c.kernel_id == "attn.a01_scalar") {
      EXPECT_EQ(c.status, reports::CaseStatus::kPassed) << c.Key();
    } else if (c.kernel_id == "crashy.attn_v1") {
      EXPECT_EQ(c.status, reports::CaseStatus::kError);
      EXPECT_NE(c.reason.find("crashed in supports(): signal 11 (Segmentation fault)"),
                std::string::npos)
          << c.reason;
    } else {
      EXPECT_EQ(c.status, reports::CaseStatus::kError);
      EXPECT_NE(c.reason.find("crashed at launch: signal 11 (Segmentation fault)"),
                std::string::npos)
          << c.reason;
    }
  }
  fs::remove_all(dir);
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
