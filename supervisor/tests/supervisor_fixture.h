// The supervisor (supervisor/supervisor.h) against the CPU stand-in for flashscope-worker
// (tests/fake_worker.cc): a folder per test with a suite file and a fake plugin file, the
// supervisor's arguments, and what it printed.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "common/tests/expect_has.h"
#include "reports/journal.h"
#include "supervisor/supervisor.h"

namespace flashscope::suites::testing {

// The fake worker's two kernels and the fake plugin's one over two problems: the suite of the
// supervisor's run tests (supervisor_test, run_safety_test).
inline constexpr char kFakeRunSuite[] =
    R"({"name": "fake", "kernels": ["fake.a", "fake.b", "plug.c"],
  "problems": [{"family": "attention_fwd", "axes": {"seq": [17, 64]}}], "case_timeout_s": 30})";

class SupervisorFixture : public ::testing::Test {
 protected:
  explicit SupervisorFixture(std::string suite_text = kFakeRunSuite)
      : suite_text_(std::move(suite_text)) {}

  void SetUp() override {
    for (const char* v :
         {"FAKE_NO_GPU", "FAKE_CRASH_LOADING", "FAKE_CRASH_LOADING_IN_RUN", "FAKE_CRASH_KEY",
          "FAKE_CRASH_PHASE", "FAKE_HANG_KEY", "FAKE_FATAL_AFTER", "FAKE_DEVICES", "FAKE_EVENTS",
          "FAKE_CASE_MS", "FAKE_SLOW_UUID", "FAKE_RESULT_KB", "FAKE_FATAL_UUID", "FAKE_PARK",
          "FAKE_DIE_AFTER_FIRST_F", "FLASHSCOPE_PLUGINS", "CUDA_VISIBLE_DEVICES"}) {
      unsetenv(v);
    }
    dir_ = std::filesystem::temp_directory_path() /
           ("flashscope_supervisor_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    suite_ = (dir_ / "fake.json").string();
    std::ofstream(suite_) << suite_text_;
    plugin_ = (dir_ / "libfake_plugin.so").string();
    std::ofstream(plugin_) << "not really a shared library: the fake worker only hashes it";
    out_ = (dir_ / "run.json").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  SuperviseArgs Args() const {
    SuperviseArgs a;
    a.suite_path = suite_;
    a.plugins = {plugin_};
    a.out_path = out_;
    a.worker_exe = FLASHSCOPE_FAKE_WORKER;
    a.command_line = "flashscope run fake.json";
    a.quiet = true;
    return a;
  }
  std::string Journal() const { return out_ + ".journal.jsonl"; }
  std::string Key(const std::string& kernel, int seq) const {
    return kernel + " attention_fwd{B=1,H=1,S=" + std::to_string(seq) + ",D=64,fp16}";
  }
  // Runs the supervisor, keeping what it printed on stderr.
  SuperviseResult Run(const SuperviseArgs& a) {
    ::testing::internal::CaptureStderr();
    SuperviseResult r = Supervise(a);
    stderr_ = ::testing::internal::GetCapturedStderr();
    return r;
  }
  // Runs the supervisor while the worker never finishes case `hung_key` (FAKE_HANG_KEY): only
  // `a`'s case timeout or deadline can end that case. Later runs of the test finish it again.
  SuperviseResult RunWithHungCase(const std::string& hung_key, const SuperviseArgs& a) {
    setenv("FAKE_HANG_KEY", hung_key.c_str(), 1);
    SuperviseResult r = Run(a);
    unsetenv("FAKE_HANG_KEY");
    return r;
  }
  // An incomplete run: the worker gives up (FATAL) after two cases; the journal stays.
  void InterruptedRun() {
    setenv("FAKE_FATAL_AFTER", "2", 1);
    SuperviseResult r = Run(Args());
    unsetenv("FAKE_FATAL_AFTER");
    ASSERT_EQ(r.exit_code, 2) << stderr_;
    ASSERT_TRUE(std::filesystem::exists(Journal()));
    auto j = reports::ReadJournal(Journal());
    ASSERT_TRUE(j.ok()) << j.status();
    ASSERT_EQ(j->finished.size(), 2u);
  }
  std::string JournalBytes() const {
    std::ifstream in(Journal(), std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  std::string suite_text_;
  std::filesystem::path dir_;
  std::string suite_, plugin_, out_, stderr_;
};

}  // namespace flashscope::suites::testing
