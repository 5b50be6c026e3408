// The `sanitizer` record of a case (flashscope run --sanitize): round trip through the report's
// JSON, through a report file on disk and through the journal, and strict reading of bad fields.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "reports/journal.h"
#include "reports/report_json.h"
#include "reports/tests/sample_reports.h"

namespace flashscope::reports {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

SanitizerRecord OobFindings() {
  SanitizerRecord r;
  r.tool = "memcheck";
  r.ran = true;
  r.note = "rerun with timing reduced to one sample";
  r.errors = 3;
  r.kinds["Invalid __global__ write"] = 2;
  r.kinds["Program hit cudaErrorLaunchFailure (error 719)"] = 1;
  r.findings.push_back({"Invalid __global__ write",
                        "flashscope::kernels::OobWriteKernel(unsigned char *)",
                        "Invalid __global__ write of size 1 bytes\n"
                        "at 0x90 in faulty_kernels.cu:27:OobWriteKernel(unsigned char *)\n"
                        "by thread (0,0,0) in block (0,0,0)"});
  r.findings.push_back({"Invalid __global__ write", "", "second, without a kernel name"});
  r.case_status = "error";
  r.case_reason = "kernel: cudaErrorLaunchFailure: unspecified launch failure";
  r.wall_s = 4.25;
  return r;
}

void ExpectSame(const SanitizerRecord& a, const SanitizerRecord& b) {
  EXPECT_EQ(a.tool, b.tool);
  EXPECT_EQ(a.ran, b.ran);
  EXPECT_EQ(a.note, b.note);
  EXPECT_EQ(a.errors, b.errors);
  EXPECT_EQ(a.kinds, b.kinds);
  ASSERT_EQ(a.findings.size(), b.findings.size());
  for (size_t i = 0; i < a.findings.size(); ++i) {
    EXPECT_EQ(a.findings[i].kind, b.findings[i].kind);
    EXPECT_EQ(a.findings[i].kernel, b.findings[i].kernel);
    EXPECT_EQ(a.findings[i].message, b.findings[i].message);
  }
  EXPECT_EQ(a.case_status, b.case_status);
  EXPECT_EQ(a.case_reason, b.case_reason);
  EXPECT_DOUBLE_EQ(a.wall_s, b.wall_s);
}

TEST(SanitizerJson, RoundTripsThroughTheReportJson) {
  Report report = testing::FullReport();
  report.cases[0].sanitizer = OobFindings();
  SanitizerRecord not_run;
  not_run.tool = "racecheck";
  not_run.note = "compute-sanitizer not found";
  report.cases[1].sanitizer = not_run;
  auto back = ReportFromJson(Json::parse(ReportToText(report)));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_TRUE(back->cases[0].sanitizer.has_value());
  ExpectSame(*report.cases[0].sanitizer, *back->cases[0].sanitizer);
  ASSERT_TRUE(back->cases[1].sanitizer.has_value());
  ExpectSame(not_run, *back->cases[1].sanitizer);
  // A case that was not sanitized has no record at all, and none is written.
  EXPECT_FALSE(back->cases[2].sanitizer.has_value());
  EXPECT_FALSE(ToJson(report)["cases"][2].contains("sanitizer"));
  const Json j = ToJson(report)["cases"][0]["sanitizer"];
  EXPECT_EQ(j["errors"], 3);
  EXPECT_EQ(j["kinds"][0]["kind"], "Invalid __global__ write");
  EXPECT_EQ(j["kinds"][0]["count"], 2);
}

TEST(SanitizerJson, RoundTripsThroughAReportFileAndAJournal) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("fs_sanitizer_json_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  Report report = testing::FullReport();
  report.cases[0].sanitizer = OobFindings();
  const std::string path = (dir / "r.json").string();
  ASSERT_TRUE(WriteReportFileAtomic(report, path).ok());
  auto back = ReadReportFile(path);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_TRUE(back->cases[0].sanitizer.has_value());
  ExpectSame(*report.cases[0].sanitizer, *back->cases[0].sanitizer);

  // The supervisor records the findings as a later "case" line for the same index.
  const std::string journal = (dir / "r.json.journal.jsonl").string();
  {
    auto w = JournalWriter::Open(journal, /*append=*/false);
    ASSERT_TRUE(w.ok()) << w.status();
    ASSERT_TRUE(w->WriteHeader(report.suite, "flashscope run x", "2026-01-01T00:00:00Z").ok());
    CaseResult plain = report.cases[0];
    plain.sanitizer.reset();
    ASSERT_TRUE(w->CaseFinished(0, plain).ok());
    ASSERT_TRUE(w->CaseFinished(0, report.cases[0]).ok());
  }
  auto contents = ReadJournal(journal);
  ASSERT_TRUE(contents.ok()) << contents.status();
  ASSERT_EQ(contents->finished.count(0), 1u);
  ASSERT_TRUE(contents->finished.at(0).sanitizer.has_value());
  ExpectSame(*report.cases[0].sanitizer, *contents->finished.at(0).sanitizer);
  std::filesystem::remove_all(dir);
}

TEST(SanitizerJson, BadFieldsAreNamedByTheirPath) {
  Json j = ToJson([] {
    Report r = testing::FullReport();
    r.cases[0].sanitizer = OobFindings();
    return r;
  }());
  Json bad = j;
  bad["cases"][0]["sanitizer"]["errors"] = "many";
  auto r = ReportFromJson(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("cases[0].sanitizer.errors"));
  bad = j;
  bad["cases"][0]["sanitizer"].erase("tool");
  r = ReportFromJson(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("cases[0].sanitizer"));
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("tool"));
  bad = j;
  bad["cases"][0]["sanitizer"]["kinds"][0].erase("count");
  r = ReportFromJson(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("cases[0].sanitizer.kinds[0]"));
  bad = j;
  bad["cases"][0]["sanitizer"]["findings"] = "none";
  r = ReportFromJson(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("cases[0].sanitizer.findings"));
}

}  // namespace
}  // namespace flashscope::reports
