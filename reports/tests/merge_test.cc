#include "reports/merge.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "reports/tests/sample_reports.h"

namespace flashscope::reports {
namespace {

using ::testing::HasSubstr;
using testing::SimpleCase;
using testing::SyntheticEnvironment;

Report Shard(std::vector<std::string> kernels, const std::string& problem, const char* started,
             const char* finished) {
  Report r;
  r.environment = SyntheticEnvironment();
  r.environment.started_at = started;
  r.environment.finished_at = finished;
  r.suite.name = "smoke";
  r.suite.sha256 = "5ab1e";  // the suite file's hash, as a run records it
  r.complete = true;
  for (const auto& k : kernels) r.cases.push_back(SimpleCase(k, problem, CaseStatus::kPassed, 1.0));
  return r;
}

TEST(Merge, CombinesCasesInInputOrderAndSpansTheRun) {
  std::vector<MergeInput> in = {
      {"a.json",
       Shard({"attn.a01", "attn.a02"}, "p1", "2025-01-02T03:00:00Z", "2025-01-02T03:10:00Z")},
      {"b.json", Shard({"attn.a01"}, "p2", "2025-01-02T02:59:00Z", "2025-01-02T03:05:00Z")}};
  auto m = MergeReports(in, {false, "flashscope merge a.json b.json"});
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->report.cases.size(), 3u);
  EXPECT_EQ(m->report.cases[0].Key(), "attn.a01 p1");
  EXPECT_EQ(m->report.cases[1].Key(), "attn.a02 p1");
  EXPECT_EQ(m->report.cases[2].Key(), "attn.a01 p2");
  EXPECT_EQ(m->report.environment.started_at, "2025-01-02T02:59:00Z");
  EXPECT_EQ(m->report.environment.finished_at, "2025-01-02T03:10:00Z");
  EXPECT_EQ(m->report.environment.command_line, "flashscope merge a.json b.json");
  EXPECT_EQ(m->report.environment.gpu_name, in[0].report.environment.gpu_name);
  EXPECT_TRUE(m->report.complete);
  EXPECT_TRUE(m->differences.empty());
}

TEST(Merge, AnIncompleteInputMakesAnIncompleteMerge) {
  std::vector<MergeInput> in = {{"a.json", Shard({"k1"}, "p1", "", "")},
                                {"b.json", Shard({"k1"}, "p2", "", "")}};
  in[1].report.complete = false;
  auto m = MergeReports(in, {});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_FALSE(m->report.complete);
}

TEST(Merge, DuplicatesAreAnErrorNamingKeyAndFiles) {
  std::vector<MergeInput> in = {{"a.json", Shard({"k1", "k2"}, "p1", "", "")},
                                {"b.json", Shard({"k2"}, "p1", "", "")}};
  auto m = MergeReports(in, {});
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("'k2 p1' in a.json and b.json"));
  // Forcing does not make a duplicate acceptable: which of the two results would be the case's?
  auto forced = MergeReports(in, {true, ""});
  EXPECT_FALSE(forced.ok());
}

TEST(Merge, RefusesDifferentGpuOrDriverUnlessForced) {
  std::vector<MergeInput> in = {{"a.json", Shard({"k1"}, "p1", "", "")},
                                {"b.json", Shard({"k1"}, "p2", "", "")}};
  in[1].report.environment.gpu_name = "NVIDIA H100 80GB HBM3";
  in[1].report.environment.driver_version = "575.1";
  auto refused = MergeReports(in, {});
  ASSERT_FALSE(refused.ok());
  const std::string msg(refused.status().message());
  EXPECT_THAT(msg, HasSubstr("environment.gpu_name"));
  EXPECT_THAT(msg, HasSubstr("environment.driver_version"));
  EXPECT_THAT(msg, HasSubstr("b.json"));
  EXPECT_THAT(msg, HasSubstr("--force"));

  auto forced = MergeReports(in, {true, ""});
  ASSERT_TRUE(forced.ok()) << forced.status();
  EXPECT_EQ(forced->differences.size(), 2u);
  // The mix stays visible in the merged environment, so the merged report cannot pass for a run
  // on either GPU.
  EXPECT_THAT(forced->report.environment.gpu_name, HasSubstr(" + NVIDIA H100 80GB HBM3"));
  EXPECT_THAT(forced->report.environment.driver_version, HasSubstr(" + 575.1"));
  EXPECT_EQ(forced->report.cases.size(), 2u);
}

TEST(Merge, RefusesDifferentSuitesAndTimingPolicies) {
  std::vector<MergeInput> in = {{"a.json", Shard({"k1"}, "p1", "", "")},
                                {"b.json", Shard({"k1"}, "p2", "", "")}};
  in[1].report.suite.name = "ladder";
  auto m = MergeReports(in, {});
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("suite.name"));
  in[1].report.suite.name = "smoke";
  in[1].report.suite.timing.cold = !in[0].report.suite.timing.cold;
  m = MergeReports(in, {});
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("suite.timing_policy"));
}

// Shard k of n of one plan: the report `run --shard k/n` writes.
std::vector<MergeInput> Shards(int n, std::vector<int> ks) {
  std::vector<MergeInput> in;
  for (int k : ks) {
    Report r = Shard({"k1"}, "p" + std::to_string(k), "", "");
    r.suite.shard = std::to_string(k) + "/" + std::to_string(n);
    in.push_back({"s" + std::to_string(k) + ".json", std::move(r)});
  }
  return in;
}

TEST(Merge, EveryShardMakesACompleteWholePlan) {
  auto m = MergeReports(Shards(3, {2, 1, 3}), {});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(m->report.complete);
  EXPECT_EQ(m->report.suite.shard, "");  // the whole plan
  EXPECT_EQ(m->report.suite.sha256, "5ab1e");
  EXPECT_TRUE(m->notes.empty());
}

TEST(Merge, AnIncompleteSetIsRefusedNamingTheMissingShards) {
  auto m = MergeReports(Shards(4, {1, 3}), {});
  ASSERT_FALSE(m.ok());
  const std::string msg(m.status().message());
  EXPECT_THAT(msg, HasSubstr("shards 2/4, 4/4 are missing"));
  EXPECT_THAT(msg, HasSubstr("--force"));
}

TEST(Merge, AForcedIncompleteSetIsCompleteFalseAndTheRestCompletesIt) {
  auto part = MergeReports(Shards(4, {1, 3}), {true, ""});
  ASSERT_TRUE(part.ok()) << part.status();
  EXPECT_FALSE(part->report.complete);
  EXPECT_EQ(part->report.suite.shard, "1,3/4");
  ASSERT_EQ(part->notes.size(), 1u);
  EXPECT_THAT(part->notes[0], HasSubstr("2/4, 4/4"));
  // The partial merge and the missing shards: the whole plan.
  std::vector<MergeInput> rest = Shards(4, {2, 4});
  part->report.complete = true;  // as if its inputs were complete: only the shards count here
  rest.push_back({"part.json", part->report});
  auto whole = MergeReports(rest, {});
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_TRUE(whole->report.complete);
  EXPECT_EQ(whole->report.cases.size(), 4u);
}

TEST(Merge, ShardsOfAnotherSuiteFileOrSplitOrTwiceAreRefused) {
  auto in = Shards(2, {1, 2});
  in[1].report.suite.sha256 = "0ther";
  auto m = MergeReports(in, {});
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(std::string(m.status().message()),
              HasSubstr("suite.sha256: \"5ab1e\" (s1.json) vs \"0ther\" (s2.json)"));
  EXPECT_TRUE(MergeReports(in, {true, ""}).ok());  // forced: the mix is kept in suite.sha256

  auto splits = Shards(2, {1});
  splits.push_back(Shards(3, {2, 3})[0]);
  m = MergeReports(splits, {true, ""});
  ASSERT_FALSE(m.ok());  // not even forced: 1/2 with 2/3 is no plan's set of cases
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("different splits"));

  auto twice = Shards(2, {1, 2});
  twice[1].report.suite.shard = "1/2";
  m = MergeReports(twice, {true, ""});
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(std::string(m.status().message()),
              HasSubstr("shard 1/2 is in both s1.json and s2.json"));
}

TEST(Merge, PeaksMoreThanFivePercentApartAreRefusedUnlessForced) {
  auto in = Shards(2, {1, 2});
  in[1].report.environment.peaks.matmul_bf16_tflops =
      in[0].report.environment.peaks.matmul_bf16_tflops * 1.03;  // noise between two runs
  EXPECT_TRUE(MergeReports(in, {}).ok());
  in[1].report.environment.peaks.matmul_bf16_tflops =
      in[0].report.environment.peaks.matmul_bf16_tflops * 0.8;
  auto m = MergeReports(in, {});
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("environment.peaks.matmul_bf16_tflops"));
  EXPECT_TRUE(MergeReports(in, {true, ""}).ok());
}

TEST(Merge, ReportsThatDoNotSayTheirShardAreMergedIncompleteWithANote) {
  auto in = Shards(2, {1, 2});
  for (auto& x : in) x.report.suite.sha256.clear(), x.report.suite.shard.clear();
  auto m = MergeReports(in, {});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_FALSE(m->report.complete);
  ASSERT_EQ(m->notes.size(), 1u);
  EXPECT_THAT(m->notes[0], HasSubstr("s1.json, s2.json did not record which shard"));
}

TEST(Merge, NeedsTwoReports) {
  auto m = MergeReports({{"a.json", Shard({"k1"}, "p1", "", "")}}, {});
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("at least two"));
}

}  // namespace
}  // namespace flashscope::reports
