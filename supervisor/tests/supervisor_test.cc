// The supervisor (supervisor/supervisor.h) with a CPU stand-in for flashscope-worker
// (tests/fake_worker.cc): planning in a worker, the dry run, the refusal without a GPU, crashes
// and hangs that cost one case, plugins that crash while loading, and resume by key, including
// its refusals of a journal of another plan (issue 14, item 2).
#include "supervisor/supervisor.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/time/time.h"

#include "reports/journal.h"
#include "reports/report_json.h"
#include "supervisor/tests/supervisor_fixture.h"

namespace flashscope::suites {
namespace {

namespace fs = std::filesystem;

using SupervisorTest = testing::SupervisorFixture;

TEST_F(SupervisorTest, DryRunPrintsThePlanWithProvenanceAndNeedsNoGpu) {
  setenv("FAKE_NO_GPU", "1", 1);
  SuperviseArgs a = Args();
  a.dry_run = true;
  ::testing::internal::CaptureStdout();
  SuperviseResult r = Run(a);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(r.exit_code, 0) << stderr_;
  EXPECT_HAS(out, "plan: 6 cases");
  EXPECT_HAS(out, "built-in                 flashscope fake-revision");
  EXPECT_HAS(out, "fakeplugin");
  EXPECT_HAS(out, "file " + fs::canonical(plugin_).string());
  EXPECT_HAS(out, Key("plug.c", 17) + "  [fakeplugin]");
  EXPECT_HAS(out, "device: none usable");
  EXPECT_FALSE(fs::exists(Journal()));
  EXPECT_FALSE(fs::exists(out_));
}

TEST_F(SupervisorTest, NoGpuFailsCleanlyAndLeavesNoJournal) {
  setenv("FAKE_NO_GPU", "1", 1);
  SuperviseResult r = Run(Args());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_HAS(stderr_, "no usable GPU: no CUDA-capable device is detected (fake)");
  EXPECT_HAS(stderr_, "no journal was written");
  EXPECT_FALSE(fs::exists(Journal()));
  EXPECT_FALSE(fs::exists(out_));
}

TEST_F(SupervisorTest, CompleteRunKeepsPlanOrderAndProvenanceAndRemovesTheJournal) {
  SuperviseResult r = Run(Args());
  ASSERT_EQ(r.exit_code, 0) << stderr_;
  EXPECT_FALSE(fs::exists(Journal()));
  auto report = reports::ReadReportFile(out_);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->complete);
  ASSERT_EQ(report->cases.size(), 6u);
  EXPECT_EQ(report->cases[0].Key(), Key("fake.a", 17));
  EXPECT_EQ(report->cases[5].Key(), Key("plug.c", 64));
  ASSERT_TRUE(report->cases[0].provenance.has_value());
  EXPECT_TRUE(report->cases[0].provenance->builtin);
  ASSERT_TRUE(report->cases[2].provenance.has_value());
  EXPECT_EQ(report->cases[2].provenance->path, fs::canonical(plugin_).string());
  EXPECT_EQ(report->cases[2].provenance->plugin, "fakeplugin");
}

TEST_F(SupervisorTest, PluginCrashInSupportsCostsOnlyItsCase) {
  setenv("FAKE_CRASH_KEY", Key("plug.c", 17).c_str(), 1);
  SuperviseResult r = Run(Args());
  EXPECT_EQ(r.exit_code, 1) << stderr_;
  auto report = reports::ReadReportFile(out_);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->complete);
  ASSERT_EQ(report->cases.size(), 6u);
  for (const auto& c : report->cases) {
    if (c.Key() == Key("plug.c", 17)) {
      EXPECT_EQ(c.status, reports::CaseStatus::kError);
      EXPECT_EQ(c.reason, "plugin " + fs::canonical(plugin_).string() +
                              " (fakeplugin 1) crashed in supports(): signal 11 (Segmentation "
                              "fault)");
    } else {
      EXPECT_EQ(c.status, reports::CaseStatus::kPassed) << c.Key();
    }
  }
}

TEST_F(SupervisorTest, HangingCaseIsATimeout) {
  SuperviseArgs a = Args();
  a.case_timeout_s = 1;
  EXPECT_EQ(RunWithHungCase(Key("fake.b", 64), a).exit_code, 1);
  auto report = reports::ReadReportFile(out_);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->cases.size(), 6u);
  for (const auto& c : report->cases) {
    EXPECT_EQ(c.status, c.Key() == Key("fake.b", 64) ? reports::CaseStatus::kTimeout
                                                     : reports::CaseStatus::kPassed)
        << c.Key();
  }
}

TEST_F(SupervisorTest, PluginThatCrashesThePlannerIsPlannedAround) {
  setenv("FAKE_CRASH_LOADING", fs::canonical(plugin_).c_str(), 1);
  SuperviseArgs a = Args();
  a.dry_run = true;
  ::testing::internal::CaptureStdout();
  SuperviseResult r = Run(a);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(r.exit_code, 1) << "a lost plugin fails the dry run";
  const std::string reason = "plugin " + fs::canonical(plugin_).string() +
                             " crashed while loading: signal 11 (Segmentation fault)";
  EXPECT_HAS(stderr_, reason);
  EXPECT_HAS(out, "LOST " + fs::canonical(plugin_).string() + ": " + reason);
}

TEST_F(SupervisorTest, PluginThatCrashesACaseWorkerWhileLoadingCostsItsCases) {
  setenv("FAKE_CRASH_LOADING_IN_RUN", fs::canonical(plugin_).c_str(), 1);
  SuperviseResult r = Run(Args());
  EXPECT_EQ(r.exit_code, 2) << "no worker can run anything while the plugin crashes them";
  auto j = reports::ReadJournal(Journal());
  ASSERT_TRUE(j.ok()) << j.status();
  const auto done = j->FinishedByKey();
  for (int seq : {17, 64}) {
    ASSERT_TRUE(done.count(Key("plug.c", seq)));
    EXPECT_EQ(done.at(Key("plug.c", seq))->status, reports::CaseStatus::kError);
    EXPECT_HAS(done.at(Key("plug.c", seq))->reason, "crashed while loading: signal 11");
  }
  EXPECT_TRUE(fs::exists(Journal())) << "an incomplete run keeps its journal";
}

TEST_F(SupervisorTest, ResumeWithTheSameArgumentsCompletesByKey) {
  InterruptedRun();
  SuperviseArgs a = Args();
  a.resume_journal = Journal();
  a.out_path.clear();
  SuperviseResult r = Run(a);
  ASSERT_EQ(r.exit_code, 0) << stderr_;
  EXPECT_EQ(r.report_path, out_);
  EXPECT_FALSE(fs::exists(Journal()));
  auto report = reports::ReadReportFile(out_);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->complete);
  EXPECT_EQ(report->cases.size(), 6u);
}

// Issue 14, item 8: the wall time of a resumed run leaves out the pause before the resume.
TEST_F(SupervisorTest, AResumedRunsWallTimeLeavesOutThePause) {
  SuperviseArgs a = Args();
  a.deadline_s = 1;
  ASSERT_EQ(RunWithHungCase(Key("fake.a", 64), a).exit_code, 1) << stderr_;
  std::this_thread::sleep_for(std::chrono::seconds(3));  // the pause
  a.deadline_s = 0;
  a.resume_journal = Journal();
  SuperviseResult r = Run(a);
  ASSERT_EQ(r.exit_code, 0) << stderr_;
  auto report = reports::ReadReportFile(out_);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_TRUE(report->complete);
  const reports::Environment& e = report->environment;
  absl::Time start, end;
  std::string err;
  ASSERT_TRUE(absl::ParseTime(absl::RFC3339_full, e.started_at, &start, &err)) << err;
  ASSERT_TRUE(absl::ParseTime(absl::RFC3339_full, e.finished_at, &end, &err)) << err;
  const double span_s = absl::ToDoubleSeconds(end - start);  // whole seconds
  EXPECT_GE(span_s, 3.0);
  EXPECT_GT(e.active_s, 0.0);
  EXPECT_LT(e.active_s, span_s - 2.0) << "the 3 s pause is not in the wall time";
}

TEST_F(SupervisorTest, ResumeRefusesANarrowerKernelFilter) {
  InterruptedRun();
  const std::string before = JournalBytes();
  SuperviseArgs a = Args();
  a.resume_journal = Journal();
  a.kernels_filter = "fake.a";
  EXPECT_EQ(Run(a).exit_code, 2);
  EXPECT_HAS(stderr_,
             "belongs to another plan: the kernel filter (--kernels) was (none), now "
             "'fake.a'");
  EXPECT_HAS(stderr_, "Resume it with the arguments that started it (`flashscope run fake.json`)");
  EXPECT_EQ(JournalBytes(), before) << "a refused resume leaves the journal as it was";
  EXPECT_FALSE(fs::exists(out_));
}

TEST_F(SupervisorTest, ResumeRefusesAnotherShard) {
  InterruptedRun();
  SuperviseArgs a = Args();
  a.resume_journal = Journal();
  a.shard = "1/2";
  EXPECT_EQ(Run(a).exit_code, 2);
  EXPECT_HAS(stderr_, "the shard (--shard) was (none), now '1/2'");
  EXPECT_TRUE(fs::exists(Journal()));
}

TEST_F(SupervisorTest, ResumeRefusesAPlanMadeFromAnOlderSuiteFile) {
  InterruptedRun();
  std::ofstream(suite_, std::ios::app) << "\n";
  SuperviseArgs a = Args();
  a.resume_journal = Journal();
  EXPECT_EQ(Run(a).exit_code, 2);
  EXPECT_HAS(stderr_, "changed since the run was planned");
}

TEST_F(SupervisorTest, ResumeRefusesAJournalWithoutAPlan) {
  {
    auto w = reports::JournalWriter::Open(Journal(), /*append=*/false);
    ASSERT_TRUE(w.ok());
    reports::SuiteRecord s;
    s.name = "fake";
    ASSERT_TRUE(w->WriteHeader(s, "flashscope run fake.json", "t0").ok());
    for (int i = 0; i < 6; ++i) {
      reports::CaseResult c;
      c.kernel_id = "fake.a";
      c.problem_key = "p" + std::to_string(i);
      c.status = reports::CaseStatus::kPassed;
      ASSERT_TRUE(w->CaseFinished(i, c).ok());
    }
  }
  SuperviseArgs a = Args();
  a.resume_journal = Journal();
  EXPECT_EQ(Run(a).exit_code, 2);
  EXPECT_HAS(stderr_, "written by a flashscope without run plans");
  EXPECT_TRUE(fs::exists(Journal())) << "six results of an unknown plan are not a complete run";
}

TEST_F(SupervisorTest, ResumeRefusesResultsOutsideThePlan) {
  InterruptedRun();
  {
    auto w = reports::JournalWriter::Open(Journal(), /*append=*/true);
    ASSERT_TRUE(w.ok());
    reports::CaseResult c;
    c.kernel_id = "fake.z";
    c.problem_key = "attention_fwd{B=1,H=1,S=99,D=64,fp16}";
    c.status = reports::CaseStatus::kPassed;
    ASSERT_TRUE(w->CaseFinished(17, c).ok());
  }
  SuperviseArgs a = Args();
  a.resume_journal = Journal();
  EXPECT_EQ(Run(a).exit_code, 2);
  EXPECT_HAS(stderr_, "holds results of 1 cases its plan does not have");
  EXPECT_TRUE(fs::exists(Journal()));
}

TEST_F(SupervisorTest, DeadlineKeepsTheJournalAndAnIncompleteReport) {
  SuperviseArgs a = Args();
  a.deadline_s = 1;
  EXPECT_EQ(RunWithHungCase(Key("fake.a", 64), a).exit_code, 1);
  EXPECT_HAS(stderr_, "--resume");
  auto report = reports::ReadReportFile(out_);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_FALSE(report->complete);
  ASSERT_EQ(report->cases.size(), 4u) << "the three cases before the hang, and the one in it";
  EXPECT_EQ(report->cases[3].Key(), Key("fake.a", 64));
  EXPECT_HAS(report->cases[3].reason, "started but never finished");
  EXPECT_TRUE(fs::exists(Journal())) << "never delete a journal of an unfinished plan";
}

}  // namespace
}  // namespace flashscope::suites
