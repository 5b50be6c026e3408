// The compare view's model: the verdicts and gate failures it shows are the CLI's (checked against
// the committed `flashscope gate --json` goldens of render/tests/golden/), and it filters and
// sorts pairs by verdict and by change.
#include "viewer/compare_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <memory>

#include "nlohmann/json.hpp"
#include "reports/report_json.h"
#include "viewer/tests/synthetic_report.h"

namespace flashscope::viewer {
namespace {

const std::string kRoot = FLASHSCOPE_TEST_SOURCE_DIR;

std::shared_ptr<const reports::Report> Load(const std::string& path) {
  auto r = reports::ReadReportFile(kRoot + "/" + path);
  EXPECT_TRUE(r.ok()) << r.status();
  return std::make_shared<const reports::Report>(r.ok() ? *std::move(r) : reports::Report{});
}

class SameVerdictsAsTheCli : public ::testing::TestWithParam<std::string> {};

TEST_P(SameVerdictsAsTheCli, PairByPair) {
  std::ifstream in(kRoot + "/render/tests/golden/" + GetParam() + ".gate-json");
  ASSERT_TRUE(in) << GetParam();
  const nlohmann::json cli = nlohmann::json::parse(in);
  CompareCache cache;
  const ComparedReports& cr = cache.Get(Load(cli["base"]), 1, Load(cli["next"]), 1, {});
  ASSERT_EQ(cr.summary.pairs.size(), cli["cases"].size());
  for (size_t i = 0; i < cr.summary.pairs.size(); ++i) {
    const reports::PairSummary& p = cr.summary.pairs[i];
    const nlohmann::json& c = cli["cases"][i];
    EXPECT_EQ(p.key, c["key"]);
    EXPECT_EQ(reports::VerdictName(p.verdict), c["verdict"]) << p.key;
    EXPECT_EQ(p.verdict_reason, c["verdict_reason"]) << p.key;
    EXPECT_EQ(p.judged_by, c["judged_by"]) << p.key;
    if (c["p_value"].is_number()) EXPECT_DOUBLE_EQ(p.p_value.value, c["p_value"].get<double>());
  }
  EXPECT_EQ(cr.gate.passed, cli["passed"].get<bool>());
  size_t failures = 0;
  for (const reports::PairSummary* p : cr.summary.All()) failures += p->gate_failures.size();
  EXPECT_EQ(failures, cli["failures"].size());
}

INSTANTIATE_TEST_SUITE_P(Goldens, SameVerdictsAsTheCli,
                         ::testing::Values("gate_faults", "gate_gemm_ladder", "gate_torch_sdpa"));

TEST(CompareModel, FiltersByVerdictChangeAndGate) {
  CompareCache cache;
  const ComparedReports& cr = cache.Get(Load("results/runs/20261122-014618-faults.json"), 1,
                                        Load("results/runs/20261122-023615-faults.json"), 1, {});
  const reports::ComparisonSummary& s = cr.summary;
  CompareFilter all;
  EXPECT_EQ(FilterAndSortPairs(s, all, {}).size(), s.pairs.size());
  CompareFilter slower;
  for (bool& v : slower.show_verdict) v = false;
  slower.show_verdict[int(reports::Verdict::kSlower)] = true;
  const auto only_slower = FilterAndSortPairs(s, slower, {});
  EXPECT_EQ(int(only_slower.size()), s.counts.slower);
  for (int i : only_slower) EXPECT_EQ(s.pairs[size_t(i)].verdict, reports::Verdict::kSlower);
  CompareFilter failing;
  failing.gate_failures_only = true;
  for (int i : FilterAndSortPairs(s, failing, {})) {
    EXPECT_EQ(s.pairs[size_t(i)].gate, reports::GateMark::kFail);
  }
  CompareFilter changes;
  changes.changes_only = true;
  for (int i : FilterAndSortPairs(s, changes, {})) {
    const reports::PairSummary& p = s.pairs[size_t(i)];
    EXPECT_TRUE(p.status_changed || p.tone != reports::Tone::kNeutral) << p.key;
  }
  CompareFilter words;
  words.text = "nan_output S=256";
  EXPECT_EQ(FilterAndSortPairs(s, words, {}).size(), 1u);
}

TEST(CompareModel, SortsByVerdictSeverityAndByChange) {
  CompareCache cache;
  const ComparedReports& cr =
      cache.Get(Load("results/runs/20261123-001931-gemm_ladder.json"), 1,
                Load("results/runs/20261124-082208-gemm_ladder.json"), 1, {});
  const reports::ComparisonSummary& s = cr.summary;
  const auto by_verdict = FilterAndSortPairs(s, {}, {{CompareColumn::kVerdict, false}});
  ASSERT_FALSE(by_verdict.empty());
  EXPECT_EQ(s.pairs[size_t(by_verdict.front())].tone, reports::Tone::kFailure);  // g01's slowdown
  for (size_t i = 1; i < by_verdict.size(); ++i) {
    EXPECT_LE(int(s.pairs[size_t(by_verdict[i - 1])].tone),
              int(s.pairs[size_t(by_verdict[i])].tone));
  }
  const auto by_delta = FilterAndSortPairs(s, {}, {{CompareColumn::kDelta, true}});
  double prev = INFINITY;
  bool missing = false;
  for (int i : by_delta) {
    const double d = s.pairs[size_t(i)].delta_pct.value;
    if (std::isnan(d)) {
      missing = true;
      continue;
    }
    EXPECT_FALSE(missing) << "a change after a pair without one";
    EXPECT_LE(d, prev);
    prev = d;
  }
}

TEST(CompareModel, ColumnNamesFollowTheColumns) {
  EXPECT_STREQ(CompareColumnName(CompareColumn::kVerdict), "Verdict");
  EXPECT_STREQ(CompareColumnName(CompareColumn::kGate), "Gate");
  EXPECT_STREQ(CompareColumnName(CompareColumn::kRule), "Rule");
  EXPECT_STREQ(CompareColumnName(CompareColumn::kPValue), "p");
}

TEST(CompareModel, RebuiltOnlyWhenAReportIsReloaded) {
  auto base = std::make_shared<const reports::Report>(testing::MakeSyntheticReport(30, 1));
  auto next = std::make_shared<const reports::Report>(testing::MakeSyntheticReport(30, 2, 1.5));
  CompareCache cache;
  cache.Get(base, 1, next, 1, {});
  cache.Get(base, 1, next, 1, {});
  EXPECT_EQ(cache.rebuilds(), 1);
  const ComparedReports& again = cache.Get(base, 1, next, 2, {});
  EXPECT_EQ(cache.rebuilds(), 2);
  EXPECT_GT(again.summary.counts.faster, 10);  // 1.5x faster everywhere
}

}  // namespace
}  // namespace flashscope::viewer
