// The Hopper rungs' host-side schedule arithmetic, in CI: split-KV's share count (a19,
// attn_sm90::SplitCount), the dynamic schedule's head groups (a20, attn_sm90::SchedGroup), a21's
// tile height (attn_sm90::PreferShortTiles), g07's split tail (g06::SplitTailPlan) and the GEMM
// rungs' L2 promotion by row alignment (hopper::PromotionForRows).
#include <gtest/gtest.h>

#include <cstdint>

#include "kernels/hopper/attn_sm90_host.h"
#include "kernels/hopper/gemm_split_tail.h"
#include "kernels/hopper/tensor_map.h"

namespace flashscope::kernels::attn_sm90 {
namespace {

TEST(SplitCount, TilesThatFillWholeWavesAreNotSplit) {
  EXPECT_EQ(SplitCount(132, 128, 132), 1);
  EXPECT_EQ(SplitCount(2048, 32, 132), 1);  // 16k tokens, D = 128, S = 2048: 0.97 of 16 waves
  EXPECT_EQ(SplitCount(3072, 4, 132), 1);   // S = 512: short tiles, too few keys to share
}

TEST(SplitCount, FewTilesAreSplitToFillTheMachine) {
  // B=2 H=16 Sq=128 at D=128: 32 query tiles; 4 shares make 128 of 132 CTAs.
  EXPECT_EQ(SplitCount(32, 128, 132), 4);
  // 64 tiles: 2 shares, 128 CTAs.
  EXPECT_EQ(SplitCount(64, 32, 132), 2);
  // One tile (a decode row): 16 shares fill 16 SMs at most; 14 is the fewest within 15 % of it.
  EXPECT_EQ(SplitCount(1, 1000, 132), 14);
}

TEST(SplitCount, APoorLastWaveIsSplitToo) {
  // B=2 H=32 Sq=512 at D=64 (BM 192): 192 tiles are 1.45 waves (0.73 of two); 2 shares: 0.97.
  EXPECT_EQ(SplitCount(192, 32, 132), 2);
}

TEST(SplitCount, EveryShareKeepsFourKeyTiles) {
  EXPECT_EQ(SplitCount(4, 7, 132), 1);  // 7 key tiles: one share
  EXPECT_EQ(SplitCount(4, 8, 132), 2);  // 8 key tiles: at most 2 shares
  EXPECT_EQ(SplitCount(1, 0, 132), 1);  // no key tile at all
}

TEST(SplitCount, NothingToSplitOrNoDeviceMeansOneShare) {
  EXPECT_EQ(SplitCount(0, 100, 132), 1);
  EXPECT_EQ(SplitCount(10, 100, 0), 1);
}

TEST(SchedGroup, AGroupHoldsTwoWavesOfTiles) {
  EXPECT_EQ(SchedGroup(11, 132), 24);  // S = 2048 at BM = 192: 24 heads x 11 tiles = 264
  EXPECT_EQ(SchedGroup(3, 132), 88);   // S = 512
  EXPECT_EQ(SchedGroup(86, 132), 4);   // S = 16384: 344 tiles
  EXPECT_EQ(SchedGroup(1000, 132), 1);
  EXPECT_EQ(SchedGroup(0, 132), 1);
}

TEST(PreferShortTiles, WhereThePaddingOf192RowTilesCostsMoreThanTheSlowerSchedule) {
  for (int64_t sq : {1, 77, 128, 200, 256, 512, 1000, 1024})
    EXPECT_TRUE(PreferShortTiles(sq)) << sq;
  // Near multiples of 192 and long sequences keep three warpgroups.
  for (int64_t sq : {192, 300, 384, 1300, 2048, 4096, 8192}) {
    EXPECT_FALSE(PreferShortTiles(sq)) << sq;
  }
  EXPECT_FALSE(PreferShortTiles(0));
}

// a24 at head dim 128: the persistent grid while a query tile walks on average fewer than 12 key
// tiles of 128 (the crossing of the two schedules' fixed and per-tile costs).
TEST(PreferPrefetchGrid, WhileAQueryTileWalksFewerThanTwelveKeyTiles) {
  EXPECT_NEAR(kPrefetchMaxKeyTiles, (4.3 - 2.5) / (1.65 - 1.50), 1e-9);
  for (int64_t s : {1, 17, 256, 512, 1024, 1535}) EXPECT_TRUE(PreferPrefetchGrid(s, s, false)) << s;
  for (int64_t s : {1536, 2048, 4096}) EXPECT_FALSE(PreferPrefetchGrid(s, s, false)) << s;
  // Causal (bottom-right): a square problem's rows see (S + 1) / 2 keys on average.
  for (int64_t s : {512, 1024, 2048, 3000}) EXPECT_TRUE(PreferPrefetchGrid(s, s, true)) << s;
  for (int64_t s : {3072, 4096, 8192}) EXPECT_FALSE(PreferPrefetchGrid(s, s, true)) << s;
  // A 512-query chunk against 4096 keys: every row sees at least 3585 of them.
  EXPECT_FALSE(PreferPrefetchGrid(512, 4096, true));
  EXPECT_FALSE(PreferPrefetchGrid(128, 16384, false));
  // More queries than keys: the first rows see no key, the last ones all of them.
  EXPECT_TRUE(PreferPrefetchGrid(2100, 1500, true));
  EXPECT_FALSE(PreferPrefetchGrid(0, 100, false));
  EXPECT_FALSE(PreferPrefetchGrid(100, 0, true));
}

TEST(SplitTailPlan, ThePartialLastWaveIsSplitAlongK) {
  // 5000^3 at 128x256, clusters of two: 400 cluster tiles over 66, a tail of 4 tiles, 79 k-steps:
  // 16 splits would fit, the serial hand-over of partial sums caps them at 6.
  const g06::SplitTail a = g06::SplitTailPlan(400, 66, 79);
  EXPECT_EQ(a.full_units, 396);
  EXPECT_EQ(a.splits, g06::kMaxSplits);
  // 3000^3: 144 over 66, a tail of 12: 5 splits fill 60 of the 66 clusters.
  const g06::SplitTail b = g06::SplitTailPlan(144, 66, 47);
  EXPECT_EQ(b.full_units, 132);
  EXPECT_EQ(b.splits, 5);
  // Fewer tiles than one wave: all of them are the tail.
  EXPECT_EQ(g06::SplitTailPlan(64, 132, 16).full_units, 0);
  EXPECT_EQ(g06::SplitTailPlan(64, 132, 16).splits, 2);
}

TEST(SplitTailPlan, WholeWavesLargeTailsAndShortKAreNotSplit) {
  EXPECT_EQ(g06::SplitTailPlan(132, 66, 64).splits, 1);  // whole waves
  EXPECT_EQ(g06::SplitTailPlan(564, 66, 94).splits, 1);  // 6000^3: a tail of 36 of 66
  EXPECT_EQ(g06::SplitTailPlan(400, 66, 7).splits, 1);   // under 8 k-steps: no two of 4
  EXPECT_EQ(g06::SplitTailPlan(400, 66, 79).full_units + 4, 400);
  EXPECT_EQ(g06::SplitTailPlan(0, 66, 79).splits, 1);
}

}  // namespace
}  // namespace flashscope::kernels::attn_sm90

namespace flashscope::kernels::hopper {
namespace {

// Rows off the 32-byte grid (3000 and 5000 2-byte elements) get 128-byte promotion; rows on it
// (4000, 4096, 6000 elements; a 16-byte row) keep 256, the maps of every other shape unchanged.
TEST(PromotionForRows, RowsOffTheSectorGridTake128Bytes) {
  EXPECT_EQ(PromotionForRows(3000 * 2), CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  EXPECT_EQ(PromotionForRows(5000 * 2), CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  EXPECT_EQ(PromotionForRows(8 * 2), CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  EXPECT_EQ(PromotionForRows(4000 * 2), CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
  EXPECT_EQ(PromotionForRows(4096 * 2), CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
  EXPECT_EQ(PromotionForRows(6000 * 2), CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
}

// A matrix's map takes its rows' promotion (g06's A and B maps are MatrixTensors).
TEST(PromotionForRows, MatrixTensorAppliesIt) {
  const CUtensorMapDataType bf16 = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  EXPECT_EQ(MatrixTensor(nullptr, bf16, 3000, 3000, 3000 * 2, 128, 64).l2_promotion,
            CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  EXPECT_EQ(MatrixTensor(nullptr, bf16, 4096, 4096, 4096 * 2, 128, 64).l2_promotion,
            CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
}

}  // namespace
}  // namespace flashscope::kernels::hopper
