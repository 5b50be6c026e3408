// What a report reader refuses (docs/robustness.md): contradictions inside a timing, counts that
// do not add up, duplicate keys; what it keeps: every committed report, old schemas included,
// read and written back byte for byte.
#include "reports/report_checks.h"

#include <dirent.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "nlohmann/json.hpp"
#include "reports/input_file.h"
#include "reports/journal.h"
#include "reports/report_json.h"
#include "reports/tests/sample_reports.h"

namespace flashscope::reports {
namespace {

using ::testing::HasSubstr;

std::string Message(const absl::Status& s) { return std::string(s.message()); }

std::string ReadError(const Report& report) {
  absl::StatusOr<Report> back = ReportFromJson(ToJson(report));
  return back.ok() ? "(read)" : Message(back.status());
}

TEST(ReportChecks, AMedianOutsideItsSamplesIsRefused) {
  Report r = testing::FullReport();
  TimingRecord& t = *r.cases[0].timing;
  // Every sample 10x the median: the median cannot come from these samples.
  for (double& x : t.samples_ms) x = t.median_ms * 10;
  t.min_ms = t.median_ms * 10;
  EXPECT_THAT(ReadError(r), HasSubstr("cases[0].timing: median_ms 0.0123 contradicts samples_ms"));
  EXPECT_NE(TimingContradiction(t), "");
}

TEST(ReportChecks, AMinimumThatIsNotTheFastestSampleIsRefused) {
  Report r = testing::FullReport();
  r.cases[0].timing->min_ms = 0.5;
  EXPECT_THAT(ReadError(r), HasSubstr("min_ms 0.5 contradicts samples_ms, whose smallest is"));
}

TEST(ReportChecks, ConsistentTimingsAndTimingsWithoutSamplesAreRead) {
  Report r = testing::FullReport();
  EXPECT_EQ(ReadError(r), "(read)");
  r.cases[0].timing->samples_ms.clear();  // compare will not judge it, but it is readable
  r.cases[0].timing->interleaved.reset();
  EXPECT_EQ(ReadError(r), "(read)");
}

TEST(ReportChecks, CountsMustAddUp) {
  Report r = testing::FullReport();
  ASSERT_TRUE(r.cases[0].verification.has_value());
  r.cases[0].verification->stats.elements = 10;
  r.cases[0].verification->stats.bad = 11;
  EXPECT_THAT(ReadError(r), HasSubstr("verification.stats.bad: 11 of 10 elements"));
  r = testing::FullReport();
  r.cases[0].timing->warmup_runs = -3;
  EXPECT_THAT(ReadError(r), HasSubstr("timing.warmup_runs: -3 is out of range [0, inf]"));
}

TEST(ReportChecks, DuplicateKeysInAReportFileAreRefusedWithLineAndColumn) {
  const std::string path = testing::MakeTempDir() + "/dup.json";
  std::string text = ReportToText(testing::FullReport());
  const size_t at = text.find("\"median_ms\"");
  ASSERT_NE(at, std::string::npos);
  text.insert(at, "\"median_ms\": 99,\n");
  std::ofstream(path) << text;
  absl::StatusOr<Report> r = ReadReportFile(path);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(Message(r.status()), HasSubstr("dup.json:"));
  EXPECT_THAT(Message(r.status()), HasSubstr("duplicate key \"median_ms\" in cases[0].timing"));
}

TEST(ReportChecks, AJournalLineTooLongIsSkippedAndTheRestKept) {
  const std::string path = testing::MakeTempDir() + "/run.jsonl";
  {
    absl::StatusOr<JournalWriter> w = JournalWriter::Open(path, /*append=*/false);
    ASSERT_TRUE(w.ok());
    SuiteRecord suite;
    suite.name = "s";
    ASSERT_TRUE(w->WriteHeader(suite, "flashscope run s", "2026-01-01T00:00:00Z").ok());
    ASSERT_TRUE(w->CaseFinished(0, testing::SimpleCase("k", "p0", CaseStatus::kPassed, 1)).ok());
  }
  // A garbage line longer than the journal's line limit is never held whole (kMaxJournalLineBytes
  // is 64 MiB; the file is written in pieces to keep the test's own memory small).
  {
    std::ofstream f(path, std::ios::app | std::ios::binary);
    const std::string piece(1 << 20, 'x');
    for (uint64_t n = 0; n <= (kMaxJournalLineBytes >> 20); ++n) f << piece;
    f << "\n";
  }
  {
    absl::StatusOr<JournalWriter> w = JournalWriter::Open(path, /*append=*/true);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(w->CaseFinished(1, testing::SimpleCase("k", "p1", CaseStatus::kPassed, 2)).ok());
  }
  SetMaxInputBytes(0);  // the file is over the default cap only because of the skipped line
  absl::StatusOr<JournalContents> j = ReadJournal(path);
  SetMaxInputBytes(kDefaultMaxInputBytes);
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ(j->finished.size(), 2u);
  EXPECT_EQ(j->bad_lines, 1);
  EXPECT_EQ(j->long_lines, std::vector<int>{3});
}

TEST(ReportChecks, ADuplicateKeyInAJournalLineIsRefusedNotSkipped) {
  const std::string path = testing::MakeTempDir() + "/run.jsonl";
  std::ofstream(path) << R"({"type":"header","type":"case","schema":"flashscope.journal"})"
                      << "\n";
  absl::StatusOr<JournalContents> j = ReadJournal(path);
  ASSERT_FALSE(j.ok());
  EXPECT_THAT(Message(j.status()), HasSubstr("run.jsonl:1"));
  EXPECT_THAT(Message(j.status()), HasSubstr("duplicate key \"type\""));
}

std::vector<std::string> ReportFilesUnder(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name.find(".json") != std::string::npos && name.find(".jsonl") == std::string::npos) {
        out.push_back(dir + "/" + name);
      }
    }
    closedir(d);
  }
  return out;
}

// Every committed run (plain and .json.xz, written by older flashscopes, some before later keys
// existed) is read, and what it is written back as reads back to the very same text: the field
// lists read what they write. (That the field lists write what the hand-written writer wrote was
// checked once on the 44 uncompressed committed reports, `render --format baseline` before and
// after: identical bytes; the render goldens hold it since.)
TEST(ReportChecks, EveryCommittedRunReadsAndWritesBackStably) {
  const std::vector<std::string> files = ReportFilesUnder(FS_REPORTS_RUNS);
  ASSERT_GE(files.size(), 10u);
  int compressed = 0;
  for (const std::string& path : files) {
    absl::StatusOr<Report> r = ReadReportFile(path);
    ASSERT_TRUE(r.ok()) << r.status();
    const std::string once = ReportToText(*r);
    absl::StatusOr<Report> again = ReportFromJson(nlohmann::json::parse(once));
    ASSERT_TRUE(again.ok()) << path << ": " << again.status();
    // Not EXPECT_EQ: a mismatch of two 20 MB texts would print both.
    EXPECT_TRUE(ReportToText(*again) == once) << path;
    compressed += path.size() > 3 && path.substr(path.size() - 3) == ".xz";
  }
  EXPECT_GE(compressed, 5);
}

}  // namespace
}  // namespace flashscope::reports
