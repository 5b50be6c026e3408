// What the gate refuses to judge (issue 23): a case without raw samples is not judged (never
// passed), a policy file is read through the strict JSON layer (duplicate keys, line and column,
// no non-finite values), and a policy that is not a regular file is refused without reading.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "analysis/gate.h"
#include "render/render_terminal.h"
#include "reports/tests/sample_reports.h"
#include "reports/tests/timed_reports.h"

namespace flashscope::reports {
namespace {

using ::testing::HasSubstr;
using testing::Timed;
using testing::With;

std::string PolicyFileError(const std::string& text) {
  const std::string path = testing::MakeTempDir() + "/policy.json";
  std::ofstream(path) << text;
  absl::StatusOr<GatePolicy> p = ReadGatePolicyFile(path);
  return p.ok() ? "(read)" : std::string(p.status().message());
}

TEST(GateNotJudged, A10xSlowdownWithoutSamplesIsNotJudgedAndFails) {
  Report base = With({Timed("attn.a", 1.0)});
  Report next = With({Timed("attn.a", 10.0)});
  next.cases[0].timing->samples_ms.clear();
  Comparison c = Compare(base, next);
  ASSERT_EQ(c.paired[0].verdict, Verdict::kNotTimed);
  EXPECT_THAT(c.paired[0].note, HasSubstr("next has no raw samples"));
  GateResult g = ApplyGate(c, GatePolicy{});
  EXPECT_FALSE(g.passed);
  ASSERT_EQ(g.failures.size(), 1u);
  EXPECT_EQ(g.failures[0].rule, "not_judged");
  EXPECT_EQ(g.ExitCode(), 1);
}

TEST(GateNotJudged, NoSamplesOnEitherSideFailsUnlessThePolicyNamesTheCase) {
  Report base = With({Timed("attn.a", 1.0), Timed("attn.b", 1.0)});
  for (CaseResult& c : base.cases) c.timing->samples_ms.clear();
  Report next = base;
  next.cases[0].timing->median_ms = 10;
  EXPECT_EQ(ApplyGate(Compare(base, next), GatePolicy{}).failures.size(), 2u);
  GatePolicy allow;
  allow.allow_not_judged = {"attn.a *"};
  GateResult g = ApplyGate(Compare(base, next), allow);
  EXPECT_FALSE(g.passed);  // attn.b is not named
  ASSERT_EQ(g.failures.size(), 1u);
  EXPECT_EQ(g.failures[0].key, "attn.b p1");
  allow.allow_not_judged.push_back("attn.b p1");
  EXPECT_TRUE(ApplyGate(Compare(base, next), allow).passed);
}

TEST(GateNotJudged, AMedianThatContradictsItsSamplesIsNotJudged) {
  Report base = With({Timed("attn.a", 1.0)});
  Report next = With({Timed("attn.a", 1.0)});
  for (double& x : next.cases[0].timing->samples_ms) x *= 10;  // the median says 1, samples 10
  Comparison c = Compare(base, next);
  EXPECT_EQ(c.paired[0].verdict, Verdict::kNotTimed);
  EXPECT_THAT(c.paired[0].note, HasSubstr("contradicts samples_ms"));
  EXPECT_FALSE(ApplyGate(c, GatePolicy{}).passed);
}

TEST(GatePolicyFile, DuplicateKeysAreRefusedAndNamed) {
  // 0.02 then 100: the last one used to win, and a 2x slowdown passed.
  const std::string e =
      PolicyFileError("{\"allowed_slowdown\": 0.02,\n \"allowed_slowdown\": 100}");
  EXPECT_THAT(e, HasSubstr("policy.json:2:2: duplicate key \"allowed_slowdown\""));
}

TEST(GatePolicyFile, SyntaxErrorsHaveLineColumnAndReason) {
  const std::string e = PolicyFileError("{\n  \"alpha\": 0.05,\n  \"min_effect\" 0.02\n}");
  EXPECT_THAT(e, HasSubstr("policy.json:3:19: not valid JSON: syntax error"));
  EXPECT_THAT(e, HasSubstr("gate policy"));
}

TEST(GatePolicyFile, NonFiniteAndAbsurdNumbersAreRefused) {
  EXPECT_THAT(PolicyFileError(R"({"metric_floors": [{"metric": "m", "min": "nan"}]})"),
              HasSubstr("metric_floors[0].min: expected a finite number, got string \"nan\""));
  EXPECT_THAT(PolicyFileError(R"({"alpha": "inf"})"), HasSubstr("alpha: expected a finite"));
  EXPECT_THAT(PolicyFileError(R"({"metric_floors": [{"metric": "m", "min": 1e300}]})"),
              HasSubstr("metric_floors[0].min: 1e+300 is out of range"));
  EXPECT_THAT(PolicyFileError(R"({"allowed_slowdown": 1e999})"), HasSubstr("number overflow"));
}

TEST(GatePolicyFile, DevicesAreRefusedWithoutReading) {
  absl::StatusOr<GatePolicy> p = ReadGatePolicyFile("/dev/zero");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()),
              HasSubstr("/dev/zero: is a character device, not a regular file"));
}

}  // namespace
}  // namespace flashscope::reports
