// Report files on disk: atomic write, and each way reading a file can fail, each with its message.
#include <dirent.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <set>

#include "reports/file_util.h"
#include "reports/journal.h"
#include "reports/report_json.h"
#include "reports/tests/sample_reports.h"

namespace flashscope::reports {
namespace {

using ::testing::HasSubstr;
using testing::ListDir;

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

std::string Message(const absl::Status& s) { return std::string(s.message()); }

TEST(ReportFile, AtomicWriteLeavesOnlyTheCompleteFile) {
  const std::string dir = testing::MakeTempDir();
  const std::string path = dir + "/report.json";
  Report first = testing::FullReport();
  ASSERT_TRUE(WriteReportFileAtomic(first, path).ok());
  EXPECT_EQ(ListDir(dir), std::set<std::string>{"report.json"});

  // Overwrite: the new content replaces the old one whole, and no .tmp file stays behind.
  Report second = testing::FullReport();
  second.suite.name = "second";
  second.cases.resize(1);
  ASSERT_TRUE(WriteReportFileAtomic(second, path).ok());
  EXPECT_EQ(ListDir(dir), std::set<std::string>{"report.json"});
  absl::StatusOr<Report> back = ReadReportFile(path);
  ASSERT_TRUE(back.ok()) << back.status();
  testing::ExpectSameReport(second, *back);
  absl::StatusOr<std::string> text = ReadWholeFile(path);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, ReportToText(second));
}

// A string that is not UTF-8 (a plugin's kernel id, a tool's message) must not cost the report or
// the journal line: its bad bytes are written as U+FFFD (was: nlohmann's dump threw).
TEST(ReportFile, StringsThatAreNotUtf8AreWrittenAsReplacementCharacters) {
  const std::string dir = testing::MakeTempDir();
  Report r = testing::FullReport();
  r.cases[0].kernel_id = "attn.\xff\xc0x";
  r.cases[0].reason = "bad \xed\xa0\x80 surrogate";
  ASSERT_TRUE(WriteReportFileAtomic(r, dir + "/r.json").ok());
  absl::StatusOr<Report> back = ReadReportFile(dir + "/r.json");
  ASSERT_TRUE(back.ok()) << back.status();
  // nlohmann decides how many U+FFFD a bad sequence becomes; what matters: shown, the rest kept.
  EXPECT_THAT(back->cases[0].kernel_id, ::testing::MatchesRegex("attn\\.(\xef\xbf\xbd)+x"));
  EXPECT_THAT(back->cases[0].reason, ::testing::MatchesRegex("bad (\xef\xbf\xbd)+ surrogate"));
  auto w = JournalWriter::Open(dir + "/j.jsonl", /*append=*/false);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_TRUE(w->WriteHeader(r.suite, "flashscope run \xff", "2025-01-02T03:04:05Z").ok());
  ASSERT_TRUE(w->CaseFinished(0, r.cases[0]).ok());
  absl::StatusOr<JournalContents> j = ReadJournal(dir + "/j.jsonl");
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ(j->finished.at(0).kernel_id, back->cases[0].kernel_id);
}

TEST(ReportFile, WritingIntoAMissingDirectoryFailsClearly) {
  const std::string dir = testing::MakeTempDir();
  const std::string path = dir + "/no/such/dir/report.json";
  absl::Status s = WriteReportFileAtomic(testing::FullReport(), path);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(Message(s), HasSubstr("cannot write " + path));
  EXPECT_THAT(Message(s), HasSubstr("directory \"" + dir + "/no/such/dir\" does not exist"));
  EXPECT_TRUE(ListDir(dir).empty());
}

TEST(ReportFile, MissingFile) {
  absl::StatusOr<Report> r = ReadReportFile("/nonexistent/dir/r.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Message(r.status()), "/nonexistent/dir/r.json: no such file");
}

TEST(ReportFile, EmptyFile) {
  const std::string path = testing::MakeTempDir() + "/empty.json";
  WriteText(path, "  \n");
  absl::StatusOr<Report> r = ReadReportFile(path);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(Message(r.status()), HasSubstr(path + ": file is empty"));
}

TEST(ReportFile, NotJsonNamesLineAndColumn) {
  const std::string path = testing::MakeTempDir() + "/bad.json";
  WriteText(path, "{\n  \"schema\": \"flashscope.report\",\n  oops\n}\n");
  absl::StatusOr<Report> r = ReadReportFile(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(r.status()), ::testing::MatchesRegex(".*bad\\.json:3:[0-9]+: not valid JSON: "
                                                           "syntax error.*"));
}

TEST(ReportFile, JsonThatIsNotAReport) {
  const std::string path = testing::MakeTempDir() + "/other.json";
  WriteText(path, R"({"context": {}, "benchmarks": []})");
  absl::StatusOr<Report> r = ReadReportFile(path);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(Message(r.status()), HasSubstr(path + ": not a flashscope report"));
  EXPECT_THAT(Message(r.status()), HasSubstr("Google Benchmark"));
}

TEST(ReportFile, NewerSchemaVersionNamesThePath) {
  const std::string path = testing::MakeTempDir() + "/future.json";
  nlohmann::json j = ToJson(testing::FullReport());
  j["schema_version"] = 7;
  WriteText(path, j.dump());
  absl::StatusOr<Report> r = ReadReportFile(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Message(r.status()), HasSubstr(path + ": report schema_version 7 is newer"));
}

TEST(ReportFile, BadFieldNamesPathAndJsonPath) {
  const std::string path = testing::MakeTempDir() + "/badfield.json";
  nlohmann::json j = ToJson(testing::FullReport());
  j["cases"][1]["wall_s"] = "long";
  WriteText(path, j.dump());
  absl::StatusOr<Report> r = ReadReportFile(path);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(Message(r.status()),
              HasSubstr(path + ": cases[1].wall_s: expected number, got string"));
}

TEST(ReportFile, DirectoryIsRefused) {
  const std::string dir = testing::MakeTempDir();
  absl::StatusOr<Report> r = ReadReportFile(dir);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(Message(r.status()), HasSubstr(dir + ": is a directory"));
}

}  // namespace
}  // namespace flashscope::reports
