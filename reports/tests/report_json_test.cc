// JSON form of the report: full round trip, strict reading with JSON paths, schema versions.
#include "reports/report_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "reports/tests/sample_reports.h"

namespace flashscope::reports {
namespace {

using testing::ExpectSameReport;
using testing::FullReport;
using ::testing::HasSubstr;
using Json = nlohmann::json;

TEST(ReportJson, FullReportRoundTripsThroughCompactText) {
  Report original = FullReport();
  absl::StatusOr<Report> back = ReportFromJson(Json::parse(ToJson(original).dump()));
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSameReport(original, *back);
}

TEST(ReportJson, FullReportRoundTripsThroughReadableText) {
  Report original = FullReport();
  std::string text = ReportToText(original);
  absl::StatusOr<Report> back = ReportFromJson(Json::parse(text));
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSameReport(original, *back);
  // Arrays of numbers stay on one line; objects are indented.
  EXPECT_THAT(text, HasSubstr("\"samples_ms\": [0.0123, 0.0119, 0.30000000000000004, 1e-09]"));
  EXPECT_THAT(text, HasSubstr("\n  \"schema\": \"flashscope.report\""));
}

TEST(ReportJson, SelfDescribingTopLevelAndNestedKeys) {
  Json j = ToJson(FullReport());
  EXPECT_EQ(j["schema"], "flashscope.report");
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["environment"]["synthetic"], true);
  const Json& c = j["cases"][0];
  EXPECT_EQ(c["timing"]["mode"], "hot");
  EXPECT_EQ(c["timing"]["median_ms"], 0.0123);
  EXPECT_EQ(c["status"], "passed");
  EXPECT_EQ(c["seed"].get<uint64_t>(), 18446744073709551557ULL);
  EXPECT_EQ(c["profile"]["kernel_durations_ms"][0]["kernel"], "attn_a02_kernel");
  // Absent records are omitted, not written as zeros.
  EXPECT_FALSE(j["cases"][2].contains("timing"));
}

TEST(ReportJson, NonFiniteNumbersAreStringsAndFloatsAreShortest) {
  Json j = ToJson(FullReport());
  const Json& v = j["cases"][0]["verification"];
  EXPECT_EQ(v["ratio_to_baseline"], "inf");
  EXPECT_EQ(v["heatmaps"][0]["mean"][5], "nan");
  EXPECT_EQ(v["heatmaps"][0]["max"][0].dump(), "0.1");
  EXPECT_EQ(v["heatmaps"][0]["max"][2].dump(), "1e-07");
  Json k = j;
  k["cases"][0]["timing"]["median_ms"] = "-inf";
  absl::StatusOr<Report> r = ReportFromJson(k);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->cases[0].timing->median_ms, -std::numeric_limits<double>::infinity());
}

struct BadField {
  std::function<void(Json&)> mutate;
  std::string expected;
};

TEST(ReportJson, StrictReadingNamesTheJsonPathOfABadField) {
  const std::vector<BadField> cases = {
      {[](Json& j) {
         j["cases"][3]["timing"] = {{"median_ms", "fast"}};
       },
       "cases[3].timing.median_ms: expected number, got string \"fast\""},
      {[](Json& j) { j["cases"][0]["status"] = "great"; },
       "cases[0].status: unknown status \"great\""},
      {[](Json& j) { j["cases"][1].erase("kernel_id"); },
       "cases[1]: missing required key \"kernel_id\""},
      {[](Json& j) { j["environment"]["sm_count"] = 1.5; },
       "environment.sm_count: expected integer, got number 1.5"},
      {[](Json& j) { j["cases"] = Json::object(); }, "cases: expected array, got object"},
      {[](Json& j) { j["cases"][0]["verification"]["heatmaps"][0]["max"].erase(0); },
       "cases[0].verification.heatmaps[0].max: expected 6 values (rows 2 x cols 3), got 5"},
      {[](Json& j) { j["environment"]["synthetic"] = "yes"; },
       "environment.synthetic: expected boolean, got string"},
      {[](Json& j) { j["cases"][0]["params"]["B"] = 1; },
       "cases[0].params.B: expected string, got integer"},
      {[](Json& j) { j["cases"][0]["seed"] = -1; },
       "cases[0].seed: expected unsigned integer, got integer -1"},
      {[](Json& j) { j["suite"].erase("name"); }, "suite: missing required key \"name\""},
      {[](Json& j) { j.erase("cases"); }, "(top level): missing required key \"cases\""},
      {[](Json& j) { j["cases"][0]["timing"]["mode"] = "warm"; },
       "cases[0].timing.mode: expected \"cold\" or \"hot\", got \"warm\""},
      {[](Json& j) { j["cases"][0]["resources"][0]["registers"] = 10000000000LL; },
       "cases[0].resources[0].registers: integer 10000000000 out of range"},
      {[](Json& j) { j["cases"][0]["timing"]["samples_ms"][2] = true; },
       "cases[0].timing.samples_ms[2]: expected number, got boolean"},
      {[](Json& j) { j["cases"][0]["profile"]["metrics"][1].erase("value"); },
       "cases[0].profile.metrics[1]: missing required key \"value\""},
      {[](Json& j) { j["cases"][4] = "oops"; }, "cases[4]: expected object, got string"},
      {[](Json& j) { j["environment"]["peaks"]["copy_gbps"] = Json::array(); },
       "environment.peaks.copy_gbps: expected number, got array"},
  };
  for (const BadField& bad : cases) {
    Json j = ToJson(FullReport());
    bad.mutate(j);
    absl::StatusOr<Report> r = ReportFromJson(j);
    ASSERT_FALSE(r.ok()) << "accepted, expected: " << bad.expected;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(r.status().message()), HasSubstr(bad.expected));
  }
}

TEST(ReportJson, UnknownKeysAreIgnoredAndNullRecordsAreAbsent) {
  Json j = ToJson(FullReport());
  j["written_by_a_newer_flashscope"] = {1, 2, 3};
  j["cases"][0]["timing"]["p99_ms"] = 0.5;
  j["environment"]["pcie_gen"] = 5;
  j["cases"][0]["profile"] = nullptr;
  absl::StatusOr<Report> r = ReportFromJson(j);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->cases[0].profile.has_value());
  EXPECT_EQ(r->cases[0].timing->median_ms, 0.0123);
}

TEST(ReportJson, MissingOptionalKeysTakeTheirDefaults) {
  Json j = {
      {"schema", "flashscope.report"},
      {"schema_version", 1},
      {"environment", Json::object()},
      {"suite", {{"name", "tiny"}}},
      {"cases",
       {{{"kernel_id", "gemm.g01_naive"}, {"problem_key", "gemm{M=1}"}, {"status", "skipped"}}}}};
  absl::StatusOr<Report> r = ReportFromJson(j);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->complete);
  EXPECT_FALSE(r->environment.synthetic);
  ASSERT_EQ(r->cases.size(), 1u);
  EXPECT_EQ(r->cases[0].status, CaseStatus::kSkipped);
  EXPECT_FALSE(r->cases[0].timing.has_value());
}

TEST(ReportJson, SchemaVersionNewerOrOlderIsRefused) {
  Json j = ToJson(FullReport());
  j["schema_version"] = 2;
  absl::StatusOr<Report> r = ReportFromJson(j);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("schema_version 2 is newer than this flashscope reads (1); update"));
  j["schema_version"] = 0;
  r = ReportFromJson(j);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("schema_version 0 is older"));
  // Issue 14, item 8: a version past int64 was read as -1 ("older").
  j["schema_version"] = 18446744073709551615ull;
  r = ReportFromJson(j);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("schema_version 18446744073709551615 is newer"));
  j["schema_version"] = "1";
  r = ReportFromJson(j);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("schema_version: expected integer, got string"));
  j.erase("schema_version");
  r = ReportFromJson(j);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("schema_version: missing"));
}

TEST(ReportJson, OtherJsonIsNotAFlashscopeReport) {
  absl::StatusOr<Report> r = ReportFromJson(Json{{"hello", 1}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("not a flashscope report (expected \"schema\": \"flashscope.report\"; "
                        "no \"schema\" key; top-level keys: hello)"));
  r = ReportFromJson(Json{{"context", Json::object()}, {"benchmarks", Json::array()}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("Google Benchmark JSON"));
  r = ReportFromJson(Json{{"schema", "flashscope.journal"}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("its \"schema\" is \"flashscope.journal\""));
  r = ReportFromJson(Json::array());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("the top level is array"));
}

TEST(ReportJson, PartsRoundTripAndNameRelativePaths) {
  Report full = FullReport();
  absl::StatusOr<CaseResult> c = CaseFromJson(CaseToJson(full.cases[0]));
  ASSERT_TRUE(c.ok()) << c.status();
  testing::ExpectSameCase(full.cases[0], *c);
  absl::StatusOr<Environment> e = EnvironmentFromJson(EnvironmentToJson(full.environment));
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->gpu_name, full.environment.gpu_name);
  EXPECT_EQ(e->peaks.copy_gbps, full.environment.peaks.copy_gbps);
  absl::StatusOr<SuiteRecord> s = SuiteFromJson(SuiteToJson(full.suite));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->timing.max_samples, 200);
  EXPECT_EQ(s->timing.cold, false);

  Json bad = CaseToJson(full.cases[0]);
  bad["timing"]["median_ms"] = "slow";
  c = CaseFromJson(bad);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(std::string(c.status().message()),
              ::testing::StartsWith("timing.median_ms: expected number"));
}

TEST(ReportJson, CommittedSyntheticExampleReads) {
  absl::StatusOr<Report> r = ReadReportFile(testing::TestdataPath("synthetic_example_report.json"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->environment.synthetic);
  EXPECT_TRUE(r->complete);
  EXPECT_EQ(r->suite.name, "example");
  ASSERT_EQ(r->cases.size(), 4u);
  EXPECT_EQ(r->cases[0].status, CaseStatus::kPassed);
  EXPECT_EQ(r->cases[0].timing->samples_ms.size(), 5u);
  EXPECT_EQ(r->cases[1].status, CaseStatus::kFailed);
  EXPECT_EQ(r->cases[2].status, CaseStatus::kSkipped);
  EXPECT_EQ(r->cases[3].status, CaseStatus::kError);
  // Writing what was read and reading it again changes nothing.
  absl::StatusOr<Report> again = ReportFromJson(ToJson(*r));
  ASSERT_TRUE(again.ok()) << again.status();
  testing::ExpectSameReport(*r, *again);
}

}  // namespace
}  // namespace flashscope::reports
