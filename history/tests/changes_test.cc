// Change points of a stored history with their explanations, on both backends.
#include "history/changes.h"

#include <gtest/gtest.h>

#include <random>

#include "history/tests/synthetic_history.h"
#include "history/tests/test_databases.h"

namespace flashscope::history {
namespace {

using testing::PlantedSeries;

void AddHistory(HistoryStore& store, const std::vector<PlantedSeries>& planted, int revisions) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < revisions; ++i) {
    auto r = store.Add(testing::SyntheticHistoryReport(i, planted, 0.005, rng), {});
    ASSERT_TRUE(r.ok()) << r.status();
  }
}

class ChangesTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ChangesTest, StepsNamedByTheRevisionsAroundThemAndExplained) {
  FS_HISTORY_TEST_DB(db, GetParam());
  auto store = HistoryStore::Open(db);
  ASSERT_TRUE(store.ok()) << store.status();
  AddHistory(*store, {{"k.slow", {{10, 0.05}}}, {"k.fast", {{15, -0.10}}}, {"k.flat", {}}}, 30);
  auto series = store->LoadSeries({});
  ASSERT_TRUE(series.ok());
  auto all = FindHistoryChanges(*store, *series, reports::GatePolicy{});
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 3u);
  for (const SeriesChanges& s : *all) {
    if (s.series.key.kernel_id == "k.flat") {
      EXPECT_TRUE(s.changes.empty());
      continue;
    }
    ASSERT_EQ(s.changes.size(), 1u) << s.series.key.Name();
    const HistoryChange& h = s.changes[0];
    const bool slow = s.series.key.kernel_id == "k.slow";
    EXPECT_EQ(h.previous_revision, slow ? "rev09" : "rev14");
    EXPECT_EQ(h.revision, slow ? "rev10" : "rev15");
    EXPECT_EQ(h.regression, slow);
    EXPECT_NEAR(h.point.change, slow ? 0.05 : -0.10, 0.015);
    EXPECT_NE(h.explanation.find("DRAM bytes"), std::string::npos) << h.explanation;
    EXPECT_NE(h.explanation.find(slow ? "registers 128 -> 168" : "resources unchanged"),
              std::string::npos)
        << h.explanation;
    EXPECT_FALSE(h.before_report.empty());
    EXPECT_NE(h.before_report, h.after_report);
  }
}

TEST_P(ChangesTest, PolicyOverridesDecideWhatFails) {
  FS_HISTORY_TEST_DB(db, GetParam());
  auto store = HistoryStore::Open(db);
  ASSERT_TRUE(store.ok()) << store.status();
  AddHistory(*store, {{"k.slow", {{10, 0.05}}}, {"k.ignored", {{10, 0.05}}}}, 20);
  reports::GatePolicy policy;
  reports::KernelOverride loose;
  loose.kernels = "k.slow";
  loose.allowed_slowdown = 0.08;
  reports::KernelOverride ignore;
  ignore.kernels = "k.ignored";
  ignore.ignore = true;
  policy.overrides = {loose, ignore};
  auto all = FindHistoryChanges(*store, *store->LoadSeries({}), policy);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 1u);  // the ignored kernel is not analysed
  ASSERT_EQ((*all)[0].changes.size(), 1u);
  EXPECT_FALSE((*all)[0].changes[0].regression);  // 5 % < the kernel's 8 %
  EXPECT_DOUBLE_EQ((*all)[0].changes[0].allowance, 0.08);
}

INSTANTIATE_TEST_SUITE_P(Backends, ChangesTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace flashscope::history
