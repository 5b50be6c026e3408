// The outputs of `history show` and `changes`, and the history page in headless Chromium.
#include "history/history_render.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "common/tests/headless_chromium.h"
#include "history/tests/synthetic_history.h"
#include "history/tests/test_databases.h"
#include "reports/tests/sample_reports.h"

namespace flashscope::history {
namespace {

std::vector<SeriesChanges> SmallHistory(const std::string& db) {
  auto store = HistoryStore::Open(db);
  EXPECT_TRUE(store.ok()) << store.status();
  std::mt19937_64 rng(11);
  // A kernel id with markup and a formula: every output must keep it inert.
  const std::vector<testing::PlantedSeries> planted = {{"k.<b>x</b>", {{8, 0.06}}},
                                                       {"=cmd|calc", {}}};
  for (int i = 0; i < 16; ++i) {
    EXPECT_TRUE(store->Add(testing::SyntheticHistoryReport(i, planted, 0.005, rng), {}).ok());
  }
  auto all = FindHistoryChanges(*store, *store->LoadSeries({}), reports::GatePolicy{});
  EXPECT_TRUE(all.ok());
  return *all;
}

TEST(HistoryRender, FormatsMarkTheChangeAndKeepStringsInert) {
  const std::vector<SeriesChanges> all = SmallHistory(testing::FreshSqlitePath());
  const std::string md = RenderHistoryMarkdown(all, "db");
  EXPECT_NE(md.find("**◆ +"), std::string::npos) << md;
  EXPECT_EQ(md.find("<b>x</b>"), std::string::npos);
  const std::string csv = RenderHistoryCsv(all);
  EXPECT_NE(csv.find("\n'=cmd|calc,"), std::string::npos) << csv.substr(0, 400);
  EXPECT_NE(csv.find(",rev08,"), std::string::npos);
  const std::string html = RenderHistoryHtml(all, "db");
  EXPECT_EQ(html.find("<b>x</b>"), std::string::npos);
  EXPECT_NE(html.find("class='change'"), std::string::npos);
  const nlohmann::json j = ChangesJson(all, {}, -1, "db", "");
  ASSERT_EQ(j["changes"].size(), 1u);
  EXPECT_EQ(j["changes"][0]["revision"], "rev08");
  EXPECT_EQ(j["exit_code"], 1);
}

TEST(HistoryRender, BisectScriptQuotesEverythingItIsGiven) {
  HistoryChange h;
  h.key = {"k'; rm -rf /", "p", "gpu", "tb"};
  h.previous_revision = "good'rev";
  h.revision = "bad";
  h.allowance = 0.02;
  BisectOptions o;
  o.suite = "my suite.json";
  o.plugin = "build/p.so";
  o.build = "make -j";
  const std::string script = BisectScript(h, o);
  EXPECT_NE(script.find("git bisect start 'bad' 'good'\\''rev'"), std::string::npos) << script;
  EXPECT_NE(script.find("kernel='k'\\''; rm -rf /'"), std::string::npos) << script;
  EXPECT_NE(script.find("git bisect run \"$work/step.sh\""), std::string::npos);
}

TEST(HistoryHtmlScreenshot, ChromiumDrawsTheSeriesAndTheChangePoint) {
  const std::string chromium = flashscope::testing::FindChromium();
  if (chromium.empty()) GTEST_SKIP() << flashscope::testing::kNoChromium;
  const std::string dir = reports::testing::MakeTempDir();
  const std::string html = dir + "/history.html", png = dir + "/shot.png";
  std::ofstream(html) << RenderHistoryHtml(SmallHistory(dir + "/h.sqlite"), "synthetic");
  ASSERT_EQ(flashscope::testing::ChromiumScreenshot(chromium, html, png, dir, 1000, 700), "");
  std::ifstream in(png, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  flashscope::testing::Image img;
  std::string error;
  ASSERT_TRUE(flashscope::testing::DecodePng(bytes, &img, &error)) << error;
  size_t blue = 0, red = 0;
  for (size_t i = 0; i < img.rgb.size() / 3; ++i) {
    const uint8_t* px = &img.rgb[i * 3];
    blue += flashscope::testing::Near(px, 0x3b, 0x6f, 0xb6);
    red += flashscope::testing::Near(px, 0xb0, 0x00, 0x20);
  }
  EXPECT_GT(blue, 300u) << "no series line or points in " << png;
  EXPECT_GT(red, 100u) << "no change-point rule in " << png;
}

}  // namespace
}  // namespace flashscope::history
