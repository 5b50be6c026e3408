// The kernel's structure over a heatmap, in cell coordinates: tile boundaries, the last partial
// tile, and where a causal diagonal enters each key tile; on the committed ladder report too.
#include "analysis/heatmap_overlay.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "reports/report_json.h"
#include "reports/tests/sample_reports.h"

namespace flashscope::reports {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

CaseResult Attention(int64_t sq, int64_t sk, bool causal, TileRecord tile) {
  CaseResult c;
  c.family = "attention_fwd";
  c.params = {{"Sq", std::to_string(sq)},
              {"Sk", std::to_string(sk)},
              {"causal", causal ? "true" : "false"}};
  c.tile = tile;
  return c;
}

TEST(HeatmapOverlay, TileBoundariesAndTheLastPartialTileAlongTheQueryAxis) {
  // S = 200 over 200 rows, block_m 64: boundaries at 64 and 128 and 192, rows 192..199 partial.
  const CaseResult c = Attention(200, 200, false, {64, 64});
  const HeatmapOverlay o =
      BuildHeatmapOverlay(c, testing::HeatmapOfShape("position_x_dim", 200, 64, 200, 64));
  EXPECT_THAT(o.rows.tile_lines, ElementsAre(64, 128, 192));
  ASSERT_TRUE(o.rows.partial.has_value());
  EXPECT_EQ(o.rows.partial->from, 192);
  EXPECT_EQ(o.rows.partial->to, 200);
  EXPECT_TRUE(o.rows.diagonal_lines.empty());  // not causal
  EXPECT_TRUE(o.cols.tile_lines.empty());      // the head dimension is not tiled by block_m
  EXPECT_THAT(o.legend, ElementsAre("tile: 64 query rows; a line at each boundary",
                                    "last partial tile: query rows 192..199 (8 of 64; shaded)"));
}

TEST(HeatmapOverlay, DownsampledMapsScalePositionsToCells) {
  // 2048 query rows on 16 cells: a 128-row tile is one cell.
  const CaseResult c = Attention(2048, 2048, false, {128, 64});
  const HeatmapOverlay o =
      BuildHeatmapOverlay(c, testing::HeatmapOfShape("per_head", 48, 2048, 16, 16));
  ASSERT_EQ(o.cols.tile_lines.size(), 15u);
  EXPECT_THAT(o.cols.tile_lines.front(), DoubleNear(1.0, 1e-12));
  EXPECT_FALSE(o.cols.partial.has_value());
}

TEST(HeatmapOverlay, CausalDiagonalEntersEachKeyTile) {
  // Bottom-right aligned: query q sees keys up to q + (Sk - Sq) = q + 32; the diagonal enters
  // key tile j (64 keys) at q = 64 j - 32.
  const CaseResult c = Attention(160, 192, true, {64, 64});
  const HeatmapOverlay o =
      BuildHeatmapOverlay(c, testing::HeatmapOfShape("position_x_dim", 160, 64, 160, 64));
  EXPECT_THAT(o.rows.diagonal_lines, ElementsAre(32, 96));
  EXPECT_THAT(o.legend.back(), HasSubstr("the diagonal enters a new 64-key tile"));
}

TEST(HeatmapOverlay, TheFoldShowsWhatTheLastTileLacks) {
  // 200 rows folded by 64: the last tile holds rows 0..7 of the fold; 8..63 lack it.
  const CaseResult c = Attention(200, 200, false, {64, 64});
  const HeatmapOverlay o = BuildHeatmapOverlay(
      c, testing::HeatmapOfShape("tile_fold", 64, 64, 64, 64, "query position mod 64"));
  ASSERT_TRUE(o.rows.partial.has_value());
  EXPECT_EQ(o.rows.partial->from, 8);
  EXPECT_EQ(o.rows.partial->to, 64);
  EXPECT_TRUE(o.rows.tile_lines.empty());
}

TEST(HeatmapOverlay, GemmTilesBothAxes) {
  CaseResult c;
  c.family = "gemm";
  c.params = {{"M", "300"}, {"N", "256"}, {"K", "64"}};
  c.tile = TileRecord{128, 128};
  const HeatmapOverlay o =
      BuildHeatmapOverlay(c, testing::HeatmapOfShape("position", 300, 256, 300, 256));
  EXPECT_THAT(o.rows.tile_lines, ElementsAre(128, 256));
  EXPECT_THAT(o.cols.tile_lines, ElementsAre(128));
  EXPECT_TRUE(o.rows.partial.has_value());
  EXPECT_FALSE(o.cols.partial.has_value());  // 256 = 2 x 128
}

TEST(HeatmapOverlay, DenseBoundariesAreThinned) {
  const CaseResult c = Attention(16384, 16384, false, {64, 64});
  const HeatmapOverlay o =
      BuildHeatmapOverlay(c, testing::HeatmapOfShape("position_x_dim", 16384, 64, 256, 64), 64);
  EXPECT_EQ(o.rows.stride, 4);  // 255 boundaries, at most 64 drawn
  EXPECT_LE(o.rows.tile_lines.size(), 64u);
  EXPECT_THAT(o.legend.front(), HasSubstr("a line every 4 boundaries"));
}

TEST(HeatmapOverlay, NothingWithoutATile) {
  CaseResult c = Attention(200, 200, true, {64, 64});
  c.tile.reset();
  EXPECT_FALSE(
      BuildHeatmapOverlay(c, testing::HeatmapOfShape("position_x_dim", 200, 64, 200, 64)).Any());
}

// Reports written before tiles were recorded: block_m comes from the tile fold's axis.
TEST(HeatmapOverlay, CommittedReportsWithoutTilesTakeTheFold) {
  absl::StatusOr<Report> r = ReadReportFile(
      reports::testing::CommittedReport(std::string(FLASHSCOPE_TEST_SOURCE_DIR) +
                                        "/results/runs/20261122-025602-ladder-a10-a11.json"));
  ASSERT_TRUE(r.ok()) << r.status();
  const CaseResult& c = r->cases[0];  // attn.a10_fa2 at S = 2048, causal
  ASSERT_FALSE(c.tile.has_value());
  ASSERT_TRUE(TileOf(c).has_value());
  EXPECT_EQ(TileOf(c)->block_m, 128);
  const HeatmapOverlay o = BuildHeatmapOverlay(c, c.verification->heatmaps[0]);
  EXPECT_EQ(o.rows.tile_lines.size(), 15u);    // 2048 / 128 - 1 boundaries
  EXPECT_TRUE(o.rows.diagonal_lines.empty());  // block_n is not in the fold: not drawn
}

}  // namespace
}  // namespace flashscope::reports
