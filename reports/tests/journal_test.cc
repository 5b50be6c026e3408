// The run journal: write/read, last write wins, a truncated last line, resuming after it, a
// SIGKILL'd writer, and the report recovered from a journal.
#include "reports/journal.h"

#include "render/render_terminal.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "reports/report_json.h"
#include "reports/tests/sample_reports.h"

namespace flashscope::reports {
namespace {

using ::testing::HasSubstr;
using testing::SimpleCase;

std::string Message(const absl::Status& s) { return std::string(s.message()); }

void AppendRaw(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::app);
  f << bytes;
}

SuiteRecord Suite() {
  SuiteRecord s;
  s.name = "smoke";
  s.timing.max_samples = 50;
  return s;
}

// Header, environment, and `n` started+finished cases; case `n` started only when `dangling`.
void WriteRun(const std::string& path, int n, bool dangling) {
  absl::StatusOr<JournalWriter> w = JournalWriter::Open(path, /*append=*/false);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_TRUE(w->WriteHeader(Suite(), "flashscope run smoke", "2025-01-02T03:04:05Z").ok());
  ASSERT_TRUE(w->WriteEnvironment(testing::SyntheticEnvironment()).ok());
  for (int i = 0; i < n; ++i) {
    CaseResult c = SimpleCase("attn.a01_scalar", "attention_fwd{S=" + std::to_string(i) + "}",
                              CaseStatus::kPassed, 1.0 + i);
    ASSERT_TRUE(w->CaseStarted(i, c.Key()).ok());
    ASSERT_TRUE(w->CaseFinished(i, c).ok());
  }
  if (dangling) {
    ASSERT_TRUE(w->CaseStarted(n, "attn.a02_smem_tiled attention_fwd{S=crash}").ok());
  }
}

TEST(Journal, WritesAndReadsEveryEvent) {
  const std::string path = testing::MakeTempDir() + "/run.jsonl";
  WriteRun(path, 3, /*dangling=*/true);
  absl::StatusOr<JournalContents> j = ReadJournal(path);
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ(j->suite.name, "smoke");
  EXPECT_EQ(j->suite.timing.max_samples, 50);
  EXPECT_EQ(j->command_line, "flashscope run smoke");
  EXPECT_EQ(j->started_at, "2025-01-02T03:04:05Z");
  ASSERT_TRUE(j->environment.has_value());
  EXPECT_TRUE(j->environment->synthetic);
  ASSERT_EQ(j->finished.size(), 3u);
  EXPECT_EQ(j->finished.at(2).timing->median_ms, 3.0);
  EXPECT_EQ(j->started_unfinished, std::set<int>{3});
  EXPECT_EQ(j->bad_lines, 0);
}

// Issue 14, item 8: a resumed run's wall time is the sum of its sessions, not the span that
// holds the pause between them.
TEST(Journal, ActiveSecondsLeaveOutThePauseBetweenSessions) {
  const std::string path = testing::MakeTempDir() + "/run.jsonl";
  WriteRun(path, 0, /*dangling=*/false);
  const std::string c =
      CaseToJson(SimpleCase("attn.a01_scalar", "attention_fwd{S=1}", CaseStatus::kPassed, 1.0))
          .dump();
  AppendRaw(path, R"({"type":"session","started_at_s":1000.5})"
                  "\n"
                  R"({"type":"case_started","index":0,"key":"k","at_s":1001})"
                  "\n"
                  R"({"type":"case","index":0,"at_s":1010.5,"result":)" +
                      c +
                      "}\n"
                      R"({"type":"session","started_at_s":5000})"
                      "\n"
                      R"({"type":"case","index":1,"at_s":5004,"result":)" +
                      c + "}\n");
  absl::StatusOr<JournalContents> j = ReadJournal(path);
  ASSERT_TRUE(j.ok()) << j.status();
  ASSERT_EQ(j->sessions.size(), 2u);
  EXPECT_EQ(j->sessions[0].start_s, 1000.5);
  EXPECT_EQ(j->sessions[0].end_s, 1010.5) << "a killed session ends at its last result";
  EXPECT_EQ(j->ActiveSeconds(), 10.0 + 4.0) << "the 3990 s pause is not counted";
  EXPECT_EQ(j->ActiveSeconds(/*now_s=*/5020), 10.0 + 20.0) << "the session writing the report";
  const Report r = ReportFromJournal(*j);
  EXPECT_EQ(r.environment.active_s, 14.0);
  absl::StatusOr<Report> back = ReportFromJson(ToJson(r));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->environment.active_s, 14.0);
  EXPECT_THAT(RenderSummary(r, /*color=*/false), HasSubstr("wall 14.0 s"));
}

TEST(Journal, WithoutSessionsTheActiveTimeIsUnknown) {
  const std::string path = testing::MakeTempDir() + "/run.jsonl";
  WriteRun(path, 2, /*dangling=*/false);  // written as before sessions existed: no session line
  absl::StatusOr<JournalContents> j = ReadJournal(path);
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_TRUE(j->sessions.empty());
  EXPECT_EQ(j->ActiveSeconds(), 0.0);
  const Report r = ReportFromJournal(*j);
  EXPECT_EQ(r.environment.active_s, 0.0);
  EXPECT_FALSE(ToJson(r)["environment"].contains("active_s")) << "old reports stay as they were";
}

TEST(Journal, LastWriteForAnIndexWins) {
  const std::string path = testing::MakeTempDir() + "/run.jsonl";
  WriteRun(path, 1, false);
  absl::StatusOr<JournalWriter> w = JournalWriter::Open(path, /*append=*/true);
  ASSERT_TRUE(w.ok()) << w.status();
  CaseResult again = SimpleCase("attn.a01_scalar", "attention_fwd{S=0}", CaseStatus::kFailed, 9);
  ASSERT_TRUE(w->CaseFinished(0, again).ok());
  absl::StatusOr<JournalContents> j = ReadJournal(path);
  ASSERT_TRUE(j.ok()) << j.status();
  ASSERT_EQ(j->finished.size(), 1u);
  EXPECT_EQ(j->finished.at(0).status, CaseStatus::kFailed);
}

// Issue 14, item 8: a case whose two lines are both corrupt used to vanish without a word.
TEST(Journal, UnreadableLinesAreReportedOnEveryOutput) {
  const std::string path = testing::MakeTempDir() + "/run.jsonl";
  WriteRun(path, 1, false);
  AppendRaw(path, std::string("{\"type\":\"case_started\",\"ind") + std::string(1, '\0') +
                      "\xff\n{\"type\":\"case\",\"index\":1,\"res\n");
  absl::StatusOr<JournalContents> j = ReadJournal(path);
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ(j->bad_lines, 2);
  Report r = ReportFromJournal(*j);
  EXPECT_EQ(r.unreadable_journal_lines, 2);
  EXPECT_THAT(RenderSummary(r, false), HasSubstr("2 lines of the journal could not be read"));
  // The count survives a report written from the journal and read back.
  absl::StatusOr<Report> back = ReportFromJson(ToJson(r));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->unreadable_journal_lines, 2);
  Report clean;
  EXPECT_FALSE(ToJson(clean).contains("unreadable_journal_lines"));
}

TEST(Journal, TruncatedLastLineIsCountedAndAppendingResumesCleanly) {
  const std::string path = testing::MakeTempDir() + "/run.jsonl";
  WriteRun(path, 2, false);
  AppendRaw(path, R"({"type":"case","index":2,"result":{"kernel_id":"attn.a0)");
  absl::StatusOr<JournalContents> j = ReadJournal(path);
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ(j->finished.size(), 2u);
  EXPECT_EQ(j->bad_lines, 1);

  // A resumed run appends: its first line must not be glued to the cut-off one.
  absl::StatusOr<JournalWriter> w = JournalWriter::Open(path, /*append=*/true);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_TRUE(
      w->WriteHeader(Suite(), "flashscope run smoke --resume", "2025-02-02T00:00:00Z").ok());
  ASSERT_TRUE(w->CaseFinished(2, SimpleCase("k", "p", CaseStatus::kPassed, 3)).ok());
  j = ReadJournal(path);
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ(j->finished.size(), 3u);
  EXPECT_EQ(j->bad_lines, 1);
  EXPECT_EQ(j->command_line, "flashscope run smoke --resume");
  EXPECT_EQ(j->started_at, "2025-01-02T03:04:05Z");  // the run's first start
}

TEST(Journal, SurvivesSigkillOfTheWriter) {
  const std::string path = testing::MakeTempDir() + "/killed.jsonl";
  constexpr int kCases = 40;
  pid_t pid = fork();
  ASSERT_GE(pid, 0) << "fork failed";
  if (pid == 0) {
    // Child: no gtest assertions here; exit codes tell the parent what went wrong.
    absl::StatusOr<JournalWriter> w = JournalWriter::Open(path, false);
    if (!w.ok()) _exit(10);
    if (!w->WriteHeader(Suite(), "child", "t0").ok()) _exit(11);
    for (int i = 0; i < kCases; ++i) {
      CaseResult c = SimpleCase("attn.a01_scalar", "p" + std::to_string(i), CaseStatus::kPassed, i);
      if (!w->CaseStarted(i, c.Key()).ok() || !w->CaseFinished(i, c).ok()) _exit(12);
    }
    if (!w->CaseStarted(kCases, "attn.a01_scalar p-last").ok()) _exit(13);
    // Killed with the writer still open: nothing may be waiting in a user-space buffer.
    kill(getpid(), SIGKILL);
    _exit(14);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  absl::StatusOr<JournalContents> j = ReadJournal(path);
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ(j->finished.size(), static_cast<size_t>(kCases));
  EXPECT_EQ(j->started_unfinished, std::set<int>{kCases});
  EXPECT_EQ(j->bad_lines, 0);
  EXPECT_EQ(j->finished.at(kCases - 1).problem_key, "p" + std::to_string(kCases - 1));
}

TEST(Journal, ReportFromJournalIsIncompleteAndNamesTheCaseItDiedIn) {
  const std::string path = testing::MakeTempDir() + "/run.jsonl";
  WriteRun(path, 2, /*dangling=*/true);
  absl::StatusOr<Report> r = ReadReportFile(path);  // .jsonl goes through the journal
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->complete);
  EXPECT_EQ(r->suite.name, "smoke");
  EXPECT_TRUE(r->environment.synthetic);
  ASSERT_EQ(r->cases.size(), 3u);
  EXPECT_EQ(r->cases[0].problem_key, "attention_fwd{S=0}");
  EXPECT_EQ(r->cases[1].problem_key, "attention_fwd{S=1}");
  EXPECT_EQ(r->cases[2].status, CaseStatus::kError);
  EXPECT_EQ(r->cases[2].kernel_id, "attn.a02_smem_tiled");
  EXPECT_EQ(r->cases[2].problem_key, "attention_fwd{S=crash}");
  EXPECT_THAT(r->cases[2].reason, HasSubstr("started but never finished"));
}

TEST(Journal, CommandLineComesFromHeaderWithoutEnvironment) {
  const std::string path = testing::MakeTempDir() + "/run.jsonl";
  {
    absl::StatusOr<JournalWriter> w = JournalWriter::Open(path, false);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(w->WriteHeader(Suite(), "flashscope run smoke", "t0").ok());
  }
  absl::StatusOr<JournalContents> j = ReadJournal(path);
  ASSERT_TRUE(j.ok()) << j.status();
  Report r = ReportFromJournal(*j);
  EXPECT_EQ(r.environment.command_line, "flashscope run smoke");
  EXPECT_EQ(r.environment.started_at, "t0");
  EXPECT_TRUE(r.cases.empty());
}

TEST(Journal, ReadingErrorsNamePathAndLine) {
  const std::string dir = testing::MakeTempDir();
  // A report (one JSON line without a header) is not a journal.
  std::string path = dir + "/report.jsonl";
  AppendRaw(path, ToJson(testing::FullReport()).dump() + "\n");
  absl::StatusOr<JournalContents> j = ReadJournal(path);
  ASSERT_FALSE(j.ok());
  EXPECT_THAT(Message(j.status()), HasSubstr(path + ": "));
  EXPECT_THAT(Message(j.status()), HasSubstr("not a flashscope journal"));

  path = dir + "/future.jsonl";
  AppendRaw(
      path,
      R"({"type":"header","schema":"flashscope.journal","schema_version":3,"suite":{"name":"s"}})"
      "\n");
  j = ReadJournal(path);
  ASSERT_FALSE(j.ok());
  EXPECT_THAT(Message(j.status()), HasSubstr(path + ":1: journal schema_version 3 is newer"));

  path = dir + "/badcase.jsonl";
  WriteRun(path, 1, false);
  AppendRaw(
      path,
      R"({"type":"case","index":1,"result":{"kernel_id":"k","problem_key":"p","status":"passed","timing":{"median_ms":"x"}}})"
      "\n");
  j = ReadJournal(path);
  ASSERT_FALSE(j.ok());
  EXPECT_THAT(Message(j.status()),
              HasSubstr(path + ":5: result.timing.median_ms: expected number, got string"));

  path = dir + "/noindex.jsonl";
  WriteRun(path, 0, false);
  AppendRaw(path, R"({"type":"case_started","key":"k p"})"
                  "\n");
  j = ReadJournal(path);
  ASSERT_FALSE(j.ok());
  EXPECT_THAT(Message(j.status()), HasSubstr(":3: (top level): missing required key \"index\""));

  j = ReadJournal(dir + "/absent.jsonl");
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().code(), absl::StatusCode::kNotFound);
}

TEST(Journal, UnknownEventTypesAreIgnored) {
  const std::string path = testing::MakeTempDir() + "/run.jsonl";
  WriteRun(path, 1, false);
  AppendRaw(path, R"({"type":"throttle_warning","sm_clock_mhz":900})"
                  "\n");
  absl::StatusOr<JournalContents> j = ReadJournal(path);
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ(j->finished.size(), 1u);
  EXPECT_EQ(j->bad_lines, 0);
}

TEST(Journal, OpenInMissingDirectoryAndMovedFromWriter) {
  const std::string dir = testing::MakeTempDir();
  absl::StatusOr<JournalWriter> bad = JournalWriter::Open(dir + "/nope/run.jsonl", false);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(Message(bad.status()), HasSubstr("cannot open journal " + dir + "/nope/run.jsonl"));
  EXPECT_THAT(Message(bad.status()), HasSubstr("does not exist"));

  absl::StatusOr<JournalWriter> w = JournalWriter::Open(dir + "/run.jsonl", false);
  ASSERT_TRUE(w.ok());
  JournalWriter moved = *std::move(w);
  EXPECT_TRUE(moved.CaseStarted(0, "k p").ok());
  absl::Status s = w->CaseStarted(1, "k p");  // NOLINT(bugprone-use-after-move): on purpose
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(Message(s), HasSubstr("moved from"));
}

}  // namespace
}  // namespace flashscope::reports
