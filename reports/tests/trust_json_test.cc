// The `trust` record of a case: round trip through the report's JSON and through the journal,
// strict reading of bad fields, and older reports without it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/trust_checks.h"
#include "reports/report_json.h"
#include "reports/tests/sample_reports.h"

namespace flashscope::reports {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

TrustRecord SideStreamCheat() {
  TrustRecord t;
  TrustCheckRecord streams;
  streams.check = "streams";
  streams.status = "failed";
  streams.rule = "all GPU work of a launch runs on its stream";
  streams.values = {{"launch_stream", 13, "id"}, {"kernels", 1, "count"}};
  streams.findings = {"kernel SpinKernel ran on stream 16, not the launch's stream 13"};
  t.checks.push_back(streams);
  t.checks.push_back(CheckOff("work", "no work-counter set for sm_86"));
  t.input_sets = "2 input sets (seeds 1, 2); timed launch i reads set i mod 2";
  TimedLaunchRecord failed;
  failed.launch = 3;
  failed.bad = 6144;
  failed.max_abs = 0.25;
  failed.kind = "profiled";
  failed.rows = 64;
  failed.bad_rows = 48;
  failed.lse_bad = 2;
  failed.input_seed = 0xFEDCBA9876543210ull;  // above 2^63: seeds use every bit
  t.failed_launches.push_back(failed);
  t.launch_stream = 13;
  ActivityRecord a;
  a.kind = "kernel";
  a.name = "SpinKernel";
  a.stream = 16;
  a.start_us = 40.5;
  a.end_us = 241.25;
  t.activity.push_back(a);
  t.wall_s = 0.125;
  return t;
}

void ExpectSame(const TrustRecord& a, const TrustRecord& b) {
  ASSERT_EQ(a.checks.size(), b.checks.size());
  for (size_t i = 0; i < a.checks.size(); ++i) {
    EXPECT_EQ(a.checks[i].check, b.checks[i].check);
    EXPECT_EQ(a.checks[i].status, b.checks[i].status);
    EXPECT_EQ(a.checks[i].rule, b.checks[i].rule);
    EXPECT_EQ(a.checks[i].findings, b.checks[i].findings);
    ASSERT_EQ(a.checks[i].values.size(), b.checks[i].values.size());
    for (size_t k = 0; k < a.checks[i].values.size(); ++k) {
      EXPECT_EQ(a.checks[i].values[k].name, b.checks[i].values[k].name);
      EXPECT_DOUBLE_EQ(a.checks[i].values[k].value, b.checks[i].values[k].value);
      EXPECT_EQ(a.checks[i].values[k].unit, b.checks[i].values[k].unit);
    }
  }
  EXPECT_EQ(a.input_sets, b.input_sets);
  ASSERT_EQ(a.failed_launches.size(), b.failed_launches.size());
  EXPECT_EQ(a.failed_launches[0].launch, b.failed_launches[0].launch);
  EXPECT_EQ(a.failed_launches[0].bad, b.failed_launches[0].bad);
  EXPECT_DOUBLE_EQ(a.failed_launches[0].max_abs, b.failed_launches[0].max_abs);
  EXPECT_EQ(a.failed_launches[0].kind, b.failed_launches[0].kind);
  EXPECT_EQ(a.failed_launches[0].rows, b.failed_launches[0].rows);
  EXPECT_EQ(a.failed_launches[0].bad_rows, b.failed_launches[0].bad_rows);
  EXPECT_EQ(a.failed_launches[0].lse_bad, b.failed_launches[0].lse_bad);
  EXPECT_EQ(a.failed_launches[0].input_seed, b.failed_launches[0].input_seed);
  EXPECT_EQ(a.launch_stream, b.launch_stream);
  ASSERT_EQ(a.activity.size(), b.activity.size());
  EXPECT_EQ(a.activity[0].name, b.activity[0].name);
  EXPECT_EQ(a.activity[0].stream, b.activity[0].stream);
  EXPECT_DOUBLE_EQ(a.activity[0].end_us, b.activity[0].end_us);
  EXPECT_DOUBLE_EQ(a.wall_s, b.wall_s);
}

TEST(TrustJson, RoundTripsThroughTheReportJson) {
  Report report = testing::FullReport();
  report.environment.memory_bus_bits = 6016;
  report.cases[0].trust = SideStreamCheat();
  auto back = ReportFromJson(Json::parse(ReportToText(report)));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->environment.memory_bus_bits, 6016);
  ASSERT_TRUE(back->cases[0].trust.has_value());
  ExpectSame(*report.cases[0].trust, *back->cases[0].trust);
  // A case without trust checks (an older report) has no record, and none is written.
  EXPECT_FALSE(back->cases[1].trust.has_value());
  EXPECT_FALSE(ToJson(report)["cases"][1].contains("trust"));
}

TEST(TrustJson, RoundTripsThroughACaseLine) {
  CaseResult c = testing::FullReport().cases[0];
  c.trust = SideStreamCheat();
  auto back = CaseFromJson(CaseToJson(c));
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSame(*c.trust, *back->trust);
}

TEST(TrustJson, BadFieldsAreNamedByTheirPath) {
  Report report = testing::FullReport();
  report.cases[0].trust = SideStreamCheat();
  Json bad = ToJson(report);
  bad["cases"][0]["trust"]["checks"][0]["status"] = "maybe";
  auto r = ReportFromJson(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("cases[0].trust.checks[0].status"));
  EXPECT_THAT(r.status().message(), HasSubstr("unknown trust check status \"maybe\""));
  bad = ToJson(report);
  bad["cases"][0]["trust"]["checks"][0]["values"][1]["value"] = "one";
  r = ReportFromJson(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("cases[0].trust.checks[0].values[1].value"));
  bad = ToJson(report);
  bad["cases"][0]["trust"].erase("checks");
  r = ReportFromJson(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("cases[0].trust: missing required key"));
  EXPECT_THAT(r.status().message(), HasSubstr("checks"));
}

}  // namespace
}  // namespace flashscope::reports
