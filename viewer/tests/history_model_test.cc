// The history view's model without a window: loading a history, where the chart puts revisions,
// which change point a click lands on, and opening a change adds the two runs for the compare
// view.
#include "viewer/history_model.h"

#include <gtest/gtest.h>

#include <random>

#include "history/tests/synthetic_history.h"
#include "history/tests/test_databases.h"
#include "viewer/session.h"

namespace flashscope::viewer {
namespace {

TEST(HistoryModel, LoadsSeriesFindsTheChangeAndOpensItsTwoRuns) {
  const std::string db = history::testing::FreshSqlitePath();
  {
    auto store = history::HistoryStore::Open(db);
    ASSERT_TRUE(store.ok()) << store.status();
    std::mt19937_64 rng(4);
    for (int i = 0; i < 12; ++i) {
      ASSERT_TRUE(store
                      ->Add(history::testing::SyntheticHistoryReport(
                                i, {{"k.flat", {}}, {"k.step", {{6, 0.08}}}}, 0.004, rng),
                            {})
                      .ok());
    }
  }
  HistoryModel model;
  ASSERT_TRUE(model.Load(db, reports::GatePolicy{})) << model.error();
  ASSERT_EQ(model.series().size(), 2u);
  EXPECT_EQ(model.FirstSeriesToShow(), 1);
  const history::SeriesChanges& step = model.series()[1];
  ASSERT_EQ(step.changes.size(), 1u);
  const SeriesChartScale scale = ChartScaleOf(step.series);
  EXPECT_DOUBLE_EQ(scale.X(0), 0);
  EXPECT_DOUBLE_EQ(scale.X(11), 1);
  EXPECT_LT(scale.Y(step.series.points[0].median_ms), 0.5);
  EXPECT_GT(scale.Y(step.series.points[11].median_ms), 0.5);
  const double marker = (scale.X(5) + scale.X(6)) / 2;
  EXPECT_EQ(ChangeNearX(step, scale, marker + 0.01, 0.02), 0);
  EXPECT_EQ(ChangeNearX(step, scale, marker + 0.05, 0.02), -1);

  Session session({});
  auto opened = model.AddChangeReports(step.changes[0], session);
  ASSERT_TRUE(opened.has_value()) << model.error();
  EXPECT_EQ(*opened, std::make_pair(0, 1));
  ASSERT_EQ(session.reports().size(), 2u);
  EXPECT_EQ(session.reports()[0].name, "rev05 (history)");
  EXPECT_EQ(session.reports()[1].report->environment.git_revision, "rev06");
}

TEST(HistoryModel, AnUnreadableDatabaseSaysWhy) {
  HistoryModel model;
  EXPECT_FALSE(model.Load("mysql://x/y", reports::GatePolicy{}));
  EXPECT_NE(model.error().find("unsupported database URL scheme"), std::string::npos);
  EXPECT_FALSE(model.loaded());
}

}  // namespace
}  // namespace flashscope::viewer
