// A run never destroys another run's data (issue 23, items 3 and 5): a new run refuses the journal
// of an unfinished one and says how to resume it; a run holds a lock on its journal, so a second
// run on the same --out is refused naming the first, and a lock left by a dead run is taken over
// with a note; `--resume J --dry_run` checks J against the plan exactly as a real resume does.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "supervisor/run_lock.h"
#include "supervisor/tests/supervisor_fixture.h"

namespace flashscope::suites {
namespace {

namespace fs = std::filesystem;

class RunSafetyTest : public testing::SupervisorFixture {
 protected:
  std::string Lock() const { return Journal() + ".lock"; }
};

TEST_F(RunSafetyTest, ANewRunRefusesTheJournalOfAnUnfinishedOneAndSaysHowToResume) {
  InterruptedRun();
  const std::string before = JournalBytes();
  SuperviseResult r = Run(Args());  // the CI retry: the same command, no --resume
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_HAS(stderr_, Journal() +
                          " holds the journal of an earlier run that did not finish (2 "
                          "finished cases");
  EXPECT_HAS(stderr_, "Continue that run with `flashscope run fake.json --resume " + Journal());
  EXPECT_HAS(stderr_, "give this run another --out FILE");
  EXPECT_EQ(JournalBytes(), before) << "the journal must stay byte for byte";
  EXPECT_FALSE(fs::exists(Lock()));
  // What it said works: resuming finishes the run with the two cases kept.
  SuperviseArgs resume = Args();
  resume.resume_journal = Journal();
  r = Run(resume);
  ASSERT_EQ(r.exit_code, 0) << stderr_;
  EXPECT_EQ(r.report.cases.size(), 6u);
  EXPECT_TRUE(r.report.complete);
}

TEST_F(RunSafetyTest, AFileThatIsNotAJournalIsRefusedAlikeAndKept) {
  std::ofstream(Journal()) << "precious, whatever it is";
  SuperviseResult r = Run(Args());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_HAS(stderr_, Journal() + " exists but cannot be read as a journal");
  EXPECT_EQ(JournalBytes(), "precious, whatever it is");
}

TEST_F(RunSafetyTest, ASecondRunOnTheSameOutIsRefusedNamingTheFirst) {
  InterruptedRun();  // a journal to resume, which the first run is now continuing
  const std::string before = JournalBytes();
  std::string note;
  // The lock a live run holds (this process plays the first run: flock conflicts between open
  // files even within one process).
  auto first = RunLock::Take(Journal(), "flashscope run fake.json --out run.json", &note);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(note, "");
  SuperviseResult r = Run(Args());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_HAS(stderr_, Journal() + " is in use by another flashscope run: pid " +
                          std::to_string(getpid()) + " on host ");
  EXPECT_HAS(stderr_, ", started 20");
  EXPECT_HAS(stderr_, "`flashscope run fake.json --out run.json`");
  EXPECT_EQ(JournalBytes(), before) << "the refused run wrote nothing";
  EXPECT_FALSE(fs::exists(out_));
  // --resume of that journal is refused the same way while the first run holds it.
  SuperviseArgs resume = Args();
  resume.resume_journal = Journal();
  EXPECT_EQ(Run(resume).exit_code, 2);
  EXPECT_HAS(stderr_, "is in use by another flashscope run");
  EXPECT_EQ(JournalBytes(), before);
  first->reset();  // the first run ends: its lock goes with it
  EXPECT_FALSE(fs::exists(Lock()));
  r = Run(resume);
  EXPECT_EQ(r.exit_code, 0) << stderr_;
  EXPECT_EQ(r.report.cases.size(), 6u);
}

TEST_F(RunSafetyTest, AStaleLockOfADeadRunIsTakenOverWithANote) {
  std::ofstream(Lock()) << "pid 999999\nhost elsewhere\nstarted 2026-01-01T00:00:00Z\n"
                           "command flashscope run fake.json\n";  // nobody holds its flock
  SuperviseResult r = Run(Args());
  ASSERT_EQ(r.exit_code, 0) << stderr_;
  EXPECT_HAS(stderr_, "took over the lock " + Lock() +
                          " of an earlier run that is no longer running (pid 999999 on host "
                          "elsewhere, started 2026-01-01T00:00:00Z");
  EXPECT_FALSE(fs::exists(Lock())) << "a finished run leaves no lock file";
}

TEST_F(RunSafetyTest, ALockIsHeldForTheWholeRunAndRemovedAfter) {
  // While the run is inside a case, another process sees the lock held and who holds it.
  setenv("FAKE_CASE_MS", "300", 1);
  pid_t child = fork();
  if (child == 0) {
    usleep(400 * 1000);
    const int fd = ::open(Lock().c_str(), O_RDONLY);
    const bool held = fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) != 0;
    _exit(held ? 0 : 1);
  }
  SuperviseResult r = Run(Args());
  unsetenv("FAKE_CASE_MS");
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_EQ(r.exit_code, 0) << stderr_;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the lock was not held mid-run";
  EXPECT_FALSE(fs::exists(Lock()));
}

TEST_F(RunSafetyTest, DryRunOfAResumeChecksTheJournalLikeARealResume) {
  InterruptedRun();
  const std::string before = JournalBytes();
  SuperviseArgs a = Args();
  a.resume_journal = Journal();
  a.dry_run = true;
  ::testing::internal::CaptureStdout();
  SuperviseResult ok = Run(a);
  ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(ok.exit_code, 0) << stderr_;
  // A narrower filter: the plan is another one, as a real resume would say.
  a.kernels_filter = "fake.a";
  ::testing::internal::CaptureStdout();
  SuperviseResult other = Run(a);
  ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_HAS(stderr_, "--resume " + Journal() + ": it belongs to another plan");
  EXPECT_EQ(JournalBytes(), before);
}

TEST_F(RunSafetyTest, DryRunOfAResumeRefusesAJournalOfAnotherSuiteOrAnUnreadableOne) {
  InterruptedRun();
  // Another suite: refused before planning, as a real resume is.
  const std::string other = (dir_ / "other.json").string();
  std::ofstream(other) << R"({"name": "other", "kernels": ["fake.a"],
    "problems": [{"family": "attention_fwd", "axes": {"seq": [33]}}]})";
  SuperviseArgs a = Args();
  a.suite_path = other;
  a.resume_journal = Journal();
  a.dry_run = true;
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(Run(a).exit_code, 2);
  ::testing::internal::GetCapturedStdout();
  EXPECT_HAS(stderr_, "--resume " + Journal() + ": it is the journal of suite 'fake'");
  // Not a journal at all, and no file.
  const std::string junk = (dir_ / "junk.jsonl").string();
  std::ofstream(junk) << "{\"not\": \"a journal\"}\n";
  for (const std::string& bad : {junk, (dir_ / "missing.jsonl").string()}) {
    a = Args();
    a.resume_journal = bad;
    a.dry_run = true;
    ::testing::internal::CaptureStdout();
    EXPECT_EQ(Run(a).exit_code, 2) << bad;
    ::testing::internal::GetCapturedStdout();
    EXPECT_HAS(stderr_, "--resume " + bad);
  }
}

}  // namespace
}  // namespace flashscope::suites
